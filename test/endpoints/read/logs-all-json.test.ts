/**
 * `logs.all` as the bytes the HTTP API sends: the rows read as values, written from the stored
 * entries' bytes, with an unreadable entry skipped (and reported) wherever it stands and the row
 * cap counting only the rows written.
 */
import { describe, expect, test } from 'vitest';
import { answerEndpoint, answerEndpointJson, framedRows } from '../../../src/endpoints/registry.ts';
import type { ReadContext } from '../../../src/endpoints/read/context.ts';
import { DEFAULT_MAX_FUTURE_SKEW_US } from '../../../src/events/parse.ts';
import { Buffer } from 'node:buffer';
import { parse } from '../../../src/events/parse.ts';
import { recentLogsKey } from '../../../src/rollup/keys.ts';
import { RecentLogMembers } from '../../../src/rollup/recent-logs.ts';
import type { UnreadableState } from '../../../src/rollup/unreadable.ts';
import { MemoryStore } from '../../../src/store/memory.ts';

const NOW_US = 1_795_000_000_000_000;
const PROJECT = 'logsallbytesproject';

function member(id: string, ageS: number, raw: string): { score: number; member: string } {
  const timestampUs = NOW_US - ageS * 1_000_000;
  return {
    score: timestampUs,
    member: `${id}\u0000000000000000000${ageS}@s\u0000${timestampUs}\u0000${raw}`,
  };
}

async function answers(members: { score: number; member: string }[], query: string) {
  const store = new MemoryStore({ nowMs: () => NOW_US / 1000 });
  await store.updateSortedSet({
    key: recentLogsKey(PROJECT),
    members,
    mode: 'add',
    keepHighest: null,
    dropBelow: null,
    expireAtMs: null,
  });
  const unreadable: UnreadableState[] = [];
  const context: ReadContext = {
    store,
    nowUs: NOW_US,
    maxFutureSkewUs: DEFAULT_MAX_FUTURE_SKEW_US,
    onUnreadable: (state) => unreadable.push(state),
  };
  const params = () => new URLSearchParams(`project=${PROJECT}&project_tier=PRO&${query}`);
  const values = await answerEndpoint('logs.all', params(), context);
  const sent = await answerEndpointJson('logs.all', params(), context, { maxRows: 2 });
  if (!values.ok || !sent.ok) throw new Error('expected rows');
  return { rows: values.rows, sent: new TextDecoder().decode(sent.json), unreadable };
}

describe('logs.all sent as bytes', () => {
  const good = (id: string, ageS: number) =>
    member(id, ageS, JSON.stringify({ id, event_message: `é ${id}`, metadata: [{ n: ageS }] }));

  test('skips an unreadable entry wherever it stands and caps the rows written', async () => {
    for (const badAge of [1, 2, 3]) {
      const bad = member('bad', badAge, '{"id":"bad","metadata":');
      const entries = [good('a', 0.5), bad, good('b', 2.5), good('c', 3.5)];
      const { rows, sent, unreadable } = await answers(entries, '');
      expect(JSON.parse(sent), `bad entry ${badAge} s old`).toEqual(rows.slice(0, 2));
      expect(rows.map((row) => row.id)).toEqual(['a', 'b', 'c']);
      // Reported by both reads, unless the sent one had its 2 rows before reaching it.
      expect(unreadable.map((state) => state.key)).toEqual(
        Array(badAge < 2.5 ? 2 : 1).fill(recentLogsKey(PROJECT)),
      );
    }
  });

  test('an answer without rows, or with only unreadable ones, is an empty array', async () => {
    expect((await answers([], '')).sent).toBe('[]');
    expect((await answers([member('bad', 1, 'not json')], '')).sent).toBe('[]');
  });

  test('the answer is written inside its frame', async () => {
    const store = new MemoryStore({ nowMs: () => NOW_US / 1000 });
    await store.updateSortedSet({
      key: recentLogsKey(PROJECT),
      members: [good('a', 1), good('b', 2)],
      mode: 'add',
      keepHighest: null,
      dropBelow: null,
      expireAtMs: null,
    });
    const context = { store, nowUs: NOW_US, maxFutureSkewUs: DEFAULT_MAX_FUTURE_SKEW_US };
    const params = new URLSearchParams(`project=${PROJECT}&project_tier=PRO`);
    const frame = { before: '{"result":', after: ',"n":"é"}' };
    const sent = await answerEndpointJson('logs.all', params, context, { frame });
    const values = await answerEndpoint('logs.all', params, context);
    if (!sent.ok || !values.ok) throw new Error('expected rows');
    expect(new TextDecoder().decode(sent.json)).toBe(
      `{"result":${JSON.stringify(values.rows)},"n":"é"}`,
    );
  });

  test('a single row is sent without a comma, with multi-byte text intact', async () => {
    const { rows, sent } = await answers([good('only', 1)], '');
    expect(sent).toBe(JSON.stringify(rows));
    expect(sent).toContain('"event_message":"é only"');
  });
});

