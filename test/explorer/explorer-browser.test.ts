/**
 * The explorer in a real headless Chromium (Debian's `chromium`, driven by playwright-core),
 * against the README's start command with demo traffic: the key typed once, every endpoint and
 * parameter set chosen through the labelled form, the charts drawn, every number shown equal
 * to the API's JSON for the same request, the curl command naming exactly that request, no
 * console error, nothing fetched from outside the service. Screenshots of every view go to
 * `test-results/explorer/`.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { syntheticPopulation } from '../../src/synthetic/generator.ts';
import { type ChildService, embeddedEnv, startChild } from '../api/helpers/child.ts';
import { describeWithServices } from '../support/services.ts';
import {
  curlCommand,
  requestPath,
  type View,
  viewFromHash,
} from '../../api/explorer/page/views.js';
import { invocationLine } from '../fixtures/events.ts';

const SHOTS = join(import.meta.dirname, '..', '..', 'test-results', 'explorer');

type Row = Record<string, unknown>;

/** `2026-11-24 18:05:00` of an answer's timestamp (µs, or UTC text without a zone). */
function utc(timestamp: unknown): string {
  const ms = typeof timestamp === 'number' ? timestamp / 1000 : Date.parse(`${String(timestamp)}Z`);
  return new Date(ms).toISOString().replace('T', ' ').replace(/\.\d+Z$/, '');
}

function text(value: unknown): string {
  return value === null || value === undefined ? '' : String(value);
}

const INVOCATION_FIELDS = [
  'count',
  'error_count',
  'min_execution_time',
  'avg_execution_time',
  'p95_execution_time',
  'p99_execution_time',
  'max_execution_time',
];
const FAMILY_FIELDS = [
  'total_rest_requests',
  'total_auth_requests',
  'total_storage_requests',
  'total_realtime_requests',
];

function sum(rows: readonly Row[], field: string): string {
  return String(rows.reduce((total, row) => total + Number(row[field] ?? 0), 0));
}

/** The table rows and totals the page should show for an answer. */
function expected(endpoint: string, rows: readonly Row[]) {
  if (endpoint === 'functions.invocation-stats') {
    return {
      cells: rows.map((
        row,
      ) => [utc(row['timestamp']), ...INVOCATION_FIELDS.map((f) => text(row[f]))]),
      totals: [sum(rows, 'count'), sum(rows, 'error_count'), String(rows.length)],
      charts: 2,
    };
  }
  if (endpoint === 'usage.api-counts') {
    return {
      cells: rows.map((row) => [utc(row['timestamp']), ...FAMILY_FIELDS.map((f) => text(row[f]))]),
      totals: [...FAMILY_FIELDS.map((field) => sum(rows, field)), String(rows.length)],
      charts: 1,
    };
  }
  return {
    cells: rows.map((row) => [utc(row['timestamp']), text(row['event_message'])]),
    totals: [String(rows.length)],
    charts: 0,
  };
}

/** What the page shows: table cells (a log row's message is its summary), totals, charts. */
async function shown(page: Page) {
  return await page.evaluate(() => {
    const cells = [...document.querySelectorAll('#tables tbody tr')].map((tr) =>
      [...tr.querySelectorAll('td')].map((td) =>
        td.querySelector('summary')?.textContent ?? td.textContent ?? ''
      )
    );
    const totals = [...document.querySelectorAll('#summary dd')].map((dd) => dd.textContent);
    // A drawn chart has painted pixels on its canvas.
    const charts = [...document.querySelectorAll('#charts canvas')].map((node) => {
      const canvas = node as HTMLCanvasElement;
      const pixels = canvas.getContext('2d')?.getImageData(0, 0, canvas.width, canvas.height);
      let painted = 0;
      for (let i = 3; i < (pixels?.data.length ?? 0); i += 4) if (pixels!.data[i]! > 0) painted++;
      return painted;
    });
    return { cells, totals, charts };
  });
}

