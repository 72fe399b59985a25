/**
 * What a newcomer reads when the service starts: first the explorer's URL (the page that draws
 * the endpoints), then the URL, the API key, and one copy-paste `curl` per endpoint (plus one
 * that ingests an event).
 *
 * @module
 */
import { API_KEY_HEADER } from '../api/middleware/auth.ts';
import { formatTimestamp } from '../src/time/timestamp.ts';

/** What the banner shows. */
export interface BannerFacts {
  readonly url: string;
  /**
   * The key generated for this run, printed once; null when keys are configured (`API_KEYS`):
   * a configured secret is not echoed, the commands read it from `$API_KEY` instead.
   */
  readonly generatedKey: string | null;
  /** A project ref worth querying. */
  readonly project: string;
  /** How the process is set up, e.g. `store: memory, ingest: direct`. */
  readonly setup: string;
  readonly demo: boolean;
  /** Now, in Unix microseconds: the timestamp of the sample event the last command ingests. */
  readonly nowUs: number;
}

function quote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/**
 * The banner's lines.
 *
 * @example
 * ```ts
 * bannerLines({ url: 'http://127.0.0.1:8080', generatedKey: 'k'.repeat(32),
 *   project: 'abcdefghijklmnopqrst', setup: 'store: memory', demo: false, nowUs }).join('\n');
 * ```
 */
export function bannerLines(facts: BannerFacts): string[] {
  const key = facts.generatedKey === null
    ? `-H "${API_KEY_HEADER}: $API_KEY"`
    : `-H ${quote(`${API_KEY_HEADER}: ${facts.generatedKey}`)}`;
  const get = (path: string) => `  curl ${key} ${quote(`${facts.url}${path}`)}`;
  const p = encodeURIComponent(facts.project);
  const now = formatTimestamp(Math.floor(facts.nowUs / 1_000_000) * 1_000_000);
  const edge = JSON.stringify({
    id: 'hello-1',
    timestamp: now,
    project: facts.project,
    event_message: `GET | 200 | https://${facts.project}.supabase.co/rest/v1/todos`,
    metadata: [{
      request: [{ method: 'GET', host: `${facts.project}.supabase.co`, path: '/rest/v1/todos' }],
      response: [{ status_code: 200 }],
    }],
  });
  const explorer = `${facts.url}/#endpoint=functions.invocation-stats&project=${p}`;
  return [
    '',
    `Explorer: ${explorer}   (open it in a browser and type the API key)`,
    `streaming-endpoints is listening on ${facts.url}  (${facts.setup})`,
    facts.generatedKey === null
      ? 'API key: one of API_KEYS (not printed); export API_KEY=<your key> for the commands below'
      : `API key: ${facts.generatedKey}  (generated for this run; set API_KEYS to choose your own)`,
    '',
    facts.demo
      ? `Demo traffic is flowing; project ${facts.project} has the most of it. Try:`
      : 'Try (ingest an event first, with the last command, to see rows):',
    get(`/api/endpoints/functions.invocation-stats?project=${p}&interval=1hr`),
    get(`/api/endpoints/logs.all?project=${p}&project_tier=PRO`),
    get(`/api/endpoints/usage.api-counts?project=${p}&interval=hourly`),
    `  curl ${key} -X POST --data-binary ${quote(edge)} ${quote(`${facts.url}/api/ingest/edge`)}`,
    '',
    `OpenAPI: ${facts.url}/openapi.json   metrics: ${facts.url}/metrics`,
    '',
  ];
}
