/**
 * Issue 48: `StateColumns` on its own, against the aggregates' state objects. Random runs of its
 * every operation (records made and freed, invocations and requests folded, a delta's records
 * merged, copied or loaded into a writer's columns) leave every record's stored text byte for byte
 * what the aggregates' own `add`, `merge` and `serialize` give for the same values; rooms of exact
 * values reused after a free never mix two records' values; and the columns tell when most of
 * their room is free.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { FAMILIES } from '../../src/contract/families.ts';
import type { Invocation } from '../../src/events/types.ts';
import { type InvocationStats, invocationStats } from '../../src/rollup/invocation-stats.ts';
import { EXACT_LIMIT } from '../../src/rollup/quantiles.ts';
import { StateColumns, type StateKind } from '../../src/rollup/state-columns.ts';
import { type UsageCounts, usageCounts } from '../../src/rollup/usage-counts.ts';

/** Generated cases per run: few steps each, so even the mutation run takes them all (0.4 s). */
const RUNS = 75;

type Reference =
  | { readonly kind: 'invocation'; state: InvocationStats }
  | { readonly kind: 'usage'; state: UsageCounts };

/** A record of one of the two columns and the state objects' twin of it. */
interface Tracked {
  readonly record: number;
  reference: Reference;
}

/** The writer's columns (`parts`) and a fold's (`delta`), with what each record should hold. */
interface Model {
  readonly parts: StateColumns;
  readonly delta: StateColumns;
  readonly partRecords: Tracked[];
  readonly deltaRecords: Tracked[];
}

function emptyReference(kind: StateKind): Reference {
  return kind === 'invocation'
    ? { kind, state: invocationStats.empty() }
    : { kind, state: usageCounts.empty() };
}

function textOf(reference: Reference): string {
  return reference.kind === 'invocation'
    ? invocationStats.serialize(reference.state)
    : usageCounts.serialize(reference.state);
}

/** A copy of `reference` that shares nothing with it. */
function cloned(reference: Reference): Reference {
  return reference.kind === 'invocation'
    ? { kind: 'invocation', state: invocationStats.deserialize(textOf(reference)) }
    : { kind: 'usage', state: usageCounts.deserialize(textOf(reference)) };
}

/** Times with ties, both zeros, negatives and fractions: the order of equal values shows. */
const time = fc.constantFrom(0, -0, 1, 1, 2.5, -3, 1e-7, 7, 7, 40, 999_999_999);
const status = fc.constantFrom(null, 99, 100, 200, 302, 399, 400, 404, 500, 599, 600);

type Step =
  | { readonly op: 'new'; readonly delta: boolean; readonly kind: StateKind }
  | { readonly op: 'free'; readonly delta: boolean; readonly pick: number }
  | {
    readonly op: 'invocations';
    readonly delta: boolean;
    readonly pick: number;
    readonly statusCode: number | null;
    readonly times: readonly (number | null)[];
  }
  | {
    readonly op: 'request';
    readonly delta: boolean;
    readonly pick: number;
    readonly mask: number;
  }
  | { readonly op: 'merge' | 'copy' | 'load'; readonly pick: number; readonly from: number };

const pick = fc.nat(1_000);
/** One kind of step, drawn `weight` times as often as a weight of 1. */
function weighted(arbitrary: fc.Arbitrary<Step>, weight: number) {
  return { arbitrary, weight };
}
const step: fc.Arbitrary<Step> = fc.oneof(
  weighted(
    fc.record({
      op: fc.constant('new' as const),
      delta: fc.boolean(),
      // Usage counts merge as sums: most records are invocations, whose sketches merge.
      kind: fc.constantFrom<StateKind>('invocation', 'invocation', 'invocation', 'usage'),
    }),
    4,
  ),
  weighted(fc.record({ op: fc.constant('free' as const), delta: fc.boolean(), pick }), 1),
  weighted(
    fc.record({
      op: fc.constant('invocations' as const),
      delta: fc.boolean(),
      pick,
      statusCode: status,
      // Up to past the exact values a sketch keeps, so that some records bin.
      times: fc.oneof(
        fc.array(fc.option(time), { maxLength: 6 }),
        // Signed zeros alone: which one is the minimum, and where each goes, shows.
        fc.array(fc.constantFrom(0, -0), { maxLength: 6 }),
        fc.array(time, { minLength: EXACT_LIMIT - 3, maxLength: EXACT_LIMIT + 3 }),
      ),
    }),
    4,
  ),
  weighted(
    fc.record({ op: fc.constant('request' as const), delta: fc.boolean(), pick, mask: fc.nat(15) }),
    2,
  ),
  weighted(fc.record({ op: fc.constant('merge' as const), pick, from: pick }), 6),
  weighted(
    fc.record({ op: fc.constantFrom('copy' as const, 'load' as const), pick, from: pick }),
    2,
  ),
);

