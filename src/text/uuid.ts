/**
 * The UUID form of endpoint ids (CONTRACT section 4), for configuration, routing and the OpenAPI document.
 *
 * @module
 */

/** A UUID in lower case, as a JSON Schema `pattern` (schemas match case-sensitively). */
export const UUID_PATTERN = '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$';

/**
 * A UUID in any letter case.
 *
 * @example
 * ```ts
 * UUID.test('9DA1CF56-A100-4D8B-8B7F-E5CEEC992FC3'); // true
 * UUID.test('logs.all'); // false
 * ```
 */
export const UUID: RegExp = new RegExp(UUID_PATTERN, 'i');
