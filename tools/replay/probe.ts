/**
 * The outside view of a load test: while a replay plays, a prober asks the three endpoints at a
 * fixed rate, as a client would, and publishes marker events (edge events of a project of their
 * own) whose arrival it watches through `logs.all`. At the end: latency per endpoint, errors by
 * status, and freshness (marker acknowledged by the broker -> visible through the API).
 *
 * @module
 */
import { nearestRank } from '../nearest-rank.ts';

/** The project the markers belong to (20 lowercase letters, as project refs are). */
export const MARKER_PROJECT = 'loadtestmarkerzzzzzz';

/** How long a marker may take to become visible before it counts as not seen, in ms. */
const MARKER_TIMEOUT_MS = 30_000;

/** Options of {@link Prober}. */
export interface ProbeOptions {
  /** The API's base URL, e.g. `http://127.0.0.1:8080`. */
  readonly apiUrl: string;
  /** Sent as `X-API-KEY`; never printed. */
  readonly apiKey: string;
  /** Endpoint requests per second, all three together. */
  readonly requestsPerSecond: number;
  /** Markers per second. */
  readonly markersPerSecond: number;
  /** The project the endpoints are asked about (one the stream holds), or the markers'. */
  readonly project: () => { edge: string; functionEdge: string };
  /** Publishes one marker line to the edge topic; resolves once the broker has it. */
  readonly publishMarker: (line: string) => Promise<void>;
  /** The clock, ms (`performance.now`). */
  readonly clockMs?: () => number;
  readonly fetch?: typeof fetch;
}

/** Figures of one endpoint. */
export interface EndpointFigures {
  readonly requests: number;
  readonly p50Ms: number | null;
  readonly p99Ms: number | null;
  /** Answers other than 200 by status, and `network` for requests that got no answer. */
  readonly errors: Record<string, number>;
}

/** What the prober saw. */
export interface ProbeReport {
  readonly endpoints: Record<string, EndpointFigures>;
  readonly freshness: {
    readonly markers: number;
    readonly seen: number;
    readonly p50Ms: number | null;
    readonly p99Ms: number | null;
  };
}

/** The nearest-rank quantile `q` of `values`, unsorted (null when empty). */
function quantileOf(values: readonly number[], q: number): number | null {
  return values.length === 0 ? null : nearestRank([...values].sort((a, b) => a - b), q);
}

const ENDPOINTS = ['functions.invocation-stats', 'logs.all', 'usage.api-counts'] as const;

/** Asks the endpoints and watches markers until {@link stop}. */
export class Prober {
  readonly #options: ProbeOptions;
  readonly #clock: () => number;
  readonly #fetch: typeof fetch;
  readonly #latencies = new Map<string, number[]>(ENDPOINTS.map((name) => [name, []]));
  readonly #errors = new Map<string, Record<string, number>>(ENDPOINTS.map((name) => [name, {}]));
  readonly #freshness: number[] = [];
  readonly #work = new Set<Promise<void>>();
  #markers = 0;
  /** Markers published since the start (their ids), never reset. */
  #sequence = 0;
  #timers: ReturnType<typeof setInterval>[] = [];

  constructor(options: ProbeOptions) {
    this.#options = options;
    this.#clock = options.clockMs ?? (() => performance.now());
    this.#fetch = options.fetch ?? fetch;
  }

