/**
 * Live answers: each watched answer (an endpoint with its parameters, as identical requests
 * share it) is computed again when a commit of its project is signalled (src/store/changes.ts),
 * once per coalescing window however many commits and streams, and when its window slides (at
 * its next bucket boundary: relative windows change with no event at all); the new answer goes to
 * every stream watching it whose last event differs. A feed that lost its connection, and so its
 * signals, has every answer computed again when it is back. A store without signals (Upstash)
 * has every answer computed again each coalescing window.
 *
 * At most {@link MAX_COMPUTING} answers are computed at once; the others wait their turn. One
 * commit signals every answer of its project together: computed all at once, each one's store
 * replies, rows and pushed bytes would be alive together, past several scavenges, and what
 * outlives them stays in memory until a major collection (with 500 answers watched, megabytes a
 * second).
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
  /**
   * The entity tag of the answer last computed. Not its body: kept a second or more, a body would
   * outlive the young generation and pile up in memory no scavenge frees (with 500 answers
   * watched, megabytes a second until a major collection).
   */
  lastEtag: string;
  /** A stream joined with another answer than the last computed: push to it at the next one. */
  stale: boolean;
  /** When set, a computation is due at its end. */
  due: ReturnType<typeof setTimeout> | null;
  slide: ReturnType<typeof setTimeout> | null;
  computing: boolean;
  /** Waiting for a free place among the answers computed at once. */
  queued: boolean;
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
  /** Watches due, waiting for a place among the {@link MAX_COMPUTING} computed at once. */
  #waiting: Watch[] = [];
  #computing = 0;

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
        lastEtag: first.etag,
        stale: false,
        due: null,
        slide: null,
        computing: false,
        queued: false,
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
    // The watch's answer was computed before or after `first` was read: which is newer is
    // unknown, so the answer is computed again and goes to every stream that lacks it.
    if (watch.lastEtag !== first.etag) {
      watch.stale = true;
      this.#schedule(watch);
    }
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
    this.#waiting = [];
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
      this.#start(watch);
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
      else this.#start(watch);
    }, wait);
  }

  /**
   * Computes `watch` now if fewer than {@link MAX_COMPUTING} are, else when one ends; once its
   * computation in progress ends if it has one (two at once could end in either order).
   */
  #start(watch: Watch): void {
    if (watch.queued) return;
    if (watch.computing) {
      watch.again = true;
      return;
    }
    if (this.#computing >= MAX_COMPUTING) {
      watch.queued = true;
      this.#waiting.push(watch);
      return;
    }
    this.#computing++;
    void this.#compute(watch).finally(() => {
      this.#computing--;
      this.#next();
    });
  }

  /** Starts the next waiting watch still watched. */
  #next(): void {
    while (this.#waiting.length > 0 && this.#computing < MAX_COMPUTING) {
      const watch = this.#waiting.shift();
      if (watch === undefined) return;
      watch.queued = false;
      if (this.#watches.get(watch.answer.key) === watch) this.#start(watch);
    }
  }

  async #compute(watch: Watch): Promise<void> {
    const { answer, metrics, logger } = this.#options;
    const { record, params, redactPii } = watch.answer;
    watch.computing = true;
    watch.again = false;
    const stale = watch.stale;
    watch.stale = false;
    if (watch.signalled) this.#options.beforeSignalled?.(record);
    watch.signalled = false;
    try {
      const computed = await answer(record, params, { redactPii, fresh: true });
      metrics.countRecompute();
      if (computed.ok && (stale || computed.etag !== watch.lastEtag)) {
        watch.lastEtag = computed.etag;
        // Framed once for every stream that watches it; a stream that has it already skips it.
        const event = eventBytes(computed.body, computed.etag);
        let pushed = 0;
        for (const stream of watch.streams) if (stream.sendEvent(event, computed.etag)) pushed++;
        metrics.countPush(pushed);
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

/**
 * Most answers computed at once by one process. Enough to keep the store busy (each waits on its
 * replies most of its time), few enough that what each holds dies young.
 */
export const MAX_COMPUTING = 8;

/** How long after a bucket boundary a sliding answer is computed again, in ms. */
const SLIDE_LAG_MS = 5;
