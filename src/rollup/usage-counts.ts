/**
 * The rollup state of `usage.api-counts` for one (project, host, bucket): every counted request
 * and the four API families.
 *
 * @module
 */
import { FAMILIES, type Family } from '../contract/families.ts';
import { type Aggregate, countAfter, type StoredState, storedText } from './aggregate.ts';
import { SevenBitReader, SevenBitWriter } from '../text/seven-bit.ts';
import { binaryHeadCount, expectFormat, STATE_FORMATS } from './state-format.ts';

const FORMAT = STATE_FORMATS.usageCountsV1;
const out = new SevenBitWriter();

/** A state written before the binary form: `[total, rest, storage, auth, realtime]`. */
function fromJson(text: string): UsageCounts {
  const parsed: unknown = JSON.parse(text);
  if (
    !Array.isArray(parsed) || parsed.length !== 5 ||
    !parsed.every((n) => typeof n === 'number' && Number.isInteger(n) && n >= 0)
  ) {
    throw new Error(
      `usage counts state must be 5 non-negative integers: got ${text.slice(0, 80)}`,
    );
  }
  const [total, rest, storage, auth, realtime] = parsed as number[];
  return {
    total: total ?? 0,
    rest: rest ?? 0,
    storage: storage ?? 0,
    auth: auth ?? 0,
    realtime: realtime ?? 0,
  };
}

/** A state in format {@link STATE_FORMATS.usageCountsV1}: its five counts as unsigned varints. */
function fromBinary(stored: StoredState): UsageCounts {
  const input = new SevenBitReader(stored, 1);
  const state = {
    total: input.unsigned(),
    rest: input.unsigned(),
    storage: input.unsigned(),
    auth: input.unsigned(),
    realtime: input.unsigned(),
  };
  if (!input.done) throw new Error('usage counts state has bytes after its five counts');
  return state;
}

/**
 * A state's stored form ({@link STATE_FORMATS.usageCountsV1}): the format byte, then the five
 * counts, the total first (which `headCount` reads). For a state kept in columns too.
 */
export function usageCountsText(
  total: number,
  rest: number,
  storage: number,
  auth: number,
  realtime: number,
): string {
  return out.byte(FORMAT).unsigned(total).unsigned(rest).unsigned(storage).unsigned(auth)
    .unsigned(realtime).text();
}

/** Request counts of one bucket: `total` counts every request, families may overlap. */
export interface UsageCounts {
  total: number;
  rest: number;
  storage: number;
  auth: number;
  realtime: number;
}

/** Usage counts as an {@link Aggregate} over requests, each given as the families it is in. */
export const usageCounts: Aggregate<UsageCounts, readonly Family[], UsageCounts> = {
  empty: () => ({ total: 0, rest: 0, storage: 0, auth: 0, realtime: 0 }),

  add(state, families) {
    state.total += 1;
    // By index: this runs per request, and a for-of's iterator results are garbage wherever V8
    // has not optimized the loop.
    for (let i = 0; i < families.length; i++) state[families[i] as Family] += 1;
    return state;
  },

  merge(into, other) {
    into.total += other.total;
    for (const family of FAMILIES) into[family] += other[family];
    return into;
  },

  finalize: (state) => ({ ...state }),

  serialize: (state) =>
    usageCountsText(state.total, state.rest, state.storage, state.auth, state.realtime),

  deserialize: (stored) =>
    expectFormat(stored, FORMAT, 'usage counts') === 'json'
      ? fromJson(storedText(stored))
      : fromBinary(stored),

  headCount: (head) => binaryHeadCount(head, FORMAT) ?? countAfter(storedText(head), '['),
};
