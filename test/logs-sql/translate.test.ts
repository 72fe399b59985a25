/**
 * BigQuery's meaning where SQLite's differs, each case a query over a few events with the answer
 * BigQuery (or the reference system's Postgres translation, where the two differ) gives.
 */
import { describe, expect, test } from 'vitest';
import { parseQuery } from '../../src/logs-sql/parse-sql.ts';
import { planQuery } from '../../src/logs-sql/translate.ts';
import { runPlan, type TableRow } from '../../src/logs-sql/engine.ts';
import { SqlRefusal } from '../../src/logs-sql/sql-refusal.ts';

const NOW_US = 1_795_256_130_123_456;

function row(id: string, secondsAgo: number, message: string, metadata: unknown): TableRow {
  const timestampUs = NOW_US - secondsAgo * 1_000_000;
  return {
    id,
    timestampUs,
    json: new TextEncoder().encode(
      JSON.stringify({ id, timestamp: timestampUs, event_message: message, metadata }),
    ),
  };
}

const ROWS = [
  row('a', 10, '{"level":"info","n":2}', {
    status: '503',
    level: 'info',
    request: { path: '/x%y' },
  }),
  row('b', 70, 'abc', { status: 200, level: 'error', request: { path: '/xzy', tags: ['t'] } }),
  row('c', 3_700, 'Abc 100%', { status: 'n/a', level: null }),
];

async function run(sql: string): Promise<Record<string, unknown>[]> {
  const plan = planQuery(await parseQuery(sql), NOW_US);
  return (await runPlan(plan, ROWS)).rows;
}

async function refusal(sql: string): Promise<string> {
  try {
    await run(sql);
  } catch (error) {
    if (error instanceof SqlRefusal) return error.message;
    throw error;
  }
  throw new Error(`not refused: ${sql}`);
}

