/**
 * The synthetic event stream: deterministic for a seed, lazy (a generator, so a stream of any
 * length needs constant memory), and fast enough never to be the bottleneck of a load test.
 *
 * @module
 */

import type { Source } from '../events/types.ts';
import { edgeLine } from './edge.ts';
import { functionEdgeLine } from './function-edge.ts';
import { INVALID_KINDS, type InvalidKind, invalidLine } from './invalid.ts';
import { createPopulation, type Population } from './population.ts';
import { Random } from './random.ts';

/** Options of `generateEvents`. */
export interface GeneratorOptions {
  /** Any safe integer: the same seed and options give the same lines. */
  readonly seed: number;
  /** How many lines to yield (valid and invalid, both sources together). */
  readonly events: number;
  /** The end of the time span, in integer microseconds (the clock is injected). */
  readonly nowUs: number;
  /** Length of the time span ending at `nowUs`. Default 1 hour. */
  readonly spanUs?: number;
  /** Share of events arriving late (timestamp earlier than their predecessors). Default 0. */
  readonly outOfOrder?: number;
  /** Share of invalid events, spread evenly over `INVALID_KINDS`. Default 0. */
  readonly invalid?: number;
  /** Number of projects. Default 1000. */
  readonly projects?: number;
  /** Share of `edge` events; the rest are `function-edge`. Default 0.7. */
  readonly edgeShare?: number;
}

/** One NDJSON line of the stream. */
export interface GeneratedLine {
  readonly source: Source;
  /** One JSON event (or, when `invalid` is set, a deliberately broken one), no newline. */
  readonly line: string;
  /** Null for a valid event, else the kind of invalidity. */
  readonly invalid: InvalidKind | null;
}

/** Defaults of the optional `GeneratorOptions`. */
export const GENERATOR_DEFAULTS = {
  spanUs: 3_600_000_000,
  outOfOrder: 0,
  invalid: 0,
  projects: 1000,
  edgeShare: 0.7,
} as const;

/**
 * Yields `events` lines. In-order events have timestamps spread evenly over
 * `[nowUs - spanUs, nowUs)`, ascending; a late event (share `outOfOrder`) takes a uniformly
 * random instant between the span start and its in-order position. Projects are drawn with
 * Zipf-like skew; each edge request goes to `<ref>.supabase.co`.
 *
 * @throws {RangeError} naming the option, when an option is out of range.
 *
 * @example
 * ```ts
 * for (const { source, line } of generateEvents({ seed: 1, events: 3, nowUs: 1_795_256_130_000_000 })) {
 *   console.log(source, line.length); // e.g. 'edge 1021'
 * }
 * ```
 */
export function* generateEvents(options: GeneratorOptions): Generator<GeneratedLine> {
  const settings = checkOptions(options);
  const population = createPopulation(streamSeeds(options.seed).population, settings.projects);
  const random = new Random(streamSeeds(options.seed).events);
  const spanStart = options.nowUs - settings.spanUs;

  for (let index = 0; index < options.events; index++) {
    let us = spanStart + Math.floor(settings.spanUs * ((index + random.next()) / options.events));
    if (random.chance(settings.outOfOrder)) us = spanStart + random.int(us - spanStart + 1);
    const project = population.projects[population.projectSampler.draw(random)] ??
      random.pick(population.projects);
    const source: Source = random.chance(settings.edgeShare) ? 'edge' : 'function-edge';
    const id = random.uuid();
    const line = source === 'edge'
      ? edgeLine(random, project, id, us)
      : functionEdgeLine(random, project, id, us);
    if (random.chance(settings.invalid)) {
      const kind = random.pick(INVALID_KINDS);
      yield { source, line: invalidLine(random, kind, source, line, options.nowUs), invalid: kind };
    } else {
      yield { source, line, invalid: null };
    }
  }
}

/**
 * The projects `generateEvents` draws from for a seed and project count: what a load test or a
 * test queries for (the first project is the busiest).
 *
 * @example
 * ```ts
 * const [hot] = syntheticPopulation(1).projects;
 * hot?.ref; // the busiest project ref of seed 1
 * ```
 */
export function syntheticPopulation(
  seed: number,
  projects: number = GENERATOR_DEFAULTS.projects,
): Population {
  return createPopulation(streamSeeds(seed).population, projects);
}

/** Independent seeds for the population and the event stream, derived from the user's seed. */
function streamSeeds(seed: number): { population: number; events: number } {
  const root = new Random(seed);
  return { population: root.uint32(), events: root.uint32() };
}

type Settings = Required<Omit<GeneratorOptions, 'seed' | 'events' | 'nowUs'>>;

function checkOptions(options: GeneratorOptions): Settings {
  if (!Number.isSafeInteger(options.seed)) {
    throw new RangeError(`seed must be a safe integer: got ${options.seed}`);
  }
  if (!Number.isSafeInteger(options.events) || options.events < 0) {
    throw new RangeError(`events must be a non-negative integer: got ${options.events}`);
  }
  if (!Number.isSafeInteger(options.nowUs)) {
    throw new RangeError(
      `nowUs must be integer microseconds since the epoch: got ${options.nowUs}`,
    );
  }
  const settings = {
    spanUs: options.spanUs ?? GENERATOR_DEFAULTS.spanUs,
    outOfOrder: options.outOfOrder ?? GENERATOR_DEFAULTS.outOfOrder,
    invalid: options.invalid ?? GENERATOR_DEFAULTS.invalid,
    projects: options.projects ?? GENERATOR_DEFAULTS.projects,
    edgeShare: options.edgeShare ?? GENERATOR_DEFAULTS.edgeShare,
  };
  if (!Number.isSafeInteger(settings.spanUs) || settings.spanUs < 1) {
    throw new RangeError(
      `spanUs must be a positive integer of microseconds: got ${settings.spanUs}`,
    );
  }
  for (const name of ['outOfOrder', 'invalid', 'edgeShare'] as const) {
    const share = settings[name];
    if (!(share >= 0 && share <= 1)) {
      throw new RangeError(`${name} must be a share between 0 and 1: got ${share}`);
    }
  }
  if (!Number.isSafeInteger(settings.projects) || settings.projects < 1) {
    throw new RangeError(`projects must be a positive integer: got ${settings.projects}`);
  }
  return settings;
}
