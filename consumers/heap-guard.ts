/**
 * Backpressure on the heap: a consumer slows down rather than run out of memory. The guard
 * reads the V8 heap a few times a second; once what is used passes the high mark (a share of the
 * heap's limit, which the process was started with: `--max-old-space-size`), it is pressed: the
 * runner folds no new batch (kafkajs fetches nothing more while its batches wait, see
 * `runner.ts`), the flushes under way write what is pending (after their linger, at most
 * `FLUSH_LINGER_MS`), and the writers drop their cached parts
 * ({@link HeapGuardOptions.onPressure}). It lets go once the heap is below the low mark,
 * or once waiting frees nothing more: when no reading has fallen below the lowest of this press
 * for {@link FLOOR_WAIT_MS}, what the process holds with nothing pending (its floor: code, clients,
 * the batches fetched) is above the low mark, and holding batches back any longer would hold them
 * for good ({@link HeapGuardOptions.onFloor}). It presses again at the high mark.
 *
 * A heap's used size counts garbage not yet collected: where the runtime lets the guard ask for
 * a full collection (Node: see {@link fullCollection}), it asks for one before it decides either
 * way, at most once per {@link COLLECT_EVERY_MS}; elsewhere (Deno) it waits for V8's own.
 *
 * @example
 * ```ts
 * const guard = new HeapGuard({ heap: heapOfThisProcess, nowMs: () => Date.now(), collect: fullCollection() });
 * guard.start();
 * await guard.room(heartbeat); // before folding a batch
 * ```
 *
 * @module
 */
import v8 from 'node:v8';
import vm from 'node:vm';

/** Share of the heap's limit in use at which the guard presses. */
export const HEAP_HIGH_SHARE = 0.7;
/** Share of the heap's limit in use below which it lets go. */
export const HEAP_LOW_SHARE = 0.5;
/** How often the heap is read. */
const CHECK_EVERY_MS = 100;
/** Longest wait between two full collections the guard asks for. */
const COLLECT_EVERY_MS = 1_000;
/**
 * How long a press waits with no reading below its lowest before it takes that lowest for the
 * heap's floor and lets go: three full collections on Node, where one is asked for every second.
 */
export const FLOOR_WAIT_MS = 3_000;
/** A reading lower than the lowest by less than this share of the limit is no fall. */
const FLOOR_STEP_SHARE = 0.01;
/** How often a batch held back calls its heartbeat, so the group keeps the member. */
const HEARTBEAT_EVERY_MS = 2_000;

/** The heap's used size and its limit, in bytes. */
export interface HeapFigures {
  readonly used: number;
  readonly limit: number;
}

/** Options of {@link HeapGuard}. */
export interface HeapGuardOptions {
  /** Reads the heap now. */
  readonly heap: () => HeapFigures;
  /** The clock, Unix ms. */
  readonly nowMs: () => number;
  /** A full garbage collection, where the runtime allows asking for one. */
  readonly collect?: (() => void) | undefined;
  /** Told when the guard presses (with the heap read then) and when it lets go. */
  readonly onPressure?: (pressed: boolean, heap: HeapFigures) => void;
  /**
   * Told when the guard lets go above the low mark because waiting freed nothing more for
   * {@link FLOOR_WAIT_MS}, with the lowest reading of the press (before `onPressure(false)`).
   */
  readonly onFloor?: (floor: HeapFigures) => void;
  /** Default {@link HEAP_HIGH_SHARE}. */
  readonly highShare?: number;
  /** Default {@link HEAP_LOW_SHARE}. */
  readonly lowShare?: number;
}

/** The V8 heap of this process. */
export function heapOfThisProcess(): HeapFigures {
  const { used_heap_size: used, heap_size_limit: limit } = v8.getHeapStatistics();
  return { used, limit };
}

/**
 * A full garbage collection on Node, which lets a process turn on `gc()` at run time; undefined
 * where the runtime does not (Deno, or a Node that refuses).
 */
export function fullCollection(): (() => void) | undefined {
  try {
    v8.setFlagsFromString('--expose-gc');
    const gc: unknown = vm.runInNewContext('gc');
    return typeof gc === 'function' ? () => void gc() : undefined;
  } catch {
    return undefined;
  }
}