function invocation(statusCode: number | null, executionTimeMs: number | null): Invocation {
  return { projectRef: 'p', functionId: null, statusCode, executionTimeMs };
}

/** The stored text of a state of `times` invocations, timed 1 ms each. */
function textOfStats(times: number): string {
  const state = invocationStats.empty();
  for (let i = 0; i < times; i++) invocationStats.add(state, invocation(200, 1));
  return invocationStats.serialize(state);
}

/** The record at `at` (modulo) of those of `kind` in `records`, if there is one. */
function chosen(records: readonly Tracked[], at: number, kind?: StateKind): Tracked | undefined {
  const of = kind === undefined ? records : records.filter((r) => r.reference.kind === kind);
  return of.length === 0 ? undefined : of[at % of.length];
}

function foldInvocations(
  model: Model,
  step: Extract<Step, { op: 'invocations' }>,
): void {
  const columns = step.delta ? model.delta : model.parts;
  const records = step.delta ? model.deltaRecords : model.partRecords;
  const target = chosen(records, step.pick, 'invocation');
  if (target?.reference.kind !== 'invocation') return;
  for (const executionTimeMs of step.times) {
    columns.addInvocation(target.record, step.statusCode, executionTimeMs);
    invocationStats.add(target.reference.state, invocation(step.statusCode, executionTimeMs));
  }
}

function foldRequest(model: Model, step: Extract<Step, { op: 'request' }>): void {
  const columns = step.delta ? model.delta : model.parts;
  const target = chosen(step.delta ? model.deltaRecords : model.partRecords, step.pick, 'usage');
  if (target?.reference.kind !== 'usage') return;
  columns.addRequest(target.record, step.mask);
  usageCounts.add(target.reference.state, FAMILIES.filter((_, bit) => (step.mask >> bit) & 1));
}

/** Merges the delta's `source` into the part `part` (of the same kind). */
function merged(model: Model, part: Tracked, source: Tracked): void {
  model.parts.merge(part.record, source.reference.kind, model.delta, source.record);
  const into = part.reference;
  const other = source.reference;
  if (into.kind === 'invocation' && other.kind === 'invocation') {
    // A copy: the aggregate's merge may keep what it is given.
    const copy = invocationStats.deserialize(invocationStats.serialize(other.state));
    invocationStats.merge(into.state, copy);
  } else if (into.kind === 'usage' && other.kind === 'usage') {
    usageCounts.merge(into.state, other.state);
  }
}

/** A delta's record into a part: merged (kinds alike), copied or loaded as read from the store. */
function intoPart(model: Model, step: Extract<Step, { op: 'merge' | 'copy' | 'load' }>): void {
  const source = chosen(model.deltaRecords, step.from);
  if (source === undefined) return;
  const kind = source.reference.kind;
  const part = chosen(model.partRecords, step.pick, step.op === 'merge' ? kind : undefined);
  if (part === undefined) return;
  if (step.op === 'merge') return merged(model, part, source);
  if (step.op === 'load') {
    const read = cloned(source.reference);
    model.parts.load(part.record, kind, read.state);
    part.reference = cloned(read);
    return;
  }
  model.parts.copy(part.record, model.delta, source.record);
  part.reference = cloned(source.reference);
  // A copied record's binned sketch is shared: the delta's record is not read again.
  model.delta.free(source.record);
  model.deltaRecords.splice(model.deltaRecords.indexOf(source), 1);
}

function apply(model: Model, step: Step): void {
  switch (step.op) {
    case 'new': {
      const columns = step.delta ? model.delta : model.parts;
      const records = step.delta ? model.deltaRecords : model.partRecords;
      records.push({ record: columns.newRecord(), reference: emptyReference(step.kind) });
      return;
    }
    case 'free': {
      const records = step.delta ? model.deltaRecords : model.partRecords;
      const target = chosen(records, step.pick);
      if (target === undefined) return;
      (step.delta ? model.delta : model.parts).free(target.record);
      records.splice(records.indexOf(target), 1);
      return;
    }
    case 'invocations':
      return foldInvocations(model, step);
    case 'request':
      return foldRequest(model, step);
    default:
      return intoPart(model, step);
  }
}

function expectTexts(columns: StateColumns, records: readonly Tracked[]): void {
  for (const { record, reference } of records) {
    expect(columns.text(record, reference.kind)).toBe(textOf(reference));
  }
}

