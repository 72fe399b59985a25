/**
 * Score bounds of sorted-set range reads, in the form both Redis protocols take: `+inf`/`-inf`
 * for infinities, `(` before an exclusive bound; and the scored members of a `WITHSCORES` reply.
 *
 * @module
 */

import type { ScoredMember } from './port.ts';

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

/**
 * A `WITHSCORES` reply (member, score, member, score…, scores as text) as scored members.
 *
 * @example
 * ```ts
 * pairsOf(['h1', '100']); // [{ member: 'h1', score: 100 }]
 * ```
 */
export function pairsOf(reply: readonly string[]): ScoredMember[] {
  const members: ScoredMember[] = [];
  for (let i = 0; i + 1 < reply.length; i += 2) {
    members.push({ member: reply[i] ?? '', score: Number(reply[i + 1]) });
  }
  return members;
}
