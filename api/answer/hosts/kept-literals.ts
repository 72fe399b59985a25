/**
 * Kept literal patterns (a plain project ref, matched by substring), by their text. A new host
 * finds the literals it contains through their lengths: it costs one map lookup per substring
 * of each kept literal length, however many literals are kept. So the distinct lengths are
 * bounded ({@link MAX_LITERAL_LENGTHS}): a literal of another length is answered from the view's
 * index but not kept.
 *
 * @example
 * ```ts
 * const literals = new KeptLiterals(10_000);
 * const kept = { pattern, matches: new Set<ViewEntry>(), scanned: Promise.resolve() };
 * if (literals.mayKeep('abc')) literals.keep('abc', kept);
 * literals.route([{ project: 'p', host: 'abc.supabase.co', newestUs: 0 }]);
 * kept.matches.size; // 1
 * ```
 *
 * @module
 */
import { KeptPatterns } from './kept-patterns.ts';
import type { ViewEntry } from './registry-view.ts';

/**
 * Most distinct lengths among kept literals: a new host is looked up once per substring of each
 * length, so a caller asking literals of every length from 1 to 256 would make each new host cost
 * 1,024 × 256 lookups.
 */
export const MAX_LITERAL_LENGTHS = 8;

/** Kept literals by their text, least recently used first. */
export class KeptLiterals extends KeptPatterns {
  /** How many kept literals have each length: the substring lengths a new host is looked up by. */
  readonly #lengths = new Map<number, number>();

  override mayKeep(literal: string): boolean {
    return this.#lengths.has(literal.length) || this.#lengths.size < MAX_LITERAL_LENGTHS;
  }

  route(added: readonly ViewEntry[]): void {
    for (const entry of added) {
      for (const length of this.#lengths.keys()) {
        for (let at = 0; at + length <= entry.host.length; at++) {
          this.byName.get(entry.host.slice(at, at + length))?.matches.add(entry);
        }
      }
    }
  }

  protected override kept(literal: string): void {
    this.#lengths.set(literal.length, (this.#lengths.get(literal.length) ?? 0) + 1);
  }

  protected override dropped(literal: string): void {
    const left = (this.#lengths.get(literal.length) ?? 1) - 1;
    if (left === 0) this.#lengths.delete(literal.length);
    else this.#lengths.set(literal.length, left);
  }
}
