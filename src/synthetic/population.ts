/**
 * The synthetic world: projects with skewed activity, each with its edge functions.
 *
 * @module
 */

import { Random, WeightedSampler, zipfWeights } from './random.ts';

/** One synthetic edge function. */
export interface SyntheticFunction {
  /** `function_id`: a UUID. */
  readonly id: string;
  /** Slug in the URL path `/functions/v1/{name}`. */
  readonly name: string;
  readonly version: number;
  /** Median execution time in ms (log-normal location). */
  readonly medianMs: number;
  /** Log-normal shape: larger is a heavier tail. */
  readonly sigma: number;
}

/** One synthetic project. */
export interface SyntheticProject {
  /** 20 lower-case letters. */
  readonly ref: string;
  /** `{ref}.supabase.co`. */
  readonly host: string;
  /** 1 to 20 functions. */
  readonly functions: readonly SyntheticFunction[];
  /** Picks a function: a few are called far more often than the rest. */
  readonly functionSampler: WeightedSampler;
}

/** The projects, and a sampler where activity is Zipf-distributed over them. */
export interface Population {
  readonly projects: readonly SyntheticProject[];
  readonly projectSampler: WeightedSampler;
}

const FUNCTION_NAMES = [
  'hello',
  'send-email',
  'stripe-webhook',
  'resize-image',
  'openai-chat',
  'sync-users',
  'notify',
  'generate-pdf',
  'search',
  'checkout',
  'cron-cleanup',
  'auth-hook',
  'upload-handler',
  'geocode',
  'slack-bot',
  'invite',
  'export-csv',
  'translate',
  'ping',
  'metrics',
];

/**
 * Builds `count` projects deterministically from `seed`. Project `i` has Zipf weight
 * `1 / (i + 1)^1.1`, so the first few are hot and the rest a long tail.
 *
 * @throws {RangeError} when `count` is not a positive integer.
 *
 * @example
 * ```ts
 * const population = createPopulation(42, 100);
 * population.projects[0]?.ref; // e.g. 'kqzjtnxbfwelcmdgpyrh', the same for seed 42 every time
 * ```
 */
export function createPopulation(seed: number, count: number): Population {
  if (!Number.isSafeInteger(count) || count < 1) {
    throw new RangeError(`the number of projects must be a positive integer: got ${count}`);
  }
  const random = new Random(seed);
  const refs = new Set<string>();
  const projects: SyntheticProject[] = [];
  while (projects.length < count) {
    const ref = projectRef(random);
    if (refs.has(ref)) continue;
    refs.add(ref);
    const functionCount = 1 + random.int(20);
    const functions = Array.from({ length: functionCount }, (_, index) => ({
      id: random.uuid(),
      name: index < FUNCTION_NAMES.length ? (FUNCTION_NAMES[index] ?? 'fn') : `fn-${index}`,
      version: 1 + random.int(40),
      medianMs: Math.exp(Math.log(5) + random.next() * (Math.log(400) - Math.log(5))),
      sigma: 0.4 + random.next() * 0.6,
    }));
    projects.push({
      ref,
      host: `${ref}.supabase.co`,
      functions,
      functionSampler: new WeightedSampler(zipfWeights(functionCount, 1)),
    });
  }
  return { projects, projectSampler: new WeightedSampler(zipfWeights(count, 1.1)) };
}

function projectRef(random: Random): string {
  let ref = '';
  for (let i = 0; i < 20; i++) ref += String.fromCharCode(97 + random.int(26));
  return ref;
}
