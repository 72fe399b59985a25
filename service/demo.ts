/**
 * Demo traffic (`DEMO=1` or `--demo`): synthetic events from the generator fed through the
 * ingest sink, so a newcomer's endpoints show data at once. An hour of history is ingested at
 * start, then events arrive at a bounded rate as their timestamps come due.
 *
 * The generator spreads its events evenly over its span (event `i` of `n` falls before
 * `start + span * (i + 1) / n`), so one lazy generator covering the coming days yields the
 * live stream with constant memory.
 *
 * @module
 */
import type { Source } from '../src/events/types.ts';
import type { Logger } from '../src/logger.ts';
import { generateEvents } from '../src/synthetic/generator.ts';
import type { BodyItem } from '../api/ingest/body.ts';
import type { IngestSink } from '../api/ingest/sink.ts';
import { validateItems } from '../api/ingest/validate.ts';

/** Options of {@link startDemo}. */
export interface DemoOptions {
  readonly sink: IngestSink;
  /** The clock, in Unix microseconds. */
  readonly nowUs: () => number;
  readonly maxFutureSkewUs: number;
  readonly logger: Logger;
  /** Events per second. Default 10. */
  readonly ratePerSecond?: number;
  /** History ingested at start, in µs. Default one hour. */
  readonly backfillUs?: number;
  /** Projects of the synthetic world. Default 10. */
  readonly projects?: number;
  /** Generator seed. Default 1. */
  readonly seed?: number;
}

/** Running demo traffic. */
export interface Demo {
  /** The project with the most function invocations in the history: one worth querying. */
  readonly project: string;
  /** Stops feeding (waits for the batch in flight). */
  stop(): Promise<void>;
}

const HOUR_US = 3_600_000_000;
/** How far ahead one generator reaches; then the next seed takes over. */
const HORIZON_US = 7 * 24 * HOUR_US;
const TICK_MS = 250;
const BATCH = 5_000;

/**
 * Ingests the history, then keeps feeding until `stop`.
 *
 * @example
 * ```ts
 * const demo = await startDemo({ sink, nowUs: () => Date.now() * 1000, maxFutureSkewUs, logger });
 * console.log(`try project=${demo.project}`);
 * ```
 */
export async function startDemo(options: DemoOptions): Promise<Demo> {
  const rate = options.ratePerSecond ?? 10;
  const backfillUs = options.backfillUs ?? HOUR_US;
  const projects = options.projects ?? 10;
  let seed = options.seed ?? 1;

  const open = (startUs: number) => {
    const spanUs = backfillUs + HORIZON_US;
    const events = Math.round((rate * spanUs) / 1_000_000);
    return {
      startUs,
      spanUs,
      events,
      index: 0,
      lines: generateEvents({ seed, events, nowUs: startUs + spanUs, spanUs, projects }),
    };
  };
  let stream = open(options.nowUs() - backfillUs);
  const invocations = new Map<string, number>();

  /** Feeds every event that is due; resolves with how many were accepted. */
  const feed = async (): Promise<number> => {
    const nowUs = options.nowUs();
    const due: Record<Source, BodyItem[]> = { edge: [], 'function-edge': [] };
    let accepted = 0;
    const flush = async () => {
      for (const source of ['edge', 'function-edge'] as const) {
        const items = due[source];
        if (items.length === 0) continue;
        const validated = validateItems(items, source, {
          nowUs,
          maxFutureSkewUs: options.maxFutureSkewUs,
        });
        for (const { event } of validated.accepted) {
          if (event.source === 'function-edge') {
            invocations.set(event.project, (invocations.get(event.project) ?? 0) + 1);
          }
        }
        const { refused } = await options.sink.accept(source, validated.accepted);
        accepted += validated.accepted.length - refused.length;
        due[source] = [];
      }
    };
    let pending = 0;
    for (;;) {
      const dueBy = stream.startUs + (stream.spanUs * (stream.index + 1)) / stream.events;
      if (dueBy > nowUs) break;
      const next = stream.lines.next();
      if (next.done === true) {
        seed += 1;
        stream = open(nowUs);
        continue;
      }
      stream.index += 1;
      due[next.value.source].push({ line: stream.index, text: next.value.line });
      pending += 1;
      if (pending >= BATCH) {
        await flush();
        pending = 0;
      }
    }
    await flush();
    return accepted;
  };

  const history = await feed();
  const project = [...invocations].sort((a, b) => b[1] - a[1])[0]?.[0] ?? 'abcdefghijklmnopqrst';
  options.logger.info({ events: history, project }, 'demo: history ingested');

  let running: Promise<void> | null = null;
  const timer = setInterval(() => {
    // A slow store makes ticks wait their turn instead of piling up.
    running ??= feed().then(
      () => {
        running = null;
      },
      (error: unknown) => {
        running = null;
        options.logger.warn({ err: error }, 'demo: feeding failed; continuing at the next tick');
      },
    );
  }, TICK_MS);
  return {
    project,
    stop: async () => {
      clearInterval(timer);
      await running;
    },
  };
}
