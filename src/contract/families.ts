/**
 * The four API families of `usage.api-counts`, recognized by containment in the request path
 * (CONTRACT section 5): `/rest`, `/storage`, `/auth`, `/realtime`. A path may belong to several
 * (`/rest/v1/rpc/auth_user` is both REST and auth) or to none (`/graphql/v1`).
 *
 * @module
 */

/** The API families, in the column order of `usage.api-counts` rows. */
export const FAMILIES = ['rest', 'storage', 'auth', 'realtime'] as const;

/** An API family. */
export type Family = (typeof FAMILIES)[number];

/** The text whose presence anywhere in a request path puts the request in the family. */
export const FAMILY_PATH_TEXT: Readonly<Record<Family, string>> = {
  rest: '/rest',
  storage: '/storage',
  auth: '/auth',
  realtime: '/realtime',
};

// The answer for each of the 16 combinations, built once: `familiesOf` runs per request on the
// fold's hot path and allocates nothing.
const BY_MASK: readonly (readonly Family[])[] = Array.from(
  { length: 1 << FAMILIES.length },
  (_, mask) => Object.freeze(FAMILIES.filter((_, bit) => (mask & (1 << bit)) !== 0)),
);

/**
 * The families a request path counts toward, as bits in `FAMILIES` order (`rest` is bit 0).
 * Case-sensitive containment (`String.prototype.includes`), as the reference system's
 * `REGEXP_CONTAINS` on the path is. A null path (no path and no parseable URL) belongs to no
 * family.
 *
 * @example
 * ```ts
 * familyMask('/rest/v1/rpc/auth_user'); // 0b0101: rest and auth
 * ```
 */
export function familyMask(path: string | null): number {
  if (path === null) return 0;
  let mask = 0;
  for (let bit = 0; bit < FAMILIES.length; bit++) {
    const family = FAMILIES[bit];
    if (family !== undefined && path.includes(FAMILY_PATH_TEXT[family])) mask |= 1 << bit;
  }
  return mask;
}

/**
 * The families a request path counts toward, in `FAMILIES` order ({@link familyMask}).
 *
 * @example
 * ```ts
 * familiesOf('/rest/v1/todos'); // ['rest']
 * familiesOf('/rest/v1/rpc/auth_user'); // ['rest', 'auth']
 * familiesOf('/graphql/v1'); // []
 * ```
 */
export function familiesOf(path: string | null): readonly Family[] {
  return BY_MASK[familyMask(path)] ?? [];
}
