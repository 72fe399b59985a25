/**
 * The request hosts of `usage.api-counts`: the registry of (project, host) pairs in the store,
 * and matching a caller's pattern against it within a time budget. A pattern is the caller's
 * (RE2, so linear in the host's length, but a 256-character pattern of Unicode classes still
 * costs tens of milliseconds per kilobyte-long host): matching yields to other work every few
 * milliseconds, so no request freezes the server, and stops with a clear refusal once it has
 * used its budget.
 *
 * @module
 */
import { type ParamError, ParamRefusal } from '../../contract/params/common.ts';
import type { HostPattern } from '../../contract/params/api-counts.ts';
import { HOSTS_KEY, parseHostMember, type RegisteredHost } from '../../rollup/keys.ts';
import type { HostEntry, ReadContext } from './context.ts';
import type { RollupStore } from '../../store/port.ts';
import { nextTurn } from '../../async/next-turn.ts';

export type { HostEntry } from './context.ts';

/** Where the registry of hosts comes from (the store itself, or a cache in front of it). */
export type HostSource = (context: ReadContext, sinceUs: number) => Promise<readonly HostEntry[]>;

/** The registry entries whose newest request is at or after `sinceUs`, read from the store. */
export async function readRegistry(
  store: RollupStore,
  sinceUs: number,
): Promise<RegisteredHost[]> {
  const members = await store.membersSince(HOSTS_KEY, sinceUs);
  const entries: RegisteredHost[] = [];
  for (const { member, score } of members) {
    const entry = parseHostMember(member);
    if (entry !== null) entries.push({ project: entry.project, host: entry.host, newestUs: score });
  }
  return entries;
}

/** Reads the registry straight from the store. */
export const storeHosts: HostSource = (context, sinceUs) => readRegistry(context.store, sinceUs);

/** Default of {@link MatchBudget.budgetMs}: matching time one request may use, in ms. */
export const DEFAULT_MATCH_BUDGET_MS = 1_000;

/** How long matching runs before it lets other work go first, in ms. */
const SLICE_MS = 10;

/** Bounds of one pattern's matching. */
export interface MatchBudget {
  /** Matching time (not counting waits for other work) after which the pattern is refused. */
  readonly budgetMs: number;
  /** A monotonic clock in ms (default `performance.now`). */
  readonly clockMs?: () => number;
  /**
   * How matching lets other work go first between slices (default: a `setTimeout(0)`, the same
   * on Node and Deno). The API passes its gate's, which also lets only one costly pattern at a
   * time go on.
   */
  readonly nextTurn?: () => Promise<void>;
}

/** The refusal of a pattern that used its matching budget against `hosts` registered hosts. */
export function overBudget(hosts: number, budgetMs: number): ParamError {
  return {
    code: 'invalid_parameter',
    parameter: 'project',
    message: `invalid parameter "project": matching this pattern against the ${hosts} ` +
      `registered hosts took longer than the budget of ${budgetMs} ms; use a simpler pattern ` +
      '(a plain project ref, e.g. project=abcdefghijklmnopqrst, is matched by substring search)',
  };
}

/**
 * The entries whose host `pattern` matches. Gives other work a turn every 10 ms of matching;
 * throws a {@link ParamRefusal} (400 `invalid_parameter`) once matching has taken more than
 * `budget.budgetMs`.
 *
 * @example
 * ```ts
 * const matched = await matchHosts(entries, pattern, { budgetMs: 1_000 });
 * ```
 */
export async function matchHosts<Entry extends HostEntry>(
  entries: readonly Entry[],
  pattern: HostPattern,
  budget: MatchBudget,
): Promise<Entry[]> {
  const clock = budget.clockMs ?? (() => performance.now());
  const yieldTurn = budget.nextTurn ?? nextTurn;
  const matched: Entry[] = [];
  let spentMs = 0;
  let sliceStart = clock();
  for (const entry of entries) {
    if (pattern.test(entry.host)) matched.push(entry);
    const sliceMs = clock() - sliceStart;
    if (sliceMs < SLICE_MS) continue;
    spentMs += sliceMs;
    if (spentMs > budget.budgetMs) {
      throw new ParamRefusal(overBudget(entries.length, budget.budgetMs));
    }
    await yieldTurn();
    sliceStart = clock();
  }
  return matched;
}
