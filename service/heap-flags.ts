/**
 * The V8 heap flags each role is started with. The consumer role's: `npm run consumers`, the
 * image's consumers in docker-compose.yml (`NODE_OPTIONS`), and the tools that start consumers to
 * measure them (`bench:ingest`, `soak`); the API role's below. test/deploy/heap-flags.test.ts
 * keeps those launchers equal to these lists. docs/OPERATIONS.md ("A consumer's memory") says
 * what each bounds and how the consumer's own bounds fit inside it: the old space holds the parts
 * cache (`PARTS_CACHE_LIMIT`), what is pending (`FLUSH_EVENTS`, `FLUSH_BYTES`) and a fetch's
 * decoded batches, with room for V8 to collect; past 70% of the heap's limit the consumer holds
 * batches back (consumers/heap-guard.ts) rather than run out of memory.
 *
 * @module
 */

/** Most MiB of V8's old space (long-lived objects) of a consumer process. */
export const CONSUMER_OLD_SPACE_MIB = 256;

/** MiB of each of V8's two young-generation semi-spaces (short-lived objects). */
export const CONSUMER_SEMI_SPACE_MIB = 32;

/** The flags, as given to `node` (or, on Deno, to `--v8-flags=` joined by commas). */
export const CONSUMER_HEAP_FLAGS: readonly string[] = [
  `--max-old-space-size=${CONSUMER_OLD_SPACE_MIB}`,
  `--max-semi-space-size=${CONSUMER_SEMI_SPACE_MIB}`,
];

/**
 * MiB of each of the API role's two young-generation semi-spaces. V8 sizes them from the
 * machine's memory (up to 64 MiB each on 24 GiB). A burst of connections grows them to their
 * most, where they stay: with 5,000 live streams that was a quarter of the API's RSS. With 8 MiB,
 * 64 answers computed at once without reuse outlived the young generation (a scavenge every 18
 * ms, the collector 27% of the API's time). With 16: a fifth less CPU per answer and less RSS
 * under that load (218 MiB against 297), for 23 MiB more with 5,000 live streams (265 against
 * 242; docs/OPERATIONS.md, "An API replica's memory").
 */
export const API_SEMI_SPACE_MIB = 16;

/**
 * The API role's flags: `npm run api`, `NODE_OPTIONS` in the API container of
 * docker-compose.yml, and the tools that start an API (`bench:live`, `bench:api`, `soak`).
 */
export const API_HEAP_FLAGS: readonly string[] = [`--max-semi-space-size=${API_SEMI_SPACE_MIB}`];

/**
 * V8 flags every role sets on itself as it starts (service/main.ts), wherever it is started: Node
 * refuses them in `NODE_OPTIONS`. Allocation-site pretenuring off: V8 allocates straight in the
 * old space what a site made that once outlived the young generation. In the API, a pushed
 * answer's bytes, dead within milliseconds, then stay until a major collection (with 5,000 live
 * streams, about 2 MiB a second, 40 to 50 MiB more RSS; docs/OPERATIONS.md, "An API replica's
 * memory"). In the consumers, a batch's objects, which a flush drops, cost old-space collections:
 * off, `bench:ingest` folded 7 to 16% more events a second for 6 to 16% less CPU, with less RSS
 * (docs/OPERATIONS.md, "A consumer's memory").
 */
export const RUNTIME_V8_FLAGS: readonly string[] = ['--no-allocation-site-pretenuring'];
