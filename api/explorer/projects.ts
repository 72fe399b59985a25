/**
 * The explorer's list of projects (`GET /api/explorer/projects`): the projects of the registry
 * of request hosts, newest request first, as JSON.
 *
 * @module
 */
import { formatTimestamp } from '../../src/time/timestamp.ts';
import type { SeenProject } from '../answer/newest-projects.ts';

/** Most projects the list holds. */
export const MAX_LISTED_PROJECTS = 200;

/**
 * The list's JSON body of `seen` (already newest first).
 *
 * @example
 * ```ts
 * projectList([{ project: 'p', newestUs: 1_795_546_847_000_000 }]);
 * // { projects: [{ project: 'p', newest_request: '2026-11-24T19:00:47.000000Z',
 * //   newest_request_us: 1795546847000000 }] }
 * ```
 */
export function projectList(seen: readonly SeenProject[]): {
  projects: { project: string; newest_request: string; newest_request_us: number }[];
} {
  return {
    projects: seen.map(({ project, newestUs }) => ({
      project,
      newest_request: formatTimestamp(newestUs),
      newest_request_us: newestUs,
    })),
  };
}
