import { describe, expect, test } from 'vitest';
import { NewestProjects, type SeenProject } from '../../../api/answer/newest-projects.ts';
import { Random } from '../../../src/synthetic/random.ts';

/** The oracle: every project's newest time, sorted whole. */
function sortedWhole(newest: ReadonlyMap<string, number>, limit: number): SeenProject[] {
  return [...newest].map(([project, newestUs]) => ({ project, newestUs }))
    .sort((a, b) => b.newestUs - a.newestUs || (a.project < b.project ? -1 : 1))
    .slice(0, limit);
}

describe('NewestProjects', () => {
  test('lists newest first, equal times by name, and ignores an older sighting', () => {
    const newest = new NewestProjects(3);
    newest.see('b', 10);
    newest.see('a', 10);
    newest.see('c', 30);
    newest.see('c', 5);
    newest.see('d', 1);
    expect(newest.list(10)).toEqual([
      { project: 'c', newestUs: 30 },
      { project: 'a', newestUs: 10 },
      { project: 'b', newestUs: 10 },
    ]);
    newest.see('d', 40);
    expect(newest.list(2).map((seen) => seen.project)).toEqual(['d', 'c']);
  });

  test('equals a whole sort of every project, through growth and ageing out', () => {
    const random = new Random(31);
    const kept = new NewestProjects(20);
    const all = new Map<string, number>();
    let nowUs = 1_000;
    for (let step = 0; step < 5_000; step++) {
      nowUs += random.int(3);
      if (random.chance(0.01)) {
        const horizonUs = nowUs - 500;
        kept.dropBefore(horizonUs);
        for (const [project, newestUs] of all) if (newestUs < horizonUs) all.delete(project);
      } else {
        const project = `p${random.int(300)}`;
        // A late sighting is older than what the project may already hold.
        const seenUs = nowUs - random.int(200);
        kept.see(project, seenUs);
        all.set(project, Math.max(all.get(project) ?? seenUs, seenUs));
      }
      expect(kept.list(20)).toEqual(sortedWhole(all, 20));
    }
  });

  test('refuses a capacity that is not a positive integer', () => {
    expect(() => new NewestProjects(0)).toThrow(
      "'capacity' must be a positive integer: current value is 0",
    );
  });
});
