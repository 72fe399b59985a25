/**
 * The explorer page: asks for the key once, then shows the chosen endpoint's answer as charts
 * and tables, with the request as a curl command, and asks again every 5 seconds. The view's
 * choices live in the URL fragment; the key in this tab's sessionStorage only.
 *
 * @module
 */
import {
  ApiError,
  followJson,
  forgetKey,
  getJson,
  projectRows,
  resultRows,
  storedKey,
  storeKey,
} from './api-client.js';
import { ChartSet } from './charts.js';
import { age, unixSeconds, utcText } from './format.js';
import { showTable, showTotals } from './tables.js';
import {
  curlCommand,
  DEFAULT_ENDPOINT,
  ENDPOINTS,
  hashOf,
  isEndpointName,
  requestPath,
  TIERS,
  viewFromHash,
} from './views.js';

/** @typedef {import('./views.js').View} View */
/** @typedef {import('./views.js').Row} Row */

/** How often a view that is not followed live (its stream ended or failed) tries again. */
const RETRY_MS = 5_000;

/**
 * The element `id` of the page, of the kind it must be.
 *
 * @template {HTMLElement} T
 * @param {string} id
 * @param {new () => T} kind
 * @returns {T}
 */
function byId(id, kind) {
  const node = document.getElementById(id);
  if (!(node instanceof kind)) throw new Error(`the page has no ${kind.name} #${id}`);
  return node;
}

const page = {
  status: byId('status', HTMLElement),
  keyForm: byId('key-form', HTMLFormElement),
  key: byId('key', HTMLInputElement),
  keyError: byId('key-error', HTMLElement),
  explorer: byId('explorer', HTMLElement),
  query: byId('query', HTMLFormElement),
  endpoint: byId('endpoint', HTMLSelectElement),
  project: byId('project', HTMLInputElement),
  projects: byId('project-list', HTMLDataListElement),
  interval: byId('interval', HTMLSelectElement),
  functionId: byId('function-id', HTMLInputElement),
  tier: byId('tier', HTMLSelectElement),
  autoRefresh: byId('auto-refresh', HTMLInputElement),
  view: byId('view', HTMLElement),
  title: byId('view-title', HTMLElement),
  freshness: byId('freshness', HTMLElement),
  error: byId('view-error', HTMLElement),
  summary: byId('summary', HTMLElement),
  tables: byId('tables', HTMLElement),
  curl: byId('curl', HTMLTextAreaElement),
  copy: byId('copy-curl', HTMLButtonElement),
  forget: byId('forget-key', HTMLButtonElement),
};

const charts = new ChartSet(byId('charts', HTMLElement));
/**
 * The newest request time of each project seen (µs), from the projects route.
 * @type {Map<string, number>}
 */
let newestByProject = new Map();
/**
 * The request in flight (cancelled when one for another view starts) and its path.
 * @type {AbortController | null}
 */
let inFlight = null;
let inFlightPath = '';
/**
 * The live stream of the view shown (its answers as they change), and its path.
 * @type {AbortController | null}
 */
let live = null;
let livePath = '';

/** @param {HTMLSelectElement} select @param {readonly string[]} values */
function options(select, values) {
  select.replaceChildren(...values.map((value) => new Option(value, value)));
}

/** Shows the form fields of `view`'s endpoint with its values. @param {View} view */
function showChoices(view) {
  page.endpoint.value = view.endpoint;
  options(page.interval, ENDPOINTS[view.endpoint].intervals);
  page.interval.value = view.interval;
  page.project.value = view.project;
  page.functionId.value = view.function_id;
  page.tier.value = view.project_tier;
  for (const field of page.query.querySelectorAll('[data-for]')) {
    if (!(field instanceof HTMLElement)) continue;
    field.hidden = !(field.dataset['for'] ?? '').split(' ').includes(view.endpoint);
  }
}

/** The view the form describes. @returns {View} */
function chosenView() {
  const endpoint = isEndpointName(page.endpoint.value) ? page.endpoint.value : DEFAULT_ENDPOINT;
  const { intervals, defaultInterval } = ENDPOINTS[endpoint];
  return viewFromHash(hashOf({
    endpoint,
    project: page.project.value.trim(),
    interval: intervals.includes(page.interval.value) ? page.interval.value : defaultInterval,
    function_id: page.functionId.value.trim(),
    project_tier: page.tier.value,
  }));
}

/** @param {string} text */
function setStatus(text) {
  page.status.textContent = text;
}

/** @param {unknown} error */
function messageOf(error) {
  return error instanceof Error ? error.message : String(error);
}

/** @param {string} message */
function askForKey(message) {
  charts.clear();
  page.explorer.hidden = true;
  page.keyForm.hidden = false;
  page.keyError.textContent = message;
  page.key.focus();
  setStatus('Waiting for an API key');
}

/** A refused key is forgotten and asked for again. @param {unknown} error */
function refusedKey(error) {
  if (!(error instanceof ApiError && error.status === 401)) return false;
  forgetKey();
  askForKey(`The service refused the key: ${error.message}`);
  return true;
}

/**
 * Reads the projects the store has seen: the suggestions and each one's newest event.
 *
 * @param {AbortSignal} [signal]
 */
async function loadProjects(signal) {
  const projects = projectRows(await getJson('/api/explorer/projects', signal));
  newestByProject = new Map(projects.map((seen) => [seen.project, seen.newest_request_us]));
  page.projects.replaceChildren(...projects.map((seen) => new Option(seen.project)));
  return projects;
}

/**
 * How old the newest event is, as of the answer.
 *
 * @param {View} view
 * @param {readonly Row[]} rows
 * @param {number} nowSeconds
 */
