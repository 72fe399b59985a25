/**
 * Reading what Prometheus reads: the metric families and samples of a text exposition, and the
 * metric names a PromQL expression uses. For the tests that hold the dashboard, the alert rules
 * and the service's `/metrics` to each other.
 *
 * @module
 */

/** One sample line of an exposition: `name{labels} value`. */
export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** The samples of a text exposition (comments left out). */
export function samples(text: string): Sample[] {
  const found: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)/.exec(line);
    if (match === null) throw new Error(`not an exposition line: ${line}`);
    const labels: Record<string, string> = {};
    for (const pair of (match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) {
      labels[pair[1] ?? ''] = pair[2] ?? '';
    }
    found.push({ name: match[1] ?? '', labels, value: Number(match[3]) });
  }
  return found;
}

/** Series names a family of `type` exposes (a histogram: its buckets, sum and count). */
function seriesOf(name: string, type: string): string[] {
  if (type === 'histogram') return [`${name}_bucket`, `${name}_sum`, `${name}_count`];
  if (type === 'summary') return [name, `${name}_sum`, `${name}_count`];
  return [name];
}

/**
 * Every series name the exposition declares (`# TYPE` lines), whether or not it has a sample
 * yet: a labelled counter appears at its first increment, but is exported from the start.
 */
export function exportedNames(text: string): Set<string> {
  const names = new Set<string>();
  for (const match of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    for (const name of seriesOf(match[1] ?? '', match[2] ?? '')) names.add(name);
  }
  return names;
}

/** PromQL's keywords and aggregation modifiers: identifiers that are not metric names. */
const KEYWORDS = new Set([
  'and',
  'or',
  'unless',
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'bool',
  'offset',
  'inf',
  'nan',
]);

/**
 * The metric names `expr` selects. String literals, label matchers (`{…}`), ranges (`[…]`) and
 * grouping lists (`by (…)`) are dropped first; an identifier followed by `(` is a function.
 *
 * @example
 * ```ts
 * metricNames('sum by (le) (rate(x_bucket{job="a"}[5m])) / sum(rate(y_count[5m]))');
 * // ['x_bucket', 'y_count']
 * ```
 */
export function metricNames(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  const names: string[] = [];
  for (const match of stripped.matchAll(/[a-zA-Z_:][\w:]*(?=\s*(\(?))/g)) {
    const name = match[0];
    if (match[1] === '(' || KEYWORDS.has(name.toLowerCase())) continue;
    // Within a number (`1e3`) or a duration (`5m`): not a name.
    const before = stripped[match.index - 1] ?? ' ';
    if (/[\d.]/.test(before)) continue;
    names.push(name);
  }
  return [...new Set(names)];
}