describeWithServices(['browser'], 'the explorer in headless Chromium', ({ browser: found }) => {
  let service: ChildService | null = null;
  let browser: Browser | null = null;
  const consoleErrors: string[] = [];
  const requested: string[] = [];

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    service = await startChild('npm', ['start', '--silent', '--', '--demo'], embeddedEnv());
    browser = await chromium.launch({
      executablePath: found.executablePath,
      // Containers and root users have no sandbox to give Chromium.
      args: ['--no-sandbox', '--disable-dev-shm-usage'],
    });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
  });

  async function openPage(width: number): Promise<Page> {
    const page = await browser!.newPage({ viewport: { width, height: 900 } });
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    page.on('pageerror', (error) => consoleErrors.push(error.message));
    page.on('request', (request) => requested.push(request.url()));
    return page;
  }

  test('every endpoint and parameter set: charts drawn, numbers equal the API', async () => {
    const { url, key } = service!;
    const page = await openPage(1200);
    await page.goto(`${url}/`);
    const keyField = page.getByLabel('API key');
    await keyField.fill('not-the-key-0123456789');
    await keyField.press('Enter');
    await expect.poll(() => page.locator('#key-error').textContent()).toContain('refused');
    // The browser itself logs the refused request (401) as an error: that one is expected.
    expect(consoleErrors).toEqual([
      'Failed to load resource: the server responded with a status of 401 (Unauthorized)',
    ]);
    consoleErrors.length = 0;

    await keyField.fill(key);
    await keyField.press('Enter');
    await page.getByLabel('Endpoint').waitFor();
    await page.getByLabel('Live updates').uncheck();
    expect(await page.evaluate(() => Object.values(sessionStorage))).toContain(key);

    const project = await page.getByLabel('Project', { exact: true }).inputValue();
    expect(project).toMatch(/^[a-z]{20}$/);
    const functionId = syntheticPopulation(1, 10).projects.find((p) => p.ref === project)
      ?.functions[0]?.id;
    expect(functionId).toBeDefined();

    const views: Partial<View>[] = [
      ...['5min', '15min', '1hr', '1day', '7day'].map((interval) => ({
        endpoint: 'functions.invocation-stats' as const,
        interval,
      })),
      { endpoint: 'functions.invocation-stats', interval: '1hr', function_id: functionId! },
      ...['minutely', 'hourly', 'daily', '1hr', '1day', '7day'].map((interval) => ({
        endpoint: 'usage.api-counts' as const,
        interval,
      })),
      ...['FREE', 'PRO', 'ENTERPRISE'].map((tier) => ({
        endpoint: 'logs.all' as const,
        project_tier: tier,
      })),
    ];
    for (const [index, choice] of views.entries()) {
      const view: View = {
        ...viewFromHash(`#endpoint=${choice.endpoint}&project=${project}`),
        ...choice,
      };
      const path = requestPath(view);
      await page.getByLabel('Endpoint').selectOption(view.endpoint);
      if (view.endpoint !== 'logs.all') {
        await page.getByLabel('Interval').selectOption(view.interval);
      } else {
        await page.getByLabel('Project tier').selectOption(view.project_tier);
      }
      if (view.endpoint === 'functions.invocation-stats') {
        await page.getByLabel('Function id').fill(view.function_id);
      }
      // Each change above asked at once; once none is in flight, Show asks exactly once more.
      await page.locator('#view[aria-busy="false"]').waitFor();
      const before = Number(await page.locator('#view').getAttribute('data-renders'));
      const answered = page.waitForResponse((response) => response.url() === `${url}${path}`);
      await page.getByRole('button', { name: 'Show' }).click();
      const response = await answered;
      expect(response.status(), path).toBe(200);
      const rows = ((await response.json()) as { result: Row[] }).result;
      await page.waitForFunction(
        ([wanted, after]) => {
          const node = document.getElementById('view');
          return node?.dataset['request'] === wanted && Number(node.dataset['renders']) > after;
        },
        [path, before] as const,
      );

      const want = expected(view.endpoint, rows);
      const got = await shown(page);
      expect(rows.length, path).toBeGreaterThan(0);
      expect(got.cells, path).toEqual(want.cells);
      expect(got.totals, path).toEqual(want.totals);
      // uPlot draws each chart on one canvas; every one of them has painted bars or lines.
      expect(got.charts.length, path).toBe(want.charts);
      for (const painted of got.charts) expect(painted, path).toBeGreaterThan(1_000);

      // The curl command is exactly this request; the API answers it alike from outside.
      const curl = await page.getByLabel(/This request with curl/).inputValue();
      expect(curl).toBe(curlCommand(url, path));
      const direct = await fetch(`${url}${path}`, { headers: { 'X-API-KEY': key } });
      expect(direct.status).toBe(200);

      if (view.endpoint === 'logs.all') {
        const first = page.locator('#tables details').first();
        await first.locator('summary').click();
        const metadata = JSON.parse(await first.locator('pre').textContent() ?? '');
        expect(metadata).toEqual({ id: rows[0]!['id'], metadata: rows[0]!['metadata'] });
      }
      await page.screenshot({
        path: join(SHOTS, `${String(index).padStart(2, '0')}-${view.endpoint}.png`),
        fullPage: true,
      });
    }
    await page.close();

    expect(consoleErrors).toEqual([]);
    const origin = new URL(url).origin;
    const outside = requested.filter((address) => !address.startsWith(`${origin}/`));
    expect(outside).toEqual([]);
    expect(requested.filter((address) => address.includes(key))).toEqual([]);
  }, 120_000);

  test('at 375 px the page fits the screen and the form works by keyboard', async () => {
    const { url, key } = service!;
    const page = await openPage(375);
    await page.goto(`${url}/#endpoint=usage.api-counts`);
    // The key field has the focus from the start: type, Enter.
    await page.locator('#key:focus').waitFor();
    await page.keyboard.type(key);
    await page.keyboard.press('Enter');
    await page.waitForFunction(() =>
      Number(document.getElementById('view')?.dataset['renders']) > 0
    );
    // Keyboard: from the endpoint choice, Tab reaches the project, then the interval.
    await page.getByLabel('Endpoint').focus();
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('project');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('interval');
    const overflow = await page.evaluate(() =>
      document.documentElement.scrollWidth - document.documentElement.clientWidth
    );
    expect(overflow).toBeLessThanOrEqual(0);
    await page.screenshot({ path: join(SHOTS, 'narrow-375px.png'), fullPage: true });
    await page.close();
    expect(consoleErrors).toEqual([]);
  }, 60_000);

  test('live updates: the chart moves after an ingest, with no reload and no poll', async () => {
    const { url, key } = service!;
    const page = await openPage(1200);
    // A project the demo traffic never writes: only this test's events change its answer.
    const project = 'livexplorertestzzzzz';
    const path = `/api/endpoints/query/functions.invocation-stats?project=${project}&interval=1day`;
    const gets: string[] = [];
    page.on('request', (request) => {
      const asked = request.url().startsWith(`${url}/api/endpoints/`);
      if (asked && request.headers()['accept'] !== 'text/event-stream') gets.push(request.url());
    });
    await page.goto(`${url}/#endpoint=functions.invocation-stats&project=${project}&interval=1day`);
    await page.getByLabel('API key').fill(key);
    await page.getByLabel('API key').press('Enter');
    await page.locator('#view[data-live="open"]').waitFor();
    const before = await shown(page);
    expect(before.totals[0]).toBe('0');
    const renders = Number(await page.locator('#view').getAttribute('data-renders'));
    const nowUs = Date.now() * 1000;
    const lines = Array.from({ length: 7 }, (_, i) =>
      invocationLine({
        project,
        timestampUs: nowUs - 1_000_000 * (i + 1),
        executionMs: 10 + i,
        status: i === 0 ? 500 : 200,
      }));
    const ingest = await fetch(`${url}/api/ingest/function-edge`, {
      method: 'POST',
      headers: { 'X-API-KEY': key, 'Content-Type': 'application/x-ndjson' },
      body: lines.join('\n'),
    });
    expect(ingest.status).toBe(202);
    // Not the next render: the view may render again before the push (its relative window sliding
    // at a bucket boundary, with the same totals); the one that shows the ingest's seven.
    await page.waitForFunction(() => document.querySelector('#summary dd')?.textContent === '7');
    expect(Number(await page.locator('#view').getAttribute('data-renders'))).toBeGreaterThan(
      renders,
    );
    const answer = await fetch(`${url}${path}`, { headers: { 'X-API-KEY': key } });
    const rows = ((await answer.json()) as { result: Row[] }).result;
    const got = await shown(page);
    expect(got.totals).toEqual(expected('functions.invocation-stats', rows).totals);
    expect(got.totals.slice(0, 2)).toEqual(['7', '1']);
    for (const painted of got.charts) expect(painted).toBeGreaterThan(1_000);
    // Shown by the stream: the page asked the JSON answer once, when the view opened.
    expect(gets).toHaveLength(1);
    await page.screenshot({ path: join(SHOTS, 'live-update.png'), fullPage: true });
    await page.close();
    expect(consoleErrors).toEqual([]);
  }, 60_000);
});
