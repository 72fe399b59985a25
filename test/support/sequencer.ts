/**
 * The order vitest starts test files in: as its own sequencer orders them (by tier, then the
 * last run's durations, else by file size), but the longest scenarios of a tier that runs files
 * side by side first, so that no worker starts one when the others are nearly done. On a clean
 * checkout (CI) there are no durations, and the crash tests, six-line files, came last: their
 * ~165 s ran after every other fault scenario had ended.
 *
 * @module
 */
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Files started first, longest first (their duration in CI, 2026-11-29). */
export const LONGEST_FIRST: readonly string[] = [
  'test/consumers/crash-cluster.test.ts', // 165 s
  'test/consumers/crash-redis.test.ts', // 160 s
  'test/consumers/churn.test.ts', // 90 s
  'test/tools/soak.test.ts', // 71 s
  'test/service/store-refusals.test.ts', // 65 s
  'test/service/mid-stream-faults.test.ts', // 57 s
  'test/events/walk.test.ts', // 30 s, of the unit tier
  'test/endpoints/answers-as-bytes.test.ts', // 24 s, of the unit tier
];

/** vitest's order, with {@link LONGEST_FIRST} at the front of each tier. */
export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (spec: TestSpecification) => {
      const at = LONGEST_FIRST.indexOf(relative(this.ctx.config.root, spec.moduleId));
      return at < 0 ? LONGEST_FIRST.length : at;
    };
    const tierOf = new Map<string, number>();
    for (const spec of sorted) {
      if (!tierOf.has(spec.project.name)) tierOf.set(spec.project.name, tierOf.size);
    }
    // Stable: within a tier, the files not listed keep vitest's order.
    return sorted.toSorted((a, b) =>
      (tierOf.get(a.project.name) ?? 0) - (tierOf.get(b.project.name) ?? 0) || rank(a) - rank(b)
    );
  }
}
