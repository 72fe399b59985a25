/**
 * The explorer's tables and figures: every number of an answer as text, exactly as the API
 * sent it (the charts' accessible twin), totals above the charts, and the rows of `logs.all`
 * with their metadata folded under each message. Everything is set as text, never as HTML:
 * log messages are the producers' and may hold anything.
 *
 * @module
 */
import { FAMILIES, TIMES } from './charts.js';
import { unixSeconds, utcText } from './format.js';

/** @typedef {import('./views.js').Row} Row */
/** @typedef {import('./views.js').EndpointName} EndpointName */
/** @typedef {{ label: string, cell: (row: Row) => string, numeric?: boolean }} Column */

/**
 * An element with text and attributes.
 *
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} name
 * @param {string} [text]
 * @param {Record<string, string>} [attributes]
 * @returns {HTMLElementTagNameMap[K]}
 */
function element(name, text = '', attributes = {}) {
  const node = document.createElement(name);
  node.textContent = text;
  for (const [attribute, value] of Object.entries(attributes)) node.setAttribute(attribute, value);
  return node;
}

/** A value as the answer holds it (JavaScript prints numbers as JSON does). @param {unknown} value */
function valueText(value) {
  return value === null || value === undefined ? '' : String(value);
}

/**
 * A scrollable, captioned table of `rows` with one column per `columns` entry.
 *
 * @param {string} caption
 * @param {Column[]} columns
 * @param {readonly Row[]} rows
 */
function table(caption, columns, rows) {
  const wrapper = element('div', '', {
    class: 'table-wrap',
    tabindex: '0',
    role: 'region',
    'aria-label': caption,
  });
  const node = element('table');
  node.append(element('caption', caption));
  const head = element('tr');
  for (const column of columns) head.append(element('th', column.label, { scope: 'col' }));
  node.createTHead().append(head);
  const body = node.createTBody();
  for (const row of rows) {
    const line = element('tr');
    for (const column of columns) {
      line.append(element('td', column.cell(row), column.numeric ? { class: 'num' } : {}));
    }
    body.append(line);
  }
  wrapper.append(node);
  return wrapper;
}

/** @type {Column} */
const TIME_COLUMN = {
  label: 'time (UTC)',
  cell: (row) => utcText(unixSeconds(/** @type {number | string} */ (row['timestamp']))),
};

/** @param {string} label @param {string} field @returns {Column} */
function numeric(label, field) {
  return { label, numeric: true, cell: (row) => valueText(row[field]) };
}

/** @param {readonly Row[]} rows @param {string} field */
function sum(rows, field) {
  return rows.reduce((total, row) => total + Number(row[field] ?? 0), 0);
}

/**
 * Totals of an answer as `[label, value]` pairs.
 *
 * @param {EndpointName} endpoint
 * @param {readonly Row[]} rows
 * @returns {[string, string][]}
 */
function totals(endpoint, rows) {
  switch (endpoint) {
    case 'functions.invocation-stats':
      return [
        ['invocations', String(sum(rows, 'count'))],
        ['errors', String(sum(rows, 'error_count'))],
        ['buckets', String(rows.length)],
      ];
    case 'usage.api-counts':
      return [
        ...FAMILIES.map(({ label, field }) => /** @type {[string, string]} */ ([
          label,
          String(sum(rows, field)),
        ])),
        ['buckets', String(rows.length)],
      ];
    default:
      return [['entries', String(rows.length)]];
  }
}

/**
 * Fills `summary` (a `<dl>`) with the totals of an answer.
 *
 * @param {HTMLElement} summary
 * @param {EndpointName} endpoint
 * @param {readonly Row[]} rows
 */
export function showTotals(summary, endpoint, rows) {
  summary.replaceChildren();
  for (const [label, value] of totals(endpoint, rows)) {
    const item = element('div');
    item.append(element('dt', label), element('dd', value));
    summary.append(item);
  }
}

/**
 * The logs table: each entry's message opens onto its id and metadata. Entries a reader
 * opened (by id) stay open.
 *
 * @param {readonly Row[]} rows
 * @param {ReadonlySet<string>} open
 */
function logsTable(rows, open) {
  const wrapper = table('The newest log entries, newest first (open one for its metadata)', [
    TIME_COLUMN,
    { label: 'message', cell: () => '' },
  ], rows);
  const cells = wrapper.querySelectorAll('tbody td:last-child');
  rows.forEach((row, index) => {
    const id = valueText(row['id']);
    const details = element('details', '', { 'data-id': id });
    details.append(
      element('summary', valueText(row['event_message'])),
      element('pre', JSON.stringify({ id: row['id'], metadata: row['metadata'] }, null, 2)),
    );
    details.open = open.has(id);
    cells[index]?.append(details);
  });
  return wrapper;
}

/**
 * Fills `parent` with the table of an answer's rows.
 *
 * @param {HTMLElement} parent
 * @param {EndpointName} endpoint
 * @param {readonly Row[]} rows
 */
export function showTable(parent, endpoint, rows) {
  const open = new Set(
    [...parent.querySelectorAll('details[open]')].map((node) => node.getAttribute('data-id') ?? ''),
  );
  parent.replaceChildren();
  if (endpoint === 'functions.invocation-stats') {
    parent.append(table('Every bucket of the answer', [
      TIME_COLUMN,
      numeric('invocations', 'count'),
      numeric('errors', 'error_count'),
      ...TIMES.map(({ label, field }) => numeric(`${label} ms`, field)),
    ], rows));
  } else if (endpoint === 'usage.api-counts') {
    parent.append(table('Every bucket of the answer', [
      TIME_COLUMN,
      ...FAMILIES.map(({ label, field }) => numeric(label, field)),
    ], rows));
  } else {
    parent.append(logsTable(rows, open));
  }
}
