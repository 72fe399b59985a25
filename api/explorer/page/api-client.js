/**
 * The explorer's calls to the API: the key kept in this tab's sessionStorage and sent as the
 * `X-API-KEY` header (never in a URL), answers read as JSON, the API's error envelope turned
 * into an error whose message is the API's own. A view is followed live: its answer's stream
 * (`Accept: text/event-stream`) read through `fetch`, which, unlike `EventSource`, sends the key
 * in a header.
 *
 * @module
 */

const KEY_ITEM = 'streaming-endpoints.api-key';

/** The key typed in this tab, or null. */
export function storedKey() {
  return sessionStorage.getItem(KEY_ITEM);
}

/** Keeps `key` for this tab. @param {string} key */
export function storeKey(key) {
  sessionStorage.setItem(KEY_ITEM, key);
}

/** Forgets the key. */
export function forgetKey() {
  sessionStorage.removeItem(KEY_ITEM);
}

/** A failed call: the HTTP status (0: no answer) and the API's message. */
export class ApiError extends Error {
  /** @param {number} status @param {string} message */
  constructor(status, message) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
  }
}

/**
 * GETs `path` of this origin with the stored key; resolves with the parsed JSON body.
 *
 * @param {string} path
 * @param {AbortSignal} [signal]
 * @returns {Promise<unknown>}
 */
export async function getJson(path, signal) {
  const key = storedKey();
  if (key === null) throw new ApiError(401, 'no API key');
  let response;
  try {
    response = await fetch(path, {
      headers: { 'X-API-KEY': key, Accept: 'application/json' },
      cache: 'no-store',
      signal,
    });
  } catch (error) {
    if (signal?.aborted) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    throw new ApiError(0, `the service did not answer (${reason})`);
  }
  const text = await response.text();
  /** @type {unknown} */
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ApiError(response.status, `HTTP ${response.status}: the answer is not JSON`);
  }
  if (!response.ok) {
    throw new ApiError(response.status, envelopeMessage(body) ?? `HTTP ${response.status}`);
  }
  return body;
}

/**
 * Follows the live answer of `path`: calls `onAnswer` with each answer the stream sends (the
 * first is the answer now); resolves when the stream ends, rejects with an {@link ApiError} when
 * the API refuses it.
 *
 * @param {string} path
 * @param {AbortSignal} signal
 * @param {(answer: unknown) => void} onAnswer
 * @returns {Promise<void>}
 */
export async function followJson(path, signal, onAnswer) {
  const key = storedKey();
  if (key === null) throw new ApiError(401, 'no API key');
  const response = await fetch(path, {
    headers: { 'X-API-KEY': key, Accept: 'text/event-stream' },
    cache: 'no-store',
    signal,
  });
  if (!response.ok || response.body === null) {
    const text = await response.text();
    let message;
    try {
      message = envelopeMessage(JSON.parse(text));
    } catch {
      message = undefined;
    }
    throw new ApiError(response.status, message ?? `HTTP ${response.status}`);
  }
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    text += value;
    let end = text.indexOf('\n\n');
    while (end >= 0) {
      const data = text.slice(0, end).split('\n').filter((line) => line.startsWith('data: '))
        .map((line) => line.slice(6)).join('\n');
      text = text.slice(end + 2);
      end = text.indexOf('\n\n');
      // A heartbeat is a comment: no data.
      if (data !== '') onAnswer(JSON.parse(data));
    }
  }
}

/**
 * The property `name` of `value` when it is an object (undefined otherwise).
 *
 * @param {unknown} value
 * @param {string} name
 * @returns {unknown}
 */
function field(value, name) {
  return typeof value === 'object' && value !== null ? Reflect.get(value, name) : undefined;
}

/**
 * The message of the API's error envelope, `{"error": {"code": ..., "message": ...}}`.
 *
 * @param {unknown} body
 * @returns {string | undefined}
 */
function envelopeMessage(body) {
  const message = field(field(body, 'error'), 'message');
  return typeof message === 'string' ? message : undefined;
}

/**
 * The `result` rows of an endpoint's answer.
 *
 * @param {unknown} body
 * @returns {import('./views.js').Row[]}
 */
export function resultRows(body) {
  const result = field(body, 'result');
  if (!Array.isArray(result)) throw new ApiError(200, 'the answer has no result rows');
  return result;
}

/**
 * The projects of `/api/explorer/projects`' answer, newest first.
 *
 * @param {unknown} body
 * @returns {{ project: string, newest_request_us: number }[]}
 */
export function projectRows(body) {
  const projects = field(body, 'projects');
  if (!Array.isArray(projects)) throw new ApiError(200, 'the answer has no projects');
  return projects;
}
