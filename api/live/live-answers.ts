/**
 * Live answers: each watched answer (an endpoint with its parameters, as identical requests
 * share it) is computed again when a commit of its project is signalled (src/store/changes.ts),
 * once per coalescing window however many commits and streams, and when its window slides (at
 * its next bucket boundary: relative windows change with no event at all); the new answer goes to
 * every stream watching it whose last event differs. A feed that lost its connection, and so its
 * signals, has every answer computed again when it is back. A store without signals (Upstash)
 * has every answer computed again each coalescing window.
 *
 * @module
 */
import type { EndpointRecord } from '../../src/contract/registry.ts';
import type { Logger } from '../../src/logger.ts';
import { changesChannel } from '../../src/rollup/keys.ts';
import type { ChangeFeed } from '../../src/store/changes.ts';
import type { Answerer, Computed } from '../answer/answer.ts';
import { eventBytes, type EventStream } from './event-stream.ts';
import type { LiveMetrics } from './live-metrics.ts';

/** An answer as pushed: its body and entity tag. */
type Pushed = Extract<Computed, { ok: true }>;

/** What one watched answer is. */
export interface WatchedAnswer {
  /** The key identical requests share (`requestKey`, with the redaction). */
  readonly key: string;
  readonly record: EndpointRecord;
  readonly params: URLSearchParams;
  readonly redactPii: boolean;
  /** The project whose commits can change it; null: none (computed again each slide). */
  readonly project: string | null;
  /** Its window's step, in ms: it is computed again at each multiple of it. */
  readonly slideMs: number;
}

/** Options of {@link LiveAnswers}. */
export interface LiveAnswersOptions {
  readonly answer: Answerer;
  /** Where commits are signalled; null: nowhere (each answer is computed every `coalesceMs`). */
  readonly changes: ChangeFeed | null;
  readonly nowMs: () => number;
  readonly coalesceMs: number;
  readonly metrics: LiveMetrics;
  readonly logger: Logger;
  /**
   * Called before an answer is computed again for a signalled commit: what the answer reads
   * besides the commit's keys (the host registry) must be read afresh too.
   */
  readonly beforeSignalled?: (record: EndpointRecord) => void;
}

interface Watch {
  readonly answer: WatchedAnswer;
  readonly streams: Set<EventStream>;
  last: Pushed;
  /** When set, a computation is due at its end. */
  due: ReturnType<typeof setTimeout> | null;
  slide: ReturnType<typeof setTimeout> | null;
  computing: boolean;
  /** A signal came while computing: compute again after. */
  again: boolean;
  /** A signal came since the last computation started. */
  signalled: boolean;
  stop: Promise<() => Promise<void>> | null;
}

/** The watched answers of one API process and the streams that watch them. */
export class LiveAnswers {
  readonly #options: LiveAnswersOptions;
  readonly #watches = new Map<string, Watch>();

