/**
 * Why a caller's `sql` is not run: the message names the construct and, where the parser gave
 * one, where it is. The HTTP API answers it as a 400 whose `error.message` Studio shows.
 *
 * @module
 */

/** A caller's query refused: outside the supported subset, invalid, or too costly. */
export class SqlRefusal extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SqlRefusal';
  }
}

/** A query refused because it ran past its time limit (its engine's thread was ended). */
export class SqlTimeout extends SqlRefusal {
  constructor(message: string) {
    super(message);
    this.name = 'SqlTimeout';
  }
}

/** A refusal of `construct`, with its place when `node` carries the parser's span. */
export function unsupported(construct: string, node?: unknown): SqlRefusal {
  const at = placeOf(node);
  return new SqlRefusal(
    `${construct} is not supported in logs.all's sql${at === '' ? '' : ` (${at})`}`,
  );
}

/** `line L, column C` of a node's span, or '' when it has none. */
export function placeOf(node: unknown): string {
  const span = findSpan(node, 4);
  return span === null ? '' : `line ${span.line}, column ${span.column}`;
}

interface Place {
  readonly line: number;
  readonly column: number;
}

function findSpan(node: unknown, depth: number): Place | null {
  if (node === null || typeof node !== 'object' || depth === 0) return null;
  const span = (node as { span?: { start?: Place } }).span?.start;
  if (span !== undefined && typeof span.line === 'number' && span.line > 0) return span;
  for (const value of Object.values(node)) {
    const found = findSpan(value, depth - 1);
    if (found !== null) return found;
  }
  return null;
}