describe('logs.all sql: BigQuery semantics on SQLite', () => {
  test.each([
    // A field holding digits compares with a number as a number (the Postgres translation's cast).
    ['select id from auth_logs where metadata.status >= 500', [{ id: 'a' }]],
    ['select id from auth_logs where metadata.status between 100 and 300', [{ id: 'b' }]],
    // LIKE is case-sensitive and escapes with a backslash; ILIKE is not.
    ["select id from auth_logs where event_message like 'a%'", [{ id: 'b' }]],
    ["select id from auth_logs where event_message ilike 'a%' order by id", [
      { id: 'b' },
      { id: 'c' },
    ]],
    [
      "select id from auth_logs cross join unnest(metadata) as m where m.request.path like '/x\\\\%%'",
      [
        { id: 'a' },
      ],
    ],
    // `/` is float division; SAFE_DIVIDE by zero is NULL.
    ['select count(*) / 2 as half, safe_divide(1, 0) as none from auth_logs', [
      { half: 1.5, none: null },
    ]],
    // SAFE_CAST of a bad value is NULL.
    ['select id, safe_cast(metadata.status as int64) as s from auth_logs order by id', [
      { id: 'a', s: 503 },
      { id: 'b', s: 200 },
      { id: 'c', s: null },
    ]],
    // Booleans come back as booleans.
    ["select id, (metadata.level = 'info') as info from auth_logs order by id", [
      { id: 'a', info: true },
      { id: 'b', info: false },
      { id: 'c', info: null },
    ]],
    // A record comes back in the warehouse's form, a missing field as null.
    ["select metadata.request, metadata.nothing from auth_logs where id = 'b'", [
      { request: [{ path: '/xzy', tags: ['t'] }], nothing: null },
    ]],
    // Timestamps: literals read as timestamps, truncation and intervals in microseconds.
    [
      'select id from auth_logs where timestamp > timestamp_sub(current_timestamp(), interval 1 hour) order by id',
      [
        { id: 'a' },
        { id: 'b' },
      ],
    ],
    [
      "select timestamp_trunc(timestamp, minute) as timestamp, count(*) as n from auth_logs where timestamp > '2026-11-21T09:00:00Z' group by timestamp order by timestamp",
      [
        { timestamp: 1_795_256_040_000_000, n: 1 },
        { timestamp: 1_795_256_100_000_000, n: 1 },
        { timestamp: 1_795_252_380_000_000, n: 1 },
      ].sort((x, y) => x.timestamp - y.timestamp),
    ],
    // Functions of Studio's Explorer and BigQuery's common ones.
    [
      "select countif(metadata.level = 'error') as errors, count(distinct metadata.level) as levels from auth_logs",
      [
        { errors: 1, levels: 2 },
      ],
    ],
    [
      "select id, json_value(event_message, '$.level') as level, json_value(event_message, '$.n') as n from auth_logs order by id",
      [
        { id: 'a', level: 'info', n: '2' },
        { id: 'b', level: null, n: null },
        { id: 'c', level: null, n: null },
      ],
    ],
    [
      "select if(starts_with(event_message, 'A'), 'upper', 'lower') as c, ifnull(metadata.level, '-') as l from auth_logs order by id",
      [
        { c: 'lower', l: 'info' },
        { c: 'lower', l: 'error' },
        { c: 'upper', l: '-' },
      ],
    ],
    ['select REGEXP_CONTAINS(event_message, r"\\d+%") as pct from auth_logs order by id', [
      { pct: false },
      { pct: false },
      { pct: true },
    ]],
    // NULLS FIRST and LAST as asked.
    ['select id from auth_logs order by metadata.level nulls last, id', [
      { id: 'b' },
      { id: 'a' },
      { id: 'c' },
    ]],
    // An alias of the SELECT list wins over a column of the same name in GROUP BY and ORDER BY.
    [
      'select timestamp_trunc(timestamp, hour) as timestamp, count(*) as count from auth_logs group by timestamp order by count desc, timestamp limit 1',
      [
        { timestamp: 1_795_255_200_000_000, count: 2 },
      ],
    ],
  ])('%s', async (sql, expected) => {
    expect(await run(sql)).toEqual(expected);
  });

  test('LIKE: `_` is one character, `\\` escapes', async () => {
    expect(
      await run(
        "select id from auth_logs where event_message like '_bc' or event_message like '%100\\\\%' order by id",
      ),
    ).toEqual([{ id: 'b' }, { id: 'c' }]);
  });

  describe('fields answered, grouped and sorted by their values (a review of the first build)', () => {
    const fields = [
      row('p', 1, 'x', { level: 'x', n: 5 }),
      row('q', 2, 'x', { level: null, n: 10, flag: true }),
      row('r', 3, 'x', { n: 7, flag: false }),
      row('s', 4, 'x', { level: 'x', status: 200 }),
    ];
    const over = async (sql: string) =>
      (await runPlan(planQuery(await parseQuery(sql), NOW_US), fields)).rows;

    test.each([
      // JSON null and a missing field are one NULL group; the alias groups by the value.
      ['select metadata.level as l, count(*) as c from auth_logs group by l order by c desc, l', [
        { l: null, c: 2 },
        { l: 'x', c: 2 },
      ]],
      ['select distinct metadata.level as l from auth_logs order by l', [{ l: null }, { l: 'x' }]],
      // Numbers sort as numbers.
      ['select metadata.n as n from auth_logs where metadata.n is not null order by n', [
        { n: 5 },
        { n: 7 },
        { n: 10 },
      ]],
      // A JSON boolean is a boolean; CASE and IFNULL of booleans are booleans.
      ['select metadata.flag as f from auth_logs where metadata.flag is not null order by id', [
        { f: true },
        { f: false },
      ]],
      [
        'select case when metadata.n > 6 then true else false end as big, ifnull(metadata.flag, false) as f from auth_logs order by id',
        [
          { big: false, f: false },
          { big: true, f: true },
          { big: true, f: false },
          { big: false, f: false },
        ],
      ],
      // A number field equals its text, as a literal compared with it is coerced.
      [
        "select id from auth_logs where metadata.status = '200' or metadata.n in (5, 7) order by id",
        [
          { id: 'p' },
          { id: 'r' },
          { id: 's' },
        ],
      ],
      // HAVING and ORDER BY name the SELECT list's aliases.
      [
        'select metadata.level as l, count(*) as c from auth_logs group by l having c > 1 order by c * 2 desc, l',
        [
          { l: null, c: 2 },
          { l: 'x', c: 2 },
        ],
      ],
    ])('%s', async (sql, expected) => {
      expect(await over(sql)).toEqual(expected);
    });
  });

  test.each([
    [
      "select trim('  x ') as t, upper('straße é') as u, concat('a', null) as n from auth_logs where id = 'a'",
      [
        { t: 'x', u: 'STRASSE É', n: null },
      ],
    ],
    ["select cast(timestamp as string) as t from auth_logs where id = 'a'", [
      { t: '2026-11-21 10:15:20.123456+00' },
    ]],
    ["select id from auth_logs where timestamp > concat('2026-11-21', 'T10:15:00Z')", [{
      id: 'a',
    }]],
  ])('%s', async (sql, expected) => {
    expect(await run(sql)).toEqual(expected);
  });

  test('no value grows past 1 MiB: concat and || of long texts are refused', async () => {
    const long = row('long', 5, 'y'.repeat(30_000), {});
    for (
      const sql of [
        `select ${Array(40).fill('event_message').join(' || ')} as x from auth_logs`,
        `select concat(${Array(15).fill('event_message').join(', ')}, ${
          Array(30).fill('event_message').join(' || ')
        }) as x from auth_logs`,
      ]
    ) {
      const plan = planQuery(await parseQuery(sql), NOW_US);
      await expect(runPlan(plan, [long])).rejects.toThrow(
        'concat makes a text of more than 1048576 characters',
      );
    }
  });

  test("each part of a query appears once in its plan: nesting never multiplies the plan's size", async () => {
    let nested = 'event_message';
    for (let i = 0; i < 10; i++) nested = `json_value(safe_divide(1, length(${nested})), '$')`;
    const plan = planQuery(await parseQuery(`select ${nested} as x from auth_logs`), NOW_US);
    expect(plan.sql.length).toBeLessThan(2_000);
    expect((await runPlan(plan, ROWS)).rows).toHaveLength(3);
  });

  test('json_value reads a JSONPath of names, quoted names and indexes; an alias may be __proto__', async () => {
    const doc = row('d', 1, '{"a":{"b c":[10,{"d":true}]}}', {});
    const plan = planQuery(
      await parseQuery(
        'select json_value(event_message, \'$.a["b c"][1].d\') as d, json_value(event_message, ' +
          "'$.a[\"b c\"][0]') as n, json_value(event_message, '$.a') as o, id as __proto__, " +
          "trim('xxaxx', 'x') as t from auth_logs limit 99999999999",
      ),
      NOW_US,
    );
    expect(JSON.stringify((await runPlan(plan, [doc])).rows)).toBe(
      '[{"d":"true","n":"10","o":null,"__proto__":"d","t":"a"}]',
    );
  });

  test('a stored text that is not JSON is a row of NULLs, not an error', async () => {
    const plan = planQuery(
      await parseQuery('select id, event_message, metadata from auth_logs'),
      NOW_US,
    );
    const broken = {
      id: 'x',
      timestampUs: NOW_US,
      json: new TextEncoder().encode('{"event_message":'),
    };
    expect((await runPlan(plan, [broken])).rows).toEqual([{
      id: 'x',
      event_message: null,
      metadata: null,
    }]);
  });

  test.each([
    ['select lpad(event_message, 1000000) as s from auth_logs', 'the function lpad is not allowed'],
    ['select substr(event_message, 1) as s from auth_logs', 'Substring is not supported'],
    ['select id from auth_logs group by 3', 'the ordinal 3 is out of range'],
    [
      'select metadata.level from auth_logs cross join unnest(metadata) as m with offset',
      'this UNNEST',
    ],
    ['select id from auth_logs left join unnest(metadata) as m on m.level = 1', 'this join'],
    ['select id from auth_logs limit 1 + 1', 'a LIMIT other than a number'],
    ['select `a"b` from auth_logs cross join unnest(metadata) as m', 'Unrecognized name'],
    ['select m.`a"b` from auth_logs cross join unnest(metadata) as m', 'the field name'],
    [
      'select count(*) as n from auth_logs where count(*) > 1',
      'the query cannot run: misuse of aggregate',
    ],
    ['select id, metadata.id from auth_logs', 'Duplicate column name id'],
    ['select timestamp_sub(timestamp, interval 1.5 hour) as t from auth_logs', 'whole number'],
    ['select timestamp_trunc(timestamp, constructor) as t from auth_logs', 'the unit'],
    ["select timestamp_trunc(timestamp, '__proto__') as t from auth_logs", 'the unit'],
    ['select 1 / 0 as x from auth_logs', 'division by zero'],
    ['select 1e999 as x from auth_logs', 'the number 1e999'],
    [
      "select id from auth_logs where metadata.n in ('5', 7)",
      'the items of an IN list must be of one type',
    ],
    [
      "select cast('out of memory' as int64) as t from auth_logs",
      'Bad int64 value: "out of memory"',
    ],
  ])('refused: %s', async (sql, message) => {
    expect(await refusal(sql)).toContain(message);
  });
});