  constructor(options: LiveAnswersOptions) {
    this.#options = options;
    options.changes?.onReconnect(() => {
      for (const watch of this.#watches.values()) this.#signal(watch);
    });
  }

  /** Distinct answers watched now. */
  get watched(): number {
    return this.#watches.size;
  }

  /**
   * Adds `stream` to the watchers of `answer`, sending it `first` (the answer as a `GET` gets it
   * now); it leaves them when it ends ({@link leave}).
   */
  join(answer: WatchedAnswer, stream: EventStream, first: Pushed): void {
    let watch = this.#watches.get(answer.key);
    if (watch === undefined) {
      watch = {
        answer,
        streams: new Set(),
        last: first,
        due: null,
        slide: null,
        computing: false,
        again: false,
        signalled: false,
        stop: null,
      };
      this.#watches.set(answer.key, watch);
      this.#listen(watch);
      this.#scheduleSlide(watch);
    }
    watch.streams.add(stream);
    stream.send(first.body, first.etag);
    // An answer computed since `first` was read is newer: the stream gets it now.
    if (watch.last.etag !== first.etag) stream.send(watch.last.body, watch.last.etag);
  }

  /** Removes `stream` from the watchers of `key`; the last one out stops the watch. */
  leave(key: string, stream: EventStream): void {
    const watch = this.#watches.get(key);
    if (watch === undefined || !watch.streams.delete(stream) || watch.streams.size > 0) return;
    this.#watches.delete(key);
    this.#stopWatch(watch);
  }

  /** Stops every watch (the process stops); the streams are closed by their owner. */
  close(): void {
    for (const watch of this.#watches.values()) this.#stopWatch(watch);
    this.#watches.clear();
  }

  #listen(watch: Watch): void {
    const { changes, logger } = this.#options;
    const project = watch.answer.project;
    if (changes === null || project === null) return;
    watch.stop = changes.watch(changesChannel(project), () => this.#signal(watch));
    watch.stop.catch((error: unknown) => {
      // Its slides still refresh it; the next watch of the project tries again.
      logger.warn({ err: error }, 'a live answer could not subscribe to its changes');
      this.#options.metrics.countSubscribeFailure();
    });
  }

  #stopWatch(watch: Watch): void {
    if (watch.due !== null) clearTimeout(watch.due);
    if (watch.slide !== null) clearTimeout(watch.slide);
    watch.due = null;
    watch.slide = null;
    watch.stop?.then((stop) => stop()).catch(() => undefined);
  }

  /** A commit of the project was signalled: compute at the end of the coalescing window. */
  #signal(watch: Watch): void {
    this.#options.metrics.countSignal();
    watch.signalled = true;
    this.#schedule(watch);
  }

  #schedule(watch: Watch): void {
    if (watch.computing) {
      watch.again = true;
      return;
    }
    watch.due ??= setTimeout(() => {
      watch.due = null;
      void this.#compute(watch);
    }, this.#options.coalesceMs);
  }

  /** At the next multiple of the slide (every coalescing window where no signal is heard). */
  #scheduleSlide(watch: Watch): void {
    const heard = this.#options.changes !== null && watch.answer.project !== null;
    const step = heard
      ? watch.answer.slideMs
      : Math.min(watch.answer.slideMs, this.#options.coalesceMs);
    const nowMs = this.#options.nowMs();
    // Just past the boundary, so the new bucket is the current one when it is read.
    const wait = step - (nowMs % step) + SLIDE_LAG_MS;
    watch.slide = setTimeout(() => {
      watch.slide = null;
      if (!this.#watches.has(watch.answer.key)) return;
      this.#scheduleSlide(watch);
      if (watch.computing) watch.again = true;
      else void this.#compute(watch);
    }, wait);
  }

  async #compute(watch: Watch): Promise<void> {
    const { answer, metrics, logger } = this.#options;
    const { record, params, redactPii } = watch.answer;
    watch.computing = true;
    watch.again = false;
    if (watch.signalled) this.#options.beforeSignalled?.(record);
    watch.signalled = false;
    try {
      const computed = await answer(record, params, { redactPii, fresh: true });
      metrics.countRecompute();
      if (computed.ok && computed.etag !== watch.last.etag) {
        watch.last = computed;
        // Framed once for every stream that watches it.
        const event = eventBytes(computed.body, computed.etag);
        for (const stream of watch.streams) stream.sendEvent(event, computed.etag);
        metrics.countPush(watch.streams.size);
      }
    } catch (error) {
      // The store is away: the streams keep their last answer until it is back.
      metrics.countRecomputeFailure();
      logger.debug({ err: error }, 'a live answer could not be computed again');
    } finally {
      watch.computing = false;
      if (watch.again && this.#watches.has(watch.answer.key)) this.#schedule(watch);
    }
  }
}

/** How long after a bucket boundary a sliding answer is computed again, in ms. */
const SLIDE_LAG_MS = 5;