  /** Starts asking and publishing markers. */
  start(): void {
    let next = 0;
    this.#timers.push(setInterval(() => {
      const name = ENDPOINTS[next++ % ENDPOINTS.length] ?? 'logs.all';
      this.#track(this.#ask(name));
    }, 1000 / this.#options.requestsPerSecond));
    this.#timers.push(setInterval(() => {
      this.#track(this.#marker());
    }, 1000 / this.#options.markersPerSecond));
  }

  /** Stops, waits for the requests and markers under way (markers at most their timeout). */
  async stop(): Promise<ProbeReport> {
    for (const timer of this.#timers) clearInterval(timer);
    await Promise.all(this.#work);
    return this.#figures();
  }

  /**
   * The figures since the last call (or the start), then starts counting afresh: a long run's
   * report by period. A marker counts where it was published; its freshness where it was seen.
   */
  interval(): ProbeReport {
    const figures = this.#figures();
    for (const latencies of this.#latencies.values()) latencies.length = 0;
    for (const name of ENDPOINTS) this.#errors.set(name, {});
    this.#freshness.length = 0;
    this.#markers = 0;
    return figures;
  }

  #figures(): ProbeReport {
    const endpoints: Record<string, EndpointFigures> = {};
    for (const name of ENDPOINTS) {
      const latencies = this.#latencies.get(name) ?? [];
      const errors = this.#errors.get(name) ?? {};
      endpoints[name] = {
        requests: latencies.length + Object.values(errors).reduce((sum, n) => sum + n, 0),
        p50Ms: round(quantileOf(latencies, 0.5)),
        p99Ms: round(quantileOf(latencies, 0.99)),
        errors: { ...errors },
      };
    }
    return {
      endpoints,
      freshness: {
        markers: this.#markers,
        seen: this.#freshness.length,
        p50Ms: round(quantileOf(this.#freshness, 0.5)),
        p99Ms: round(quantileOf(this.#freshness, 0.99)),
      },
    };
  }

  #track(work: Promise<void>): void {
    this.#work.add(work);
    void work.finally(() => this.#work.delete(work));
  }

  #query(name: (typeof ENDPOINTS)[number]): URLSearchParams {
    const projects = this.#options.project();
    if (name === 'functions.invocation-stats') {
      return new URLSearchParams({ project: projects.functionEdge, interval: '5min' });
    }
    if (name === 'usage.api-counts') {
      return new URLSearchParams({ project: projects.edge, interval: 'minutely' });
    }
    return new URLSearchParams({ project: projects.edge, project_tier: 'PRO' });
  }

  async #get(name: string, query: URLSearchParams): Promise<Response> {
    return await this.#fetch(
      `${this.#options.apiUrl}/api/endpoints/query/name/${name}?${query}`,
      { headers: { 'X-API-KEY': this.#options.apiKey } },
    );
  }

  async #ask(name: (typeof ENDPOINTS)[number]): Promise<void> {
    const started = this.#clock();
    try {
      const response = await this.#get(name, this.#query(name));
      await response.arrayBuffer();
      if (response.status === 200) this.#latencies.get(name)?.push(this.#clock() - started);
      else this.#error(name, String(response.status));
    } catch {
      this.#error(name, 'network');
    }
  }

  #error(name: string, status: string): void {
    const errors = this.#errors.get(name);
    if (errors !== undefined) errors[status] = (errors[status] ?? 0) + 1;
  }

  async #marker(): Promise<void> {
    this.#markers += 1;
    this.#sequence += 1;
    const id = `loadtest-marker-${Date.now()}-${this.#sequence}`;
    const line = JSON.stringify({
      id,
      timestamp: Date.now() * 1000,
      project: MARKER_PROJECT,
      event_message: 'load test marker',
      metadata: [],
    });
    try {
      await this.#options.publishMarker(line);
    } catch {
      return;
    }
    const published = this.#clock();
    const query = new URLSearchParams({ project: MARKER_PROJECT, project_tier: 'PRO' });
    while (this.#clock() - published < MARKER_TIMEOUT_MS) {
      try {
        const response = await this.#get('logs.all', query);
        const body = await response.json() as { result?: { id?: unknown }[] };
        if (body.result?.some((row) => row.id === id) === true) {
          this.#freshness.push(this.#clock() - published);
          return;
        }
      } catch {
        // Counted as not seen if it never is.
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

function round(value: number | null): number | null {
  return value === null ? null : Math.round(value * 10) / 10;
}
