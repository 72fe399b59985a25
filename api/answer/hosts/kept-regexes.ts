/**
 * Kept patterns other than literals (regular expressions), by their source. A new host is tested
 * against each of them; past a small budget per batch of new hosts ({@link ROUTING_BUDGET_MS})
 * the patterns left are dropped (and scanned again, within the matching budget, when next
 * asked), so no refresh of the view stalls the process.
 *
 * @example
 * ```ts
 * const regexes = new KeptRegexes(100, () => performance.now());
 * const kept = { pattern, matches: new Set<ViewEntry>(), scanned: Promise.resolve() };
 * regexes.keep(pattern.source, kept);
 * regexes.route(view.entries()); // kept.matches now holds the hosts `pattern` matches
 * ```
 *
 * @module
 */
import { KeptPatterns } from './kept-patterns.ts';
import type { ViewEntry } from './registry-view.ts';

/** Time kept patterns may spend testing the hosts of one batch before the rest are dropped, ms. */
export const ROUTING_BUDGET_MS = 10;

/** Kept regular expressions by source, least recently used first. */
export class KeptRegexes extends KeptPatterns {
  readonly #clockMs: () => number;

  /** `clockMs`: the clock of the routing budget, in ms (monotonic). */
  constructor(capacity: number, clockMs: () => number) {
    super(capacity);
    this.#clockMs = clockMs;
  }

  route(added: readonly ViewEntry[]): void {
    const started = this.#clockMs();
    for (const [source, kept] of this.byName) {
      if (this.#clockMs() - started > ROUTING_BUDGET_MS) {
        this.drop(source, kept);
        continue;
      }
      for (const entry of added) if (kept.pattern.test(entry.host)) kept.matches.add(entry);
    }
  }
}
