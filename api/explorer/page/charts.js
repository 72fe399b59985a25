/**
 * The explorer's charts, drawn with uPlot (loaded before this module as the global `uPlot`):
 * invocation counts and errors as bars, execution times (min, avg, p95, p99, max) as lines on
 * a log scale, API requests per family as stacked bars. Times on the x axis are UTC. A chart
 * set keeps its charts and only replaces their data when the same endpoint is drawn again, so
 * a refresh does not flicker.
 *
 * @module
 */
import { unixSeconds } from './format.js';

/** @typedef {import('./views.js').Row} Row */
/** @typedef {import('./views.js').EndpointName} EndpointName */
/** @typedef {import('uplot')} UPlot */
/** @typedef {import('uplot').Options} Options */
/** @typedef {import('uplot').AlignedData} AlignedData */
/** @typedef {import('uplot').Axis} Axis */

/**
 * A drawn chart and how it turns rows into its data.
 * @typedef {{ plot: UPlot, data: (rows: readonly Row[]) => AlignedData }} Drawn
 */

const HEIGHT = 220;

/** The families of `usage.api-counts`, bottom of the stack first. */
export const FAMILIES = [
  { field: 'total_rest_requests', label: 'REST', color: '#2b6cb0' },
  { field: 'total_auth_requests', label: 'Auth', color: '#2f855a' },
  { field: 'total_storage_requests', label: 'Storage', color: '#b7791f' },
  { field: 'total_realtime_requests', label: 'Realtime', color: '#805ad5' },
];

/** The execution-time lines of `functions.invocation-stats`. */
export const TIMES = [
  { field: 'min_execution_time', label: 'min', color: '#718096' },
  { field: 'avg_execution_time', label: 'avg', color: '#2b6cb0' },
  { field: 'p95_execution_time', label: 'p95', color: '#b7791f' },
  // Dashed: with few invocations in a bucket, p99 is the max, and a solid line would hide.
  { field: 'p99_execution_time', label: 'p99', color: '#c05621', dash: [6, 4] },
  { field: 'max_execution_time', label: 'max', color: '#c53030' },
];

/** The chart library, loaded by its own script tag before this module. */
function uplot() {
  /** @type {typeof import('uplot') | undefined} */
  const library = Reflect.get(globalThis, 'uPlot');
  if (library === undefined) throw new Error('the chart library did not load');
  return library;
}

/** @param {number} seconds */
function utcDate(seconds) {
  return uplot().tzDate(new Date(seconds * 1000), 'Etc/UTC');
}

/**
 * The x axis in UTC, 24-hour: seconds, minutes or dates, by the distance between ticks.
 * @type {Axis}
 */
const TIME_AXIS = {
  label: 'time (UTC)',
  space: 80,
  values: (_u, splits) => {
    const step = splits.length > 1 ? (splits[1] ?? 0) - (splits[0] ?? 0) : 3600;
    return splits.map((seconds) => {
      const iso = new Date(seconds * 1000).toISOString();
      if (step < 60) return iso.slice(11, 19);
      if (step < 86_400) return iso.slice(11, 16);
      return iso.slice(5, 10);
    });
  },
};

const NO_POINTS = { show: false };

/**
 * Counts start at 0, so a bar's height is its count (left to itself, the scale would start near
 * the smallest value).
 * @type {import('uplot').Scale}
 */
const COUNT_SCALE = { range: (_u, _min, max) => [0, max > 0 ? max * 1.05 : 1] };

/** Bars `size` of the bucket's width wide. @param {number} size */
function bars(size) {
  const draw = uplot().paths.bars;
  if (draw === undefined) throw new Error('the chart library has no bar paths');
  return draw({ size: [size, 60], align: 0 });
}

/** A number as the legend shows it, rounded to 3 decimals. @param {number | null} value */
function legendNumber(value) {
  return value === null ? '–' : String(Math.round(value * 1000) / 1000);
}

/**
 * One chart in `parent` with a title (also its accessible name).
 *
 * @param {HTMLElement} parent
 * @param {string} title
 * @param {Omit<Options, 'width' | 'height' | 'title'>} options
 * @param {AlignedData} data
 */
function chart(parent, title, options, data) {
  const figure = document.createElement('figure');
  figure.className = 'chart';
  figure.setAttribute('role', 'img');
  figure.setAttribute('aria-label', `${title} (the table below holds the same numbers)`);
  parent.append(figure);
  const width = Math.max(280, parent.clientWidth);
  const UPlot = uplot();
  return new UPlot({ ...options, title, width, height: HEIGHT, tzDate: utcDate }, data, figure);
}

/** @param {unknown} value */
function numberOrNull(value) {
  return typeof value === 'number' ? value : null;
}

/** A log scale has no place for 0 or below: such a point is left out. @param {unknown} value */
function positiveOrNull(value) {
  return typeof value === 'number' && value > 0 ? value : null;
}

/** @param {readonly Row[]} rows */
function timesOf(rows) {
  return rows.map((row) => unixSeconds(/** @type {number | string} */ (row['timestamp'])));
}

/** @param {readonly Row[]} rows @returns {AlignedData} */
function countData(rows) {
  return [
    timesOf(rows),
    rows.map((row) => numberOrNull(row['count'])),
    rows.map((row) => numberOrNull(row['error_count'])),
  ];
}

