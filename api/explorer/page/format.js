/**
 * Times as the explorer shows them: every answer's timestamps to Unix seconds (the charts'
 * x axis), to UTC text (the tables), and ages ("12 s ago").
 *
 * @module
 */

/**
 * Unix seconds of an answer's timestamp: microseconds since the epoch (invocation stats,
 * logs) or a UTC datetime without a zone (API counts, `2026-11-24T18:00:00`).
 *
 * @param {number | string} timestamp
 * @returns {number}
 */
export function unixSeconds(timestamp) {
  if (typeof timestamp === 'number') return timestamp / 1e6;
  const zoned = /[zZ]|[+-]\d\d:?\d\d$/.test(timestamp) ? timestamp : `${timestamp}Z`;
  return Date.parse(zoned) / 1000;
}

/**
 * UTC text of Unix seconds, to the second: `2026-11-24 18:00:00`.
 *
 * @param {number} seconds
 * @returns {string}
 */
export function utcText(seconds) {
  return new Date(seconds * 1000).toISOString().replace('T', ' ').replace(/\.\d+Z$/, '');
}

/**
 * How long ago `seconds` was, from `nowSeconds`: `4 s ago`, `3 min ago`, `2 h ago`, `5 d ago`.
 *
 * @param {number} seconds
 * @param {number} nowSeconds
 * @returns {string}
 */
export function age(seconds, nowSeconds) {
  const elapsed = Math.max(0, Math.round(nowSeconds - seconds));
  if (elapsed < 120) return `${elapsed} s ago`;
  if (elapsed < 7200) return `${Math.round(elapsed / 60)} min ago`;
  if (elapsed < 172_800) return `${Math.round(elapsed / 3600)} h ago`;
  return `${Math.round(elapsed / 86_400)} d ago`;
}
