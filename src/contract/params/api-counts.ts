/**
 * Parameters of `usage.api-counts` (CONTRACT section 5).
 *
 * @module
 */

import { RE2JS, RE2JSException } from 're2js';
import { isUsageInterval, USAGE_INTERVALS, type UsageInterval } from '../../time/series.ts';
import { invalidParameter, type ParamResult, type ParamSource, requiredParam } from './common.ts';

/** Longest accepted `project` pattern, in characters (Unicode code points). */
export const MAX_PATTERN_LENGTH = 256;

/**
 * Largest accepted program of a `project` pattern, in RE2 instructions (re2js `programSize()`).
 * RE2 may try every instruction at every character (measured with re2js on Node 24: up to about
 * 45 ns per instruction and character), so one test against a 1,024-character host (the longest
 * the events carry) takes at most about 45 ms at this size. Matching yields to other requests
 * between hosts, so that is about the longest one pattern holds the event loop. Counted
 * repetitions are what make programs large (`\pL{1000}` is 1,002 instructions; 28 of them, 252
 * characters, 28,002); a pattern naming project refs stays far below (a 256-character
 * alternation of refs is about 260).
 */
export const MAX_PROGRAM_SIZE = 1_000;

/** A compiled `project` pattern of `usage.api-counts`. */
export interface HostPattern {
  /** The pattern as given. */
  readonly source: string;
  /** Whether the pattern is found anywhere in `host` (containment, not a full match). */
  test(host: string): boolean;
  /**
   * The text the pattern stands for when it uses no RE2 syntax (a plain project ref): it matches
   * exactly the hosts that contain this text, which an index can answer.
   */
  readonly literal?: string;
}

/** Typed parameters of `usage.api-counts`. */
export interface ApiCountsParams {
  readonly project: HostPattern;
  readonly interval: UsageInterval;
}

const INTERVAL_NAMES = Object.keys(USAGE_INTERVALS).join(', ');
const PATTERN_EXPECTED =
  `an RE2 regular expression of at most ${MAX_PATTERN_LENGTH} characters, found anywhere in the request host, e.g. project=abcdefghijklmnopqrst`;

/**
 * Reads the parameters of `usage.api-counts`: `project` (required; an RE2 pattern of at most
 * 256 characters, compiled here in linear-time RE2 semantics) and `interval` (required; one of
 * `minutely`, `hourly`, `daily` and Studio's `1hr`, `1day`, `7day`).
 *
 * @example
 * ```ts
 * const result = parseApiCountsParams(new URLSearchParams('project=abc&interval=hourly'));
 * if (result.ok) result.params.project.test('abc.supabase.co'); // true
 * ```
 */
export function parseApiCountsParams(source: ParamSource): ParamResult<ApiCountsParams> {
  const patternText = requiredParam(source, 'project', PATTERN_EXPECTED);
  if (!patternText.ok) return patternText;
  const project = compileHostPattern(patternText.params);
  if (!project.ok) return project;
  const intervalText = requiredParam(source, 'interval', `one of ${INTERVAL_NAMES}`);
  if (!intervalText.ok) return intervalText;
  const interval = intervalText.params;
  if (!isUsageInterval(interval)) {
    return invalidParameter('interval', `one of ${INTERVAL_NAMES}`, interval);
  }
  return { ok: true, params: { project: project.params, interval } };
}

/**
 * Compiles a `project` pattern, or explains why it is refused (`invalid_parameter`): longer than
 * {@link MAX_PATTERN_LENGTH}, not RE2, or a program over {@link MAX_PROGRAM_SIZE} instructions.
 *
 * @example
 * ```ts
 * compileHostPattern('(abc').ok; // false: missing closing )
 * compileHostPattern('\\pL{1000}'.repeat(28)).ok; // false: 28,002 instructions
 * ```
 */
export function compileHostPattern(pattern: string): ParamResult<HostPattern> {
  let length = 0;
  for (const _ of pattern) length++;
  if (length > MAX_PATTERN_LENGTH) {
    return invalidParameter(
      'project',
      `${PATTERN_EXPECTED}; this one has ${length} characters`,
      pattern,
    );
  }
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(pattern);
  } catch (error) {
    if (error instanceof RE2JSException) {
      return invalidParameter(
        'project',
        `${PATTERN_EXPECTED}; this one does not compile (${error.message})`,
        pattern,
      );
    }
    throw error;
  }
  const size = compiled.programSize();
  if (size > MAX_PROGRAM_SIZE) {
    return invalidParameter(
      'project',
      `${PATTERN_EXPECTED}; this one compiles to ${size} RE2 instructions, over the limit of ${MAX_PROGRAM_SIZE}: use fewer or smaller counted repetitions ({n})`,
      pattern,
    );
  }
  // Most callers pass a plain project ref: a literal is matched by substring search, which
  // finds it exactly where RE2 would, without running the engine.
  const literal = literalOf(pattern);
  if (literal !== null) return { ok: true, params: literalPattern(pattern, literal) };
  return { ok: true, params: { source: pattern, test: (host) => compiled.test(host) } };
}

/**
 * A pattern that is plain text, tested by substring search. Built apart from the RE2 program so
 * that its closure does not hold that program (kilobytes each): the API keeps thousands of these.
 */
function literalPattern(source: string, literal: string): HostPattern {
  return { source, literal, test: (host) => host.includes(literal) };
}

/** Characters with a meaning in RE2 syntax outside a character class. */
const METACHARACTERS = /[\\.+*?()|[\]{}^$]/;

/**
 * The literal text a pattern stands for, or null when it uses any RE2 syntax: a pattern without
 * any RE2 metacharacter matches a host exactly when the host contains it.
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
