/**
 * What the explorer can ask for: the three endpoints with the parameters each one takes, the
 * request a set of choices stands for, and that request as a curl command. The state of a view
 * lives in the page's URL fragment (`#endpoint=...&project=...`), so a view can be bookmarked
 * and shared; the key never does.
 *
 * @module
 */

/**
 * The choices of one view (every field, whether its endpoint takes it or not).
 * @typedef {{ endpoint: EndpointName, project: string, interval: string, function_id: string, project_tier: string }} View
 */

/** @typedef {'functions.invocation-stats' | 'usage.api-counts' | 'logs.all'} EndpointName */

/** One row of an answer's `result`, as parsed from its JSON. @typedef {Record<string, unknown>} Row */

/** @typedef {'project' | 'interval' | 'function_id' | 'project_tier'} ParameterName */

/**
 * The endpoints, their parameters and the values the page offers.
 * @type {Readonly<Record<EndpointName, { params: ParameterName[], intervals: string[], defaultInterval: string }>>}
 */
export const ENDPOINTS = {
  'functions.invocation-stats': {
    params: ['project', 'interval', 'function_id'],
    intervals: ['5min', '15min', '1hr', '1day', '7day'],
    defaultInterval: '1hr',
  },
  'usage.api-counts': {
    params: ['project', 'interval'],
    intervals: ['minutely', 'hourly', 'daily', '1hr', '1day', '7day'],
    defaultInterval: 'hourly',
  },
  'logs.all': {
    params: ['project', 'project_tier'],
    intervals: [],
    defaultInterval: '',
  },
};

/** The tiers `logs.all` knows. */
export const TIERS = ['FREE', 'PRO', 'PAYG', 'ENTERPRISE'];

/**
 * The first endpoint, shown when the fragment names none.
 * @type {EndpointName}
 */
export const DEFAULT_ENDPOINT = 'functions.invocation-stats';

/**
 * Whether `name` is one of the endpoints.
 *
 * @param {string} name
 * @returns {name is EndpointName}
 */
export function isEndpointName(name) {
  return Object.hasOwn(ENDPOINTS, name);
}

/**
 * A view's choices from a URL fragment, with defaults for what is missing or unknown.
 *
 * @param {string} hash `location.hash`
 * @returns {View}
 */
export function viewFromHash(hash) {
  const fields = new URLSearchParams(hash.replace(/^#/, ''));
  const named = fields.get('endpoint') ?? '';
  const endpoint = isEndpointName(named) ? named : DEFAULT_ENDPOINT;
  const { intervals, defaultInterval } = ENDPOINTS[endpoint];
  const interval = fields.get('interval') ?? '';
  const tier = fields.get('project_tier') ?? '';
  return {
    endpoint,
    project: fields.get('project') ?? '',
    interval: intervals.includes(interval) ? interval : defaultInterval,
    function_id: fields.get('function_id') ?? '',
    project_tier: TIERS.includes(tier) ? tier : 'PRO',
  };
}

/**
 * The URL fragment of a view (what it takes, nothing else).
 *
 * @param {View} view
 * @returns {string}
 */
export function hashOf(view) {
  const fields = new URLSearchParams({ endpoint: view.endpoint });
  for (const [name, value] of Object.entries(queryOf(view))) fields.set(name, value);
  return `#${fields}`;
}

/**
 * The query parameters a view sends: the endpoint's own, empty optional ones left out.
 *
 * @param {View} view
 * @returns {Record<string, string>}
 */
export function queryOf(view) {
  /** @type {Record<string, string>} */
  const query = {};
  for (const name of ENDPOINTS[view.endpoint].params) {
    const value = view[name];
    if (value !== '' || name === 'project') query[name] = value;
  }
  return query;
}

/**
 * The request path of a view, e.g. `/api/endpoints/logs.all?project=...&project_tier=PRO`.
 *
 * @param {View} view
 * @returns {string}
 */
export function requestPath(view) {
  return `/api/endpoints/${view.endpoint}?${new URLSearchParams(queryOf(view))}`;
}

/**
 * The request as a curl command for a POSIX shell, the key read from `$API_KEY`.
 *
 * @param {string} origin e.g. `http://127.0.0.1:8080`
 * @param {string} path from {@link requestPath}
 * @returns {string}
 */
export function curlCommand(origin, path) {
  const url = `${origin}${path}`;
  return `curl -H "X-API-KEY: $API_KEY" '${url.replaceAll("'", `'\\''`)}'`;
}
