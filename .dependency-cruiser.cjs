/**
 * The layering rule of docs/ARCHITECTURE.md, checked by `npm run check:layers` (part of
 * `npm test`): every import points down the layers, never up or across.
 *
 *   service/            composition root: wires a process from its configuration
 *   api/  consumers/    HTTP, and the Kafka runtime: neither knows the other
 *   src/endpoints/      read side (store -> rows) and the endpoint registry
 *   src/logs-sql/       the sandboxed logs.all's SQL: parser, translation, engine
 *   src/rollup/  src/reference/   the fold and the writer; the exact oracle (runs no code of src/)
 *   src/store/  src/contract/  src/kafka/  src/synthetic/
 *   src/events/         producer contract
 *   src/time/  src/text/  src/config.ts  src/logger.ts
 *
 * tools/ may import any layer; test/ anything.
 */
const SRC_ABOVE = (...layers) => `^src/(${layers.join('|')})/`;

/** A rule: files matching `from` may not import files matching `to`. */
const forbid = (name, comment, from, to) => ({
  name,
  comment,
  severity: 'error',
  from: { path: from },
  to: { path: to },
});

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'A cycle ties two modules together: neither can change or be tested alone.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    forbid(
      'src-is-the-core',
      'src/ is the core: it knows nothing of HTTP, the Kafka runtime, the process, tools or tests.',
      '^src/',
      '^(api|consumers|service|tools|test)/',
    ),
    forbid(
      'api-is-http-only',
      'api/ knows only HTTP: the process is composed in service/, consumers live beside it.',
      '^api/',
      '^(consumers|service|tools|test)/',
    ),
    forbid(
      'runtimes-only-at-the-edge',
      'Only the runtime adapters know Node or Deno: the rest of api/ is a fetch handler and imports no adapter.',
      '^api/(?!adapters/)',
      '^api/adapters/',
    ),
    forbid(
      'consumers-are-kafka-only',
      'consumers/ knows only the Kafka runtime: the process is composed in service/.',
      '^consumers/',
      '^(api|service|tools|test)/',
    ),
    forbid(
      'service-is-not-a-tool',
      'service/ composes the layers below it; tools and tests are above it.',
      '^service/',
      '^(tools|test)/',
    ),
    forbid(
      'base-is-the-bottom',
      'time, text, config and the logger are the bottom layer.',
      '^src/(time|text|async|config)/|^src/(config|logger)[.]ts$',
      SRC_ABOVE(
        'events',
        'contract',
        'store',
        'rollup',
        'reference',
        'endpoints',
        'kafka',
        'synthetic',
        'logs-sql',
      ),
    ),
    forbid(
      'events-below-everything-else',
      'The producer contract is below everything that reads events.',
      '^src/events/',
      SRC_ABOVE(
        'contract',
        'store',
        'rollup',
        'reference',
        'endpoints',
        'kafka',
        'synthetic',
        'logs-sql',
      ),
    ),
    forbid(
      'contract-below-both-sides',
      'The query contract (names, parameters, rows, tiers, families) is below the rollups, the read side and the oracle.',
      '^src/contract/',
      SRC_ABOVE('store', 'rollup', 'reference', 'endpoints', 'kafka', 'synthetic', 'logs-sql'),
    ),
    forbid(
      'store-keeps-what-it-is-given',
      "A store adapter only keeps what it is given: key names and states are the rollups' business.",
      '^src/store/',
      SRC_ABOVE(
        'events',
        'contract',
        'rollup',
        'reference',
        'endpoints',
        'kafka',
        'synthetic',
        'logs-sql',
      ),
    ),
    forbid(
      'rollup-below-the-read-side',
      'The rollups are below the read side and share nothing with the oracle.',
      '^src/rollup/',
      SRC_ABOVE('reference', 'endpoints', 'kafka', 'synthetic', 'logs-sql'),
    ),
    {
      name: 'oracle-shares-no-code',
      comment:
        'The reference evaluator checks the parsers, the time arithmetic, the rollups and the ' +
        'read side: it runs none of their code. It may name their types (erased at run time) and ' +
        'takes parsed events, but reads parameters, truncates, orders and encodes by itself.',
      severity: 'error',
      from: { path: '^src/reference/' },
      to: { path: '^src/', pathNot: '^src/reference/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'nothing-runs-the-oracle',
      comment:
        'Only tests and benchmarks run the reference evaluator: the service answers without it.',
      severity: 'error',
      from: { path: '^(src|api|consumers|service)/', pathNot: '^src/reference/' },
      to: { path: '^src/reference/' },
    },
    forbid(
      'logs-sql-is-an-engine',
      'The SQL of the sandboxed logs.all reads rows it is given: it knows no store, rollup or endpoint.',
      '^src/logs-sql/',
      SRC_ABOVE('contract', 'store', 'rollup', 'reference', 'endpoints', 'kafka', 'synthetic'),
    ),
    forbid(
      'kafka-is-plumbing',
      'The Kafka module (client, topics) knows nothing of rollups or endpoints.',
      '^src/kafka/',
      SRC_ABOVE('contract', 'store', 'rollup', 'reference', 'endpoints', 'synthetic', 'logs-sql'),
    ),
    forbid(
      'synthetic-is-a-producer',
      'The synthetic generator produces events; it knows nothing of what consumes them.',
      '^src/synthetic/',
      SRC_ABOVE('contract', 'store', 'rollup', 'reference', 'endpoints', 'kafka', 'logs-sql'),
    ),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|[.]cache|[.]services|coverage|bench-results)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    moduleSystems: ['es6'],
  },
};
