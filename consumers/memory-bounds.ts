/**
 * A consumer process's memory bounds, made once per process and shared by its runners: the
 * parts budget of its writers (`PARTS_CACHE_LIMIT`) and the heap guard that holds batches back
 * and empties that budget while the V8 heap is pressed, with their log lines and metrics
 * (`consumer_heap_pressed`, `consumer_heap_pressure_total`, `consumer_heap_floor_total`,
 * `consumer_cached_parts`). The memory
 * model they bound is in docs/OPERATIONS.md ("A consumer's memory").
 *
 * @module
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { Logger } from '../src/logger.ts';
import { PartsBudget } from '../src/rollup/parts-budget.ts';
import { fullCollection, type HeapFigures, HeapGuard, heapOfThisProcess } from './heap-guard.ts';

/** What {@link memoryBounds} made. */
export interface MemoryBounds {
  readonly partsBudget: PartsBudget;
  readonly heapGuard: HeapGuard;
}

/** How often a pressed heap is logged at most (each press is counted in the metrics). */
const PRESSURE_LOG_MS = 60_000;

const MIB = 1024 * 1024;

/**
 * The parts budget and the heap guard of a consumer process (the guard not started yet), with
 * their metrics on `registry` when given.
 */
export function memoryBounds(options: {
  readonly partsCacheLimit: number;
  readonly logger: Logger;
  readonly nowMs: () => number;
  readonly registry?: Registry | undefined;
  /** Default: this process's V8 heap. */
  readonly heap?: () => HeapFigures;
}): MemoryBounds {
  const { logger, nowMs, registry } = options;
  const partsBudget = new PartsBudget(options.partsCacheLimit);
  const presses = registry === undefined ? null : new Counter({
    name: 'consumer_heap_pressure_total',
    help: 'Times the V8 heap passed its high mark and the consumer held batches back and ' +
      'dropped its cached parts until it eased.',
    registers: [registry],
  });
  const floors = registry === undefined ? null : new Counter({
    name: 'consumer_heap_floor_total',
    help: 'Presses let go above the low mark because waiting freed nothing more: the process ' +
      'holds more than half its heap with nothing pending.',
    registers: [registry],
  });
  let loggedMs = Number.NEGATIVE_INFINITY;
  let floorLoggedMs = Number.NEGATIVE_INFINITY;
  let unlogged = 0;
  const heapGuard = new HeapGuard({
    heap: options.heap ?? heapOfThisProcess,
    nowMs,
    collect: fullCollection(),
    onFloor: (floor) => {
      floors?.inc();
      if (nowMs() - floorLoggedMs < PRESSURE_LOG_MS) return;
      floorLoggedMs = nowMs();
      logger.warn(
        {
          heapFloorMiB: Math.round(floor.used / MIB),
          heapLimitMiB: Math.round(floor.limit / MIB),
        },
        "the heap's floor is above the low mark: waiting freed nothing more, so batches go on and " +
          'the guard presses again at the high mark; give the process a larger --max-old-space-size',
      );
    },
    onPressure: (pressed, heap) => {
      partsBudget.squeeze(pressed);
      if (!pressed) return;
      presses?.inc();
      unlogged += 1;
      if (nowMs() - loggedMs < PRESSURE_LOG_MS) return;
      logger.warn(
        {
          heapUsedMiB: Math.round(heap.used / MIB),
          heapLimitMiB: Math.round(heap.limit / MIB),
          presses: unlogged,
        },
        'the heap is pressed: batches wait and cached parts are dropped until what is pending ' +
          'is written (see "A consumer\'s memory" in docs/OPERATIONS.md)',
      );
      loggedMs = nowMs();
      unlogged = 0;
    },
  });
  if (registry !== undefined) registerGauges(registry, { partsBudget, heapGuard });
  return { partsBudget, heapGuard };
}

/** The gauges of the bounds: whether the heap is pressed, and the parts the writers keep. */
function registerGauges(registry: Registry, { partsBudget, heapGuard }: MemoryBounds): void {
  new Gauge({
    name: 'consumer_heap_pressed',
    help: '1 while the V8 heap is past its high mark and batches wait; else 0.',
    registers: [registry],
    collect() {
      this.set(heapGuard.pressed ? 1 : 0);
    },
  });
  new Gauge({
    name: 'consumer_cached_parts',
    help: "Stored parts this process's writers keep deserialized between flushes " +
      '(bounded by PARTS_CACHE_LIMIT).',
    registers: [registry],
    collect() {
      this.set(partsBudget.held);
    },
  });
}
