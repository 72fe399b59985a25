/**
 * Score bounds as Redis reads them: `+inf`/`-inf` for infinities, exclusive bounds with `(`.
 *
 * @module
 */

/** The text of a score bound; `exclusive` prefixes `(`. */
export function scoreText(score: number, exclusive = false): string {
  const text = score === Number.POSITIVE_INFINITY
    ? '+inf'
    : score === Number.NEGATIVE_INFINITY
    ? '-inf'
    : String(score);
  return exclusive ? `(${text}` : text;
}