function showFreshness(view, rows, nowSeconds) {
  const parts = [`Answered at ${utcText(nowSeconds)} UTC`];
  const newestUs = newestByProject.get(view.project);
  if (newestUs !== undefined) {
    parts.push(`newest request of this project ${age(newestUs / 1e6, nowSeconds)}`);
  }
  const newest = rows[0]?.['timestamp'];
  if (view.endpoint === 'logs.all' && (typeof newest === 'number')) {
    parts.push(`newest entry below ${age(unixSeconds(newest), nowSeconds)}`);
  }
  page.freshness.textContent = `${parts.join('; ')}.`;
}

/**
 * Shows the rows of `view`'s answer.
 *
 * @param {View} view
 * @param {string} path
 * @param {readonly Row[]} rows
 */
function show(view, path, rows) {
  page.error.textContent = '';
  showTotals(page.summary, view.endpoint, rows);
  charts.draw(view.endpoint, rows);
  showTable(page.tables, view.endpoint, rows);
  showFreshness(view, rows, Date.now() / 1000);
  // Which request the view shows, and how many answers it has shown: for tests and scripts.
  page.view.dataset['request'] = path;
  page.view.dataset['renders'] = String(Number(page.view.dataset['renders'] ?? 0) + 1);
  setStatus(`Updated ${utcText(Date.now() / 1000)} UTC: ${rows.length} rows`);
}

/**
 * Follows `view`'s answer live while "Live updates" is on: each new answer is shown as the API
 * pushes it. A stream that ends or fails is opened again by the retry timer.
 *
 * @param {View} view
 * @param {string} path
 */
function follow(view, path) {
  if (!page.autoRefresh.checked || (live !== null && livePath === path)) return;
  unfollow();
  const controller = new AbortController();
  live = controller;
  livePath = path;
  page.view.dataset['live'] = 'open';
  followJson(path, controller.signal, (answer) => {
    if (live === controller) show(view, path, resultRows(answer));
  }).catch((error) => {
    if (controller.signal.aborted || refusedKey(error)) return;
    page.error.textContent = messageOf(error);
  }).finally(() => {
    if (live !== controller) return;
    live = null;
    livePath = '';
    page.view.dataset['live'] = 'closed';
  });
}

/** Stops following the view live. */
function unfollow() {
  live?.abort();
  live = null;
  livePath = '';
  page.view.dataset['live'] = 'closed';
}

/** Asks for the current view, shows the answer, and follows it live. */
async function refresh() {
  const view = chosenView();
  const path = requestPath(view);
  // The same request already asked (a field's change, then the Show button): its answer will do.
  if (inFlight !== null && inFlightPath === path) return;
  inFlight?.abort();
  // Another view's stream must not show its answers here.
  if (livePath !== path) unfollow();
  const controller = new AbortController();
  inFlight = controller;
  inFlightPath = path;
  page.title.textContent = view.endpoint;
  page.curl.value = curlCommand(location.origin, path);
  if (view.project === '') {
    page.error.textContent = 'Choose a project: type a project ref or pick a suggestion.';
    inFlight = null;
    return;
  }
  setStatus('Loading…');
  page.view.setAttribute('aria-busy', 'true');
  try {
    const [answer] = await Promise.all([
      getJson(path, controller.signal),
      loadProjects(controller.signal),
    ]);
    show(view, path, resultRows(answer));
    follow(view, path);
  } catch (error) {
    if (controller.signal.aborted || refusedKey(error)) return;
    page.error.textContent = messageOf(error);
    setStatus('The last request failed');
  } finally {
    if (inFlight === controller) {
      inFlight = null;
      page.view.setAttribute('aria-busy', 'false');
    }
  }
}

/** Puts the form's choices in the URL fragment and shows them. */
function choose() {
  const view = chosenView();
  history.replaceState(null, '', hashOf(view));
  showChoices(view);
  void refresh();
}

/** Shows the explorer for the view of the URL fragment (the newest project when it has none). */
async function start() {
  page.keyForm.hidden = true;
  page.explorer.hidden = false;
  const view = viewFromHash(location.hash);
  if (view.project === '') {
    try {
      const [newest] = await loadProjects();
      if (newest !== undefined) view.project = newest.project;
    } catch (error) {
      if (refusedKey(error)) return;
      page.error.textContent = messageOf(error);
    }
  }
  showChoices(view);
  history.replaceState(null, '', hashOf(view));
  await refresh();
}

function wire() {
  options(page.tier, TIERS);
  page.keyForm.addEventListener('submit', (event) => {
    event.preventDefault();
    const key = page.key.value.trim();
    if (key === '') return;
    storeKey(key);
    page.key.value = '';
    page.keyError.textContent = '';
    void start();
  });
  page.query.addEventListener('submit', (event) => {
    event.preventDefault();
    choose();
  });
  for (const field of [page.endpoint, page.interval, page.tier, page.project, page.functionId]) {
    field.addEventListener('change', choose);
  }
  globalThis.addEventListener('hashchange', () => {
    showChoices(viewFromHash(location.hash));
    void refresh();
  });
  page.copy.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(page.curl.value);
      setStatus('The curl command is copied');
    } catch {
      page.curl.select();
      setStatus('Select the command and copy it (the clipboard is not available here)');
    }
  });
  page.forget.addEventListener('click', () => {
    forgetKey();
    askForKey('');
  });
  page.autoRefresh.addEventListener('change', () => {
    if (page.autoRefresh.checked) void refresh();
    else unfollow();
  });
  setInterval(() => {
    const idle = live === null && !page.explorer.hidden && !document.hidden;
    if (page.autoRefresh.checked && idle) void refresh();
  }, RETRY_MS);
}

wire();
if (storedKey() === null) askForKey('');
else void start();