/** @param {readonly Row[]} rows @returns {AlignedData} */
function timeData(rows) {
  return [
    timesOf(rows),
    ...TIMES.map(({ field }) => rows.map((row) => positiveOrNull(row[field]))),
  ];
}

/**
 * Charts of `functions.invocation-stats` rows in `parent`.
 *
 * @param {HTMLElement} parent
 * @param {readonly Row[]} rows
 * @returns {Drawn[]}
 */
function invocationCharts(parent, rows) {
  const counts = chart(parent, 'Invocations and errors', {
    scales: { x: { time: true }, y: COUNT_SCALE },
    series: [
      {},
      {
        label: 'invocations',
        stroke: '#2b6cb0',
        fill: '#2b6cb066',
        paths: bars(0.8),
        points: NO_POINTS,
      },
      {
        label: 'errors',
        stroke: '#c53030',
        fill: '#c53030aa',
        paths: bars(0.4),
        points: NO_POINTS,
      },
    ],
    axes: [TIME_AXIS, { label: 'count', size: 60 }],
  }, countData(rows));
  const times = chart(parent, 'Execution time (ms, log scale)', {
    scales: { x: { time: true }, y: { distr: 3 } },
    series: [
      {},
      ...TIMES.map(({ label, color, dash }) => ({
        label,
        stroke: color,
        ...(dash === undefined ? {} : { dash }),
        width: 2,
        spanGaps: false,
        // Always drawn: a bucket between two empty ones has no line to show it by.
        points: { show: true, size: 4 },
        /** @type {(u: UPlot, value: number | null) => string} */
        value: (_u, value) => legendNumber(value),
      })),
    ],
    axes: [TIME_AXIS, { label: 'ms', size: 60 }],
  }, timeData(rows));
  return [{ plot: counts, data: countData }, { plot: times, data: timeData }];
}

/**
 * The stacked data of `usage.api-counts` rows: each family's bar reaches the sum of it and
 * those below, top of the stack first (drawn first, so the lower ones cover it), with each
 * family's own counts for the legend.
 *
 * @param {readonly Row[]} rows
 */
function usageData(rows) {
  const own = FAMILIES.map(({ field }) => rows.map((row) => numberOrNull(row[field]) ?? 0));
  /** @type {number[][]} */
  const stacked = [];
  own.forEach((values, family) => {
    const below = stacked[family - 1];
    stacked.push(values.map((value, i) => value + (below?.[i] ?? 0)));
  });
  /** @type {AlignedData} */
  const plotted = [timesOf(rows), ...stacked.toReversed()];
  return { plotted, own: own.toReversed() };
}

/**
 * The stacked chart of `usage.api-counts` rows in `parent`.
 *
 * @param {HTMLElement} parent
 * @param {readonly Row[]} rows
 * @returns {Drawn[]}
 */
function usageCharts(parent, rows) {
  let current = usageData(rows);
  const plot = chart(parent, 'API requests by family (stacked)', {
    scales: { x: { time: true }, y: COUNT_SCALE },
    series: [
      {},
      ...FAMILIES.toReversed().map(({ label, color }, index) => ({
        label,
        stroke: color,
        fill: color,
        paths: bars(0.8),
        points: NO_POINTS,
        // The legend shows the family's own count, not the height of its stack.
        /** @type {(u: UPlot, value: number | null, series: number, row: number | null) => string} */
        value: (_u, _value, _series, row) =>
          row === null ? '–' : String(current.own[index]?.[row] ?? ''),
      })),
    ],
    axes: [TIME_AXIS, { label: 'requests', size: 60 }],
  }, current.plotted);
  return [{
    plot,
    data: (next) => {
      current = usageData(next);
      return current.plotted;
    },
  }];
}

/** @type {Partial<Record<EndpointName, (parent: HTMLElement, rows: readonly Row[]) => Drawn[]>>} */
const BUILDERS = {
  'functions.invocation-stats': invocationCharts,
  'usage.api-counts': usageCharts,
};

/** The charts of one endpoint in one element, redrawn with each answer. */
export class ChartSet {
  /** @param {HTMLElement} parent */
  constructor(parent) {
    this.parent = parent;
    /** @type {EndpointName | null} */
    this.endpoint = null;
    /** @type {Drawn[]} */
    this.charts = [];
    globalThis.addEventListener('resize', () => this.#fit());
  }

  /**
   * Draws `rows` of `endpoint` (nothing for an endpoint without charts).
   *
   * @param {EndpointName} endpoint
   * @param {readonly Row[]} rows
   */
  draw(endpoint, rows) {
    if (endpoint === this.endpoint) {
      for (const { plot, data } of this.charts) plot.setData(data(rows));
      return;
    }
    this.clear();
    this.endpoint = endpoint;
    const build = BUILDERS[endpoint];
    if (build !== undefined) this.charts = build(this.parent, rows);
  }

  /** Removes every chart. */
  clear() {
    for (const { plot } of this.charts) plot.destroy();
    this.charts = [];
    this.endpoint = null;
    this.parent.replaceChildren();
  }

  #fit() {
    const width = Math.max(280, this.parent.clientWidth);
    for (const { plot } of this.charts) plot.setSize({ width, height: HEIGHT });
  }
}
