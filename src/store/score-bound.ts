/**
 * Score bounds of sorted-set range reads, in the form both Redis protocols take: `+inf`/`-inf`
 * for infinities, `(` before an exclusive bound.
 *
 * @module
 */

/** A score bound as Redis reads it (the REST client's own type for it, too). */
export type ScoreBound = number | '+inf' | '-inf' | `(${number}`;

/**
 * The bound for `score`; `exclusive` excludes the score itself (an infinite bound excludes
 * nothing a score can equal, so it needs no `(`).
 *
 * @example
 * ```ts
 * scoreBound(Number.POSITIVE_INFINITY); // '+inf'
 * scoreBound(1_795_256_130_123_456, true); // '(1795256130123456'
 * ```
 */
export function scoreBound(score: number, exclusive = false): ScoreBound {
  if (score === Number.POSITIVE_INFINITY) return '+inf';
  if (score === Number.NEGATIVE_INFINITY) return '-inf';
  return exclusive ? `(${score}` : score;
}
