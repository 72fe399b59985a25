/**
 * The fast path of `usage.api-counts` patterns: most callers pass a plain project ref, which
 * needs no regular-expression engine at all. A pattern without any RE2 metacharacter matches a
 * host exactly when the host contains it as a substring.
 *
 * @module
 */
import type { HostPattern } from '../../src/contract/params/api-counts.ts';

/** Characters with a meaning in RE2 syntax outside a character class. */
const METACHARACTERS = /[\\.+*?()|[\]{}^$]/;

/**
 * The literal text a pattern stands for, or null when it uses any RE2 syntax.
 *
 * @example
 * ```ts
 * literalOf('abcdefghijklmnopqrst'); // 'abcdefghijklmnopqrst'
 * literalOf('abc.supabase.co'); // null: '.' matches any character
 * literalOf('(a+)+$'); // null
 * ```
 */
export function literalOf(pattern: string): string | null {
  return pattern === '' || METACHARACTERS.test(pattern) ? null : pattern;
}

/**
 * `pattern`, with `test` answered by substring search when the pattern is a literal.
 *
 * @example
 * ```ts
 * const fast = withLiteralFastPath(compiled); // compiled from 'abcdefghijklmnopqrst'
 * fast.test('abcdefghijklmnopqrst.supabase.co'); // true, without RE2
 * ```
 */
export function withLiteralFastPath(pattern: HostPattern): HostPattern {
  const literal = literalOf(pattern.source);
  if (literal === null) return pattern;
  return { source: pattern.source, test: (host) => host.includes(literal) };
}
