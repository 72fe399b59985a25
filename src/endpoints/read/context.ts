/**
 * What every read of an endpoint needs: the store, the clock and the ingestion skew (events up
 * to that far in the future were accepted, so buckets up to `now + skew` may hold data).
 *
 * @module
 */
import type { HostPattern } from '../../contract/params/api-counts.ts';
import type { UnreadableReporter } from '../../rollup/unreadable.ts';
import type { RollupStore } from '../../store/port.ts';

/** A (project, host) pair of the registry: the project whose events carried the host. */
export interface HostEntry {
  readonly project: string;
  readonly host: string;
}

/** The registry entries, with a window start at or before `sinceUs`, whose host `pattern` matches. */
export type HostMatcher = (pattern: HostPattern, sinceUs: number) => Promise<readonly HostEntry[]>;

/** The environment of an endpoint read. */
export interface ReadContext {
  readonly store: RollupStore;
  /** Now, in Unix microseconds: the `now` of CONTRACT section 5. */
  readonly nowUs: number;
  /** How far in the future an accepted event's timestamp may be, in microseconds. */
  readonly maxFutureSkewUs: number;
  /**
   * Told about each stored state or ring-buffer entry that could not be read; the read goes on
   * without it (one bad key must not stop an endpoint).
   */
  readonly onUnreadable?: UnreadableReporter;
  /**
   * Where `usage.api-counts` finds the hosts a pattern matches (the API's cache); default: the
   * store's registry, matched within {@link ./hosts.ts} `DEFAULT_MATCH_BUDGET_MS`.
   */
  readonly matchHosts?: HostMatcher;
}