describe('state columns', () => {
  test("every record's text is its state objects' text, whatever was done to the others", () => {
    fc.assert(
      fc.property(fc.array(step, { minLength: 10, maxLength: 150, size: 'max' }), (steps) => {
        // Room for few records: the columns grow, and freed records and rooms are used again.
        const model: Model = {
          parts: new StateColumns(1),
          delta: new StateColumns(1),
          partRecords: [],
          deltaRecords: [],
        };
        for (const next of steps) apply(model, next);
        expectTexts(model.parts, model.partRecords);
        expectTexts(model.delta, model.deltaRecords);
        expect(model.parts.size).toBe(model.partRecords.length);
        expect(model.delta.size).toBe(model.deltaRecords.length);
      }),
      { numRuns: RUNS },
    );
  });

  test("a freed record comes back empty; its rooms used again leave the others' values", () => {
    const columns = new StateColumns(1);
    const first = columns.newRecord();
    for (let i = 0; i < 20; i++) columns.addInvocation(first, 500, 20 - i);
    columns.setExpiry(first, 123);
    const neighbour = columns.newRecord();
    for (let i = 0; i < 20; i++) columns.addInvocation(neighbour, 200, i);
    columns.free(first);
    const again = columns.newRecord();
    expect(again).toBe(first);
    expect(columns.text(again, 'invocation')).toBe(
      invocationStats.serialize(invocationStats.empty()),
    );
    expect(columns.expiryOf(again)).toBe(0);
    // The freed rooms (4 to 32 values) are taken again as the record grows: none is new.
    const used = columns.arenaUsed;
    const mine = invocationStats.empty();
    for (let i = 0; i < 17; i++) {
      columns.addInvocation(again, 200, 100 - i);
      invocationStats.add(mine, invocation(200, 100 - i));
    }
    const theirs = invocationStats.empty();
    for (let i = 0; i < 20; i++) {
      invocationStats.add(theirs, invocation(200, i));
    }
    expect(columns.text(again, 'invocation')).toBe(invocationStats.serialize(mine));
    expect(columns.text(neighbour, 'invocation')).toBe(invocationStats.serialize(theirs));
    expect(columns.arenaUsed).toBe(used);
  });

  test('the expiry of a record is kept apart from its values', () => {
    const columns = new StateColumns();
    const record = columns.newRecord();
    columns.setExpiry(record, 1_795_256_130_123);
    columns.addInvocation(record, 200, 5);
    columns.addRequest(columns.newRecord(), 15);
    expect(columns.expiryOf(record)).toBe(1_795_256_130_123);
  });

  test('records start with room for what was asked, at least 16, and double', () => {
    expect(new StateColumns(0).capacity).toBe(16);
    expect(new StateColumns(300).capacity).toBe(300);
    const columns = new StateColumns(16);
    for (let i = 0; i < 17; i++) columns.newRecord();
    expect(columns.capacity).toBe(32);
  });

  test('columns are wasteful once three quarters of a large room of records is free', () => {
    const columns = new StateColumns(1);
    const records = Array.from({ length: 8_193 }, () => columns.newRecord());
    expect(columns.capacity).toBe(16_384);
    expect(columns.wasteful).toBe(false);
    // 4,096 in use of 16,384: exactly a quarter is not yet wasteful.
    for (const record of records.slice(4_096)) columns.free(record);
    expect(columns.size).toBe(4_096);
    expect(columns.wasteful).toBe(false);
    columns.free(records[0] as number);
    expect(columns.wasteful).toBe(true);
  });

  test('a small room of records is never wasteful, however empty', () => {
    const columns = new StateColumns(4_096);
    const records = Array.from({ length: 4_096 }, () => columns.newRecord());
    for (const record of records) columns.free(record);
    expect(columns.capacity).toBe(4_096);
    expect(columns.wasteful).toBe(false);
  });

  test('columns are wasteful once three quarters of a large arena of exact values is free', () => {
    // Records in room enough that the records alone never count as wasteful.
    const count = 4_096 * 2 + 1;
    const columns = new StateColumns(count);
    const records = Array.from({ length: count }, () => columns.newRecord());
    // Each takes the largest room (EXACT_LIMIT values): an arena past 4,096 such rooms.
    for (const record of records) {
      for (let i = 0; i < 65; i++) columns.addInvocation(record, 200, i);
    }
    expect(columns.wasteful).toBe(false);
    // A record binned gives its room back: rooms in use are counted, not records. The fewest
    // rooms in use that are still a quarter of the arena:
    const quarter = Math.ceil(columns.arenaCapacity / (4 * EXACT_LIMIT));
    const binned = records.slice(0, count - quarter);
    for (const record of binned) {
      for (let i = 0; i < EXACT_LIMIT; i++) columns.addInvocation(record, 200, i);
    }
    expect(columns.size).toBe(count);
    expect(columns.wasteful).toBe(false);
    for (let i = 0; i < EXACT_LIMIT; i++) {
      columns.addInvocation(records[count - 1] as number, 200, i);
    }
    expect(columns.wasteful).toBe(true);
  });
  test('a delta merged into a binned part, or a binned one into an exact part, bins both', () => {
    const parts = new StateColumns();
    const delta = new StateColumns();
    /** A record of `columns` and its state object, given the same times. */
    const both = (columns: StateColumns, times: readonly number[]) => {
      const record = columns.newRecord();
      const state = invocationStats.empty();
      for (const time of times) {
        columns.addInvocation(record, 200, time);
        invocationStats.add(state, invocation(200, time));
      }
      return { record, state };
    };
    const past = Array.from({ length: EXACT_LIMIT + 1 }, (_, i) => i);
    const binned = both(parts, past);
    const exact = both(parts, [50, 49, 48]);
    const small = both(delta, [7, 8, 9]);
    const large = both(delta, past.map((i) => 2 * i));
    parts.merge(binned.record, 'invocation', delta, small.record);
    parts.merge(exact.record, 'invocation', delta, large.record);
    invocationStats.merge(binned.state, small.state);
    invocationStats.merge(exact.state, large.state);
    expect(parts.text(binned.record, 'invocation')).toBe(invocationStats.serialize(binned.state));
    expect(parts.text(exact.record, 'invocation')).toBe(invocationStats.serialize(exact.state));
  });

  test("a freed record's room of exact values is used again: no room is new", () => {
    const columns = new StateColumns();
    const fill = (record: number) => {
      for (let i = 0; i < EXACT_LIMIT; i++) columns.addInvocation(record, 200, i);
    };
    const records = Array.from({ length: 50 }, () => columns.newRecord());
    records.forEach(fill);
    const used = columns.arenaUsed;
    for (let round = 0; round < 5; round++) {
      for (const record of records.splice(0, 10)) columns.free(record);
      const fresh = Array.from({ length: 10 }, () => columns.newRecord());
      fresh.forEach(fill);
      records.push(...fresh);
    }
    expect(columns.arenaUsed).toBe(used);
  });

  test('a record binned, merged past the limit or loaded gives its room back to the next record', () => {
    const columns = new StateColumns();
    const first = columns.newRecord();
    for (let i = 0; i < EXACT_LIMIT; i++) columns.addInvocation(first, 200, i);
    const used = columns.arenaUsed;
    // Binned: its exact values go, and the room with them.
    columns.addInvocation(first, 200, 1_000);
    const second = columns.newRecord();
    for (let i = 0; i < EXACT_LIMIT; i++) columns.addInvocation(second, 200, i);
    // Loaded with a state of no times: its room goes back, and the next record takes them all.
    columns.load(second, 'invocation', invocationStats.deserialize(textOfStats(0)));
    const third = columns.newRecord();
    for (let i = 0; i < EXACT_LIMIT; i++) columns.addInvocation(third, 200, i);
    expect(columns.arenaUsed).toBe(used);
    // Merged past the exact values' limit: binned, its room goes back too.
    const delta = new StateColumns();
    const many = delta.newRecord();
    for (let i = 0; i < EXACT_LIMIT; i++) delta.addInvocation(many, 200, i);
    columns.merge(third, 'invocation', delta, many);
    const fourth = columns.newRecord();
    for (let i = 0; i < EXACT_LIMIT; i++) columns.addInvocation(fourth, 200, i);
    expect(columns.arenaUsed).toBe(used);
  });

  test('a record takes room for exact values only when it has some, and moves only when full', () => {
    const columns = new StateColumns();
    const used = columns.arenaUsed;
    const records = Array.from({ length: 2_000 }, () => columns.newRecord());
    // Counts without times, and states loaded with no times, take no room at all.
    for (const record of records) {
      columns.addInvocation(record, 500, null);
      columns.load(record, 'invocation', invocationStats.deserialize(textOfStats(0)));
    }
    expect(columns.arenaUsed).toBe(used);
    // Three values each: a room of 4 each.
    for (const record of records) {
      for (let i = 0; i < 3; i++) columns.addInvocation(record, 200, i);
    }
    const filled = columns.arenaUsed;
    // A fourth value merged into each fills its room: none moves, the arena stays as it is.
    const delta = new StateColumns();
    const one = delta.newRecord();
    delta.addInvocation(one, 200, 9);
    for (const record of records) columns.merge(record, 'invocation', delta, one);
    expect(columns.arenaUsed).toBe(filled);
  });
});