/** Watches the heap and holds batches back while it is pressed. */
export class HeapGuard {
  readonly #options: HeapGuardOptions;
  #pressed = false;
  #collectedMs = Number.NEGATIVE_INFINITY;
  #timer: ReturnType<typeof setInterval> | null = null;
  #released: { promise: Promise<void>; resolve: () => void } | null = null;
  #presses = 0;
  /** The lowest reading of this press, and when the heap last fell below the one before. */
  #lowest: HeapFigures | null = null;
  #fellMs = 0;

  constructor(options: HeapGuardOptions) {
    this.#options = options;
  }

  /** Whether batches are held back now. */
  get pressed(): boolean {
    return this.#pressed;
  }

  /** How many times the guard has pressed since it was made. */
  get presses(): number {
    return this.#presses;
  }

  /** Reads the heap every {@link CHECK_EVERY_MS} until {@link stop}. */
  start(): void {
    this.#timer ??= setInterval(() => this.check(), CHECK_EVERY_MS);
    // Never what keeps a process alive.
    if (typeof this.#timer === 'object' && 'unref' in this.#timer) this.#timer.unref();
  }

  /** Stops reading the heap and lets every batch held back go. */
  stop(): void {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    this.#release();
  }

  /** Reads the heap and presses or lets go. */
  check(): void {
    const heap = this.#read();
    const { highShare = HEAP_HIGH_SHARE, lowShare = HEAP_LOW_SHARE } = this.#options;
    if (!this.#pressed && heap.used > heap.limit * highShare) {
      this.#pressed = true;
      this.#presses += 1;
      this.#lowest = heap;
      this.#fellMs = this.#options.nowMs();
      this.#options.onPressure?.(true, heap);
    } else if (this.#pressed && heap.used < heap.limit * lowShare) {
      this.#release();
      this.#options.onPressure?.(false, heap);
    } else if (this.#pressed && this.#atFloor(heap)) {
      const floor = this.#lowest ?? heap;
      this.#release();
      this.#options.onFloor?.(floor);
      this.#options.onPressure?.(false, heap);
    }
  }

  /** Whether the heap has not fallen for {@link FLOOR_WAIT_MS} of this press. */
  #atFloor(heap: HeapFigures): boolean {
    const nowMs = this.#options.nowMs();
    const lowest = this.#lowest;
    if (lowest === null || heap.used < lowest.used - heap.limit * FLOOR_STEP_SHARE) {
      this.#lowest = heap;
      this.#fellMs = nowMs;
      return false;
    }
    if (heap.used < lowest.used) this.#lowest = heap;
    return nowMs - this.#fellMs >= FLOOR_WAIT_MS;
  }

  /**
   * Resolves at once unless the guard is pressed; then once it lets go, calling `heartbeat`
   * meanwhile every {@link HEARTBEAT_EVERY_MS}.
   */
  async room(heartbeat: () => Promise<void> = () => Promise.resolve()): Promise<void> {
    while (this.#pressed) {
      this.#released ??= withResolvers();
      let timer: ReturnType<typeof setTimeout> | undefined;
      const beat = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, HEARTBEAT_EVERY_MS);
      });
      await Promise.race([this.#released.promise, beat]);
      clearTimeout(timer);
      if (this.#pressed) await heartbeat();
    }
  }

  /** The heap now; after a full collection first when it looks like a change of state. */
  #read(): HeapFigures {
    const { highShare = HEAP_HIGH_SHARE, lowShare = HEAP_LOW_SHARE } = this.#options;
    const heap = this.#options.heap();
    const wouldChange = this.#pressed
      ? heap.used >= heap.limit * lowShare
      : heap.used > heap.limit * highShare;
    const nowMs = this.#options.nowMs();
    const collect = this.#options.collect;
    if (!wouldChange || collect === undefined || nowMs - this.#collectedMs < COLLECT_EVERY_MS) {
      return heap;
    }
    this.#collectedMs = nowMs;
    collect();
    return this.#options.heap();
  }

  #release(): void {
    this.#pressed = false;
    this.#lowest = null;
    this.#released?.resolve();
    this.#released = null;
  }
}

function withResolvers(): { promise: Promise<void>; resolve: () => void } {
  let resolve: () => void = () => undefined;
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}