describe('logs.all within a byte limit', () => {
  const entry = (id: string, ageS: number) =>
    member(id, ageS, JSON.stringify({ id, event_message: `é ${'x'.repeat(ageS * 7)}` }));

  test('at every limit, the answer is the longest run of first rows that fits, each whole', async () => {
    const store = new MemoryStore({ nowMs: () => NOW_US / 1000 });
    await store.updateSortedSet({
      key: recentLogsKey(PROJECT),
      members: [entry('a', 1), entry('b', 2), entry('c', 3), entry('d', 4)],
      mode: 'add',
      keepHighest: null,
      dropBelow: null,
      expireAtMs: null,
    });
    const context = { store, nowUs: NOW_US, maxFutureSkewUs: DEFAULT_MAX_FUTURE_SKEW_US };
    const params = new URLSearchParams(`project=${PROJECT}&project_tier=PRO`);
    const frame = { before: '{"result":', after: '}' };
    const values = await answerEndpoint('logs.all', params, context);
    if (!values.ok) throw new Error('expected rows');
    const framed = (rows: unknown[]) =>
      new TextEncoder().encode(`{"result":${JSON.stringify(rows)}}`).byteLength;
    const whole = framed(values.rows);
    for (let maxBytes = framed([]); maxBytes <= whole + 2; maxBytes++) {
      const sent = await answerEndpointJson('logs.all', params, context, { frame, maxBytes });
      if (!sent.ok) throw new Error('expected rows');
      let fits = values.rows.length;
      while (framed(values.rows.slice(0, fits)) > maxBytes) fits--;
      const expected = values.rows.slice(0, fits);
      expect(JSON.parse(new TextDecoder().decode(sent.json)), `${maxBytes} bytes`).toEqual({
        result: expected,
      });
      expect(sent.json.byteLength).toBeLessThanOrEqual(maxBytes);
      expect([sent.rows, sent.truncated]).toEqual([fits, fits < values.rows.length]);
    }
  });

  test('other endpoints are cut the same way, by whole rows', () => {
    const texts = ['{"a":1}', '{"a":22}', '{"a":333}'];
    const frame = { before: '{"result":', after: '}' };
    const cases: [number, number][] = [[13, 0], [19, 0], [20, 1], [28, 1], [29, 2], [38, 2], [
      39,
      3,
    ]];
    for (const [maxBytes, rows] of cases) {
      const sent = framedRows(texts, frame, maxBytes);
      expect(new TextDecoder().decode(sent.json)).toBe(
        `{"result":[${texts.slice(0, rows).join(',')}]}`,
      );
      expect([sent.rows, sent.truncated]).toEqual([rows, rows < 3]);
    }
  });
});

describe('an event held in both forms (written before the row form, then replayed)', () => {
  test('is answered once, and the answer still holds the newest 100 events', async () => {
    const store = new MemoryStore({ nowMs: () => NOW_US / 1000 });
    const members = new RecentLogMembers('logs.edge/0');
    const written: { score: number; member: string | Uint8Array }[] = [];
    for (let i = 0; i < 150; i++) {
      const raw = JSON.stringify({
        id: `e${String(i).padStart(3, '0')}`,
        timestamp: NOW_US - (i % 50) * 1_000_000,
        project: PROJECT,
        event_message: `GET ${i}`,
        metadata: [{ i }],
      });
      const parsed = parse(raw, 'edge', { nowUs: NOW_US });
      if (!parsed.ok) throw new Error(parsed.rejection.reason);
      if (parsed.event.source !== 'edge') throw new Error('not edge');
      const rowForm = members.of(parsed.event, i);
      written.push(rowForm);
      // The first 60 events also as the version before wrote them: the head, then the text.
      const member = rowForm.member as Uint8Array;
      const head = member.subarray(0, member.lastIndexOf(0) + 1);
      if (i < 60) {
        written.push({ score: rowForm.score, member: Buffer.concat([head, Buffer.from(raw)]) });
      }
    }
    await store.updateSortedSet({
      key: recentLogsKey(PROJECT),
      members: written,
      mode: 'add',
      keepHighest: null,
      dropBelow: null,
      expireAtMs: null,
    });
    const context: ReadContext = {
      store,
      nowUs: NOW_US,
      maxFutureSkewUs: DEFAULT_MAX_FUTURE_SKEW_US,
    };
    const params = () => new URLSearchParams(`project=${PROJECT}&project_tier=PRO`);
    const values = await answerEndpoint('logs.all', params(), context);
    const sent = await answerEndpointJson('logs.all', params(), context);
    if (!values.ok || !sent.ok) throw new Error('expected rows');
    const ids = values.rows.map((row) => row.id);
    expect(ids).toHaveLength(100);
    expect(new Set(ids).size).toBe(100);
    expect(JSON.parse(new TextDecoder().decode(sent.json))).toEqual(values.rows);
    // Newest first: the 150 events span 50 seconds, three per second.
    expect(
      values.rows.every((row, i) =>
        i === 0 || row.timestamp <= (values.rows[i - 1]?.timestamp ?? 0)
      ),
    ).toBe(true);
  });
});
