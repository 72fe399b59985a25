/**
 * The explorer's routes in process: the page and its files are public and carry the
 * Content-Security-Policy, hold no inline script; `/api/explorer/projects` needs the key and
 * lists the projects seen, newest request first.
 */
import { describe, expect, test } from 'vitest';
import { formatTimestamp } from '../../src/time/timestamp.ts';
import { TEST_NOW_US, testApp } from './helpers/app.ts';

function edgeEvent(id: string, project: string, atUs: number): string {
  return JSON.stringify({
    id,
    timestamp: formatTimestamp(atUs),
    project,
    event_message: `GET | 200 | https://${project}.supabase.co/rest/v1/todos`,
    metadata: [{
      request: [{ method: 'GET', host: `${project}.supabase.co`, path: '/rest/v1/todos' }],
      response: [{ status_code: 200 }],
    }],
  });
}

describe('the explorer routes', () => {
  test('the page is public, holds no inline script or style, and is served under the CSP', async () => {
    const { call } = testApp();
    const page = await call('/', { key: null });
    expect(page.status).toBe(200);
    expect(page.headers.get('Content-Type')).toBe('text/html; charset=utf-8');
    const csp = page.headers.get('Content-Security-Policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    const html = await page.text();
    expect(html).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/);
    expect(html).not.toMatch(/\son[a-z]+=/i);
    expect(html).not.toMatch(/\sstyle=/i);
    expect(html).not.toContain('{{');
    const files = [...html.matchAll(/(?:src|href)="(\/explorer\/[^"]+)"/g)].map((m) => m[1]!);
    expect(files).toEqual(expect.arrayContaining([
      expect.stringMatching(/^\/explorer\/vendor\/uplot-\d+\.\d+\.\d+\/uPlot\.iife\.min\.js$/),
      '/explorer/explorer.js',
    ]));
    for (const file of files) {
      const answer = await call(file, { key: null });
      expect(answer.status, file).toBe(200);
      expect(answer.headers.get('Content-Security-Policy'), file).toBe(csp);
      expect(answer.headers.get('Content-Type'), file).toMatch(/^text\/(javascript|css)/);
    }
  });

  test('other methods are refused with 405, unknown files with 401 like any unknown path', async () => {
    const { call } = testApp();
    const post = await call('/', { method: 'POST', key: null });
    expect(post.status).toBe(405);
    expect(post.headers.get('Allow')).toBe('GET, HEAD');
    expect((await call('/explorer/nope.js', { key: null })).status).toBe(401);
    expect((await call('/', { method: 'HEAD', key: null })).status).toBe(200);
  });

  test('/api/explorer/projects needs the key and lists projects by newest request', async () => {
    const { call } = testApp();
    expect((await call('/api/explorer/projects', { key: null })).status).toBe(401);
    const body = [
      edgeEvent('a-1', 'aaaaaaaaaaaaaaaaaaaa', TEST_NOW_US - 60_000_000),
      edgeEvent('b-1', 'bbbbbbbbbbbbbbbbbbbb', TEST_NOW_US - 10_000_000),
      edgeEvent('a-2', 'aaaaaaaaaaaaaaaaaaaa', TEST_NOW_US - 120_000_000),
    ].join('\n');
    const ingested = await call('/api/ingest/edge', { method: 'POST', body });
    expect(ingested.status).toBe(202);
    const answer = await call('/api/explorer/projects');
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({
      projects: [
        {
          project: 'bbbbbbbbbbbbbbbbbbbb',
          newest_request: formatTimestamp(TEST_NOW_US - 10_000_000),
          newest_request_us: TEST_NOW_US - 10_000_000,
        },
        {
          project: 'aaaaaaaaaaaaaaaaaaaa',
          newest_request: formatTimestamp(TEST_NOW_US - 60_000_000),
          newest_request_us: TEST_NOW_US - 60_000_000,
        },
      ],
    });
  });
});
