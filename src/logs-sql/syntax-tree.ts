/**
 * Reading the syntax tree sqlparser-rs gives (as `@guanmingchiu/sqlparser-ts` hands it over): an
 * enum is an object of one key (`{ "BinaryOp": {...} }`) or a bare string (`"Wildcard"`). The
 * package's own types do not match what it returns, so the tree is read as unknown values and
 * every shape is checked where it is used: what is not recognized is refused, never guessed.
 *
 * @module
 */
import { unsupported } from './sql-refusal.ts';

/** A node of the tree: anything, checked where read. */
export type SyntaxNode = unknown;

/** An enum value: its variant and the variant's content (undefined for a bare string). */
export interface Variant {
  readonly kind: string;
  readonly value: SyntaxNode;
}

/** The variant of an enum node; refused (naming `what`) when the node is no enum. */
export function variantOf(node: SyntaxNode, what: string): Variant {
  if (typeof node === 'string') return { kind: node, value: undefined };
  if (node !== null && typeof node === 'object' && !Array.isArray(node)) {
    const keys = Object.keys(node);
    if (keys.length === 1) {
      const kind = keys[0] as string;
      return { kind, value: (node as Record<string, SyntaxNode>)[kind] };
    }
  }
  throw unsupported(`this form of ${what}`, node);
}

/** The field `name` of an object node (undefined when absent or not an object). */
export function field(node: SyntaxNode, name: string): SyntaxNode {
  if (node === null || typeof node !== 'object') return undefined;
  return (node as Record<string, SyntaxNode>)[name];
}

/** The field `name` as an array (empty when absent). */
export function list(node: SyntaxNode, name: string): readonly SyntaxNode[] {
  const value = field(node, name);
  return Array.isArray(value) ? value : [];
}

/** Whether a field holds nothing: absent, null, `"None"`, false or an empty array. */
export function isAbsent(value: SyntaxNode): boolean {
  return value === undefined || value === null || value === 'None' || value === false ||
    (Array.isArray(value) && value.length === 0);
}

/** The text of an identifier node (`{ value, quote_style? }`). */
export function identText(node: SyntaxNode): string {
  const value = field(node, 'value');
  if (typeof value !== 'string') throw unsupported('this identifier', node);
  return value;
}
