/**
 * When watched answers (api/live/live-answers.ts) are computed again. A stream that joins with a
 * first answer other than the watch's last (read before or after the watch's last computation: a
 * `GET` may reuse an answer) gets the answer of the moment next, never an older one after a newer,
 * and a stream that has it already is not sent it again. Answers signalled together (one commit
 * signals every answer of its project) are computed a bounded number at a time, each once. One
 * answer is never computed twice at once (two computations could end, and push, in either order).
 */
import { describe, expect, test, vi } from 'vitest';
import type { Computed } from '../../../api/answer/answer.ts';
import { EventStream } from '../../../api/live/event-stream.ts';
import { LiveAnswers, MAX_COMPUTING, type WatchedAnswer } from '../../../api/live/live-answers.ts';
import type { LiveMetrics } from '../../../api/live/live-metrics.ts';
import { type EndpointRecord, ENDPOINTS } from '../../../src/contract/registry.ts';
import { createLogger } from '../../../src/logger.ts';
import type { ChangeFeed } from '../../../src/store/changes.ts';

const COALESCE_MS = 5;
const firstRecord = ENDPOINTS[0];
if (firstRecord === undefined) throw new Error('no endpoint records');
const record: EndpointRecord = firstRecord;

function answerOf(version: number): Extract<Computed, { ok: true }> {
  return {
    ok: true,
    body: new TextEncoder().encode(`{"result":[{"v":${version}}]}`),
    etag: `"v${version}"`,
    truncated: null,
  };
}

/** A feed whose signals the test sends. */
function testFeed(): ChangeFeed & { signal(): void } {
  const listeners = new Set<() => void>();
  return {
    watch: (_channel, listener) => {
      listeners.add(listener);
      return Promise.resolve(() => Promise.resolve());
    },
    onReconnect: () => undefined,
    close: () => Promise.resolve(),
    signal: () => {
      for (const listener of listeners) listener();
    },
  };
}

const metrics: LiveMetrics = {
  countPush: () => undefined,
  countRecompute: () => undefined,
  countRecomputeFailure: () => undefined,
  countSignal: () => undefined,
  countSubscribeFailure: () => undefined,
  countRefused: () => undefined,
  countEnd: () => undefined,
};

/** A stream whose sent events the test reads as the versions they carry. */
function recordedStream(): { stream: EventStream; versions: number[] } {
  const versions: number[] = [];
  const stream = new EventStream({ maxBufferedBytes: 1 << 20, onEnd: () => undefined });
  stream.attach({
    write: (bytes) => {
      const match = /"v":(\d+)/.exec(new TextDecoder().decode(bytes));
      if (match !== null) versions.push(Number(match[1]));
    },
    queuedBytes: () => 0,
    end: () => undefined,
    cut: () => undefined,
  });
  return { stream, versions };
}

function watchedOf(project: string): WatchedAnswer {
  return {
    key: 'k',
    record,
    params: new URLSearchParams(),
    redactPii: false,
    project,
    slideMs: 3_600_000,
  };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, COALESCE_MS * 6));

describe('a stream joining a watched answer', () => {
  test('gets the answer of the moment after its first, whichever of the two is newer', async () => {
    let now = 1;
    const feed = testFeed();
    const live = new LiveAnswers({
      answer: () => Promise.resolve(answerOf(now)),
      changes: feed,
      nowMs: () => 0,
      coalesceMs: COALESCE_MS,
      metrics,
      logger: createLogger('silent'),
    });
    const watched: WatchedAnswer = {
      key: 'k',
      record,
      params: new URLSearchParams(),
      redactPii: false,
      project: 'p',
      slideMs: 3_600_000,
    };
    const a = recordedStream();
    live.join(watched, a.stream, answerOf(1));
    await settle();
    now = 2;
    feed.signal();
    await settle();
    expect(a.versions).toEqual([1, 2]);

    // Its first answer older than the watch's (a GET reused one read before version 2).
    const b = recordedStream();
    live.join(watched, b.stream, answerOf(1));
    await settle();
    expect(b.versions).toEqual([1, 2]);

    // Its first answer newer than the watch's: never the older one after it; the others get it.
    now = 3;
    const c = recordedStream();
    live.join(watched, c.stream, answerOf(3));
    await settle();
    expect(c.versions).toEqual([3]);
    expect(a.versions).toEqual([1, 2, 3]);
    expect(b.versions).toEqual([1, 2, 3]);
    live.close();
  });
});

describe('answers signalled together', () => {
  test(`are computed at most ${MAX_COMPUTING} at once, each of them once`, async () => {
    const feed = testFeed();
    let running = 0;
    let most = 0;
    const computed = new Map<string, number>();
    const live = new LiveAnswers({
      answer: async (_record, params) => {
        running++;
        most = Math.max(most, running);
        await new Promise((resolve) => setTimeout(resolve, 1));
        running--;
        const key = params.toString();
        computed.set(key, (computed.get(key) ?? 0) + 1);
        return answerOf(2);
      },
      changes: feed,
      nowMs: () => 0,
      coalesceMs: COALESCE_MS,
      metrics,
      logger: createLogger('silent'),
    });
    const streams = Array.from({ length: 100 }, (_, i) => {
      const params = new URLSearchParams({ n: String(i) });
      const watched: WatchedAnswer = {
        key: params.toString(),
        record,
        params,
        redactPii: false,
        project: 'p',
        slideMs: 3_600_000,
      };
      const stream = recordedStream();
      live.join(watched, stream.stream, answerOf(1));
      return stream;
    });
    await settle();
    feed.signal();
    await vi.waitFor(() => expect(computed.size).toBe(100), { timeout: 5_000 });
    await settle();
    expect(most).toBe(MAX_COMPUTING);
    expect([...computed.values()]).toEqual(Array.from({ length: 100 }, () => 1));
    for (const { versions } of streams) expect(versions).toEqual([1, 2]);
    live.close();
  });
});

describe('one watched answer', () => {
  test('is never computed twice at once (a signal due while its window slides)', async () => {
    const feed = testFeed();
    let running = 0;
    let most = 0;
    let computations = 0;
    const live = new LiveAnswers({
      answer: async () => {
        running++;
        most = Math.max(most, running);
        await new Promise((resolve) => setTimeout(resolve, 40));
        running--;
        computations++;
        return answerOf(computations + 1);
      },
      changes: feed,
      // The window slides every 25 ms (a step of 20, 5 past the boundary, at time 0).
      nowMs: () => 0,
      coalesceMs: 30,
      metrics,
      logger: createLogger('silent'),
    });
    const { stream } = recordedStream();
    live.join({ ...watchedOf('p'), slideMs: 20 }, stream, answerOf(1));
    await Promise.resolve();
    // Due at 30 ms; the window slides at 25 ms and its computation lasts 40.
    feed.signal();
    await vi.waitFor(() => expect(computations).toBeGreaterThanOrEqual(4), { timeout: 5_000 });
    live.close();
    expect(most).toBe(1);
  });
});
