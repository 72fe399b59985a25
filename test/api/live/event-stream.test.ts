/**
 * A live stream's body (api/live/event-stream.ts): events framed as server-sent events (an
 * answer's line breaks on `data:` lines of their own), the same answer never sent twice in a
 * row, heartbeats, and a reader too slow cut once its queue passes the bound.
 */
import { describe, expect, test } from 'vitest';
import { eventBytes, EventStream, type StreamEnd } from '../../../api/live/event-stream.ts';
import { RECONNECT_MS, reconnectDelayMs } from '../../../api/live/live-setup.ts';

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
const bytes = (value: string) => new TextEncoder().encode(value);

describe('a live stream', () => {
  test('an event: its id, its data lines, a blank line', () => {
    expect(text(eventBytes(bytes('{"result":[]}'), '"e1"'))).toBe(
      'id: "e1"\ndata: {"result":[]}\n\n',
    );
    expect(text(eventBytes(bytes('{\n"a":1\r\n}'), '"e2"'))).toBe(
      'id: "e2"\ndata: {\ndata: "a":1\ndata: \ndata: }\n\n',
    );
  });

  test('sends an answer once, heartbeats when idle, and cuts a reader too slow', async () => {
    const ends: StreamEnd[] = [];
    const stream = new EventStream({
      maxBufferedBytes: 100,
      onEnd: (why) => ends.push(why),
    });
    const reader = stream.body().getReader();
    stream.send(bytes('{"n":1}'), '"1"');
    stream.send(bytes('{"n":1}'), '"1"');
    expect(text((await reader.read()).value ?? new Uint8Array())).toContain('{"n":1}');
    stream.heartbeat();
    expect(text((await reader.read()).value ?? new Uint8Array())).toBe(': heartbeat\n\n');
    // Nothing read from here: 3 answers of 80 bytes pass the bound of 100.
    for (let i = 2; i < 5; i++) {
      stream.send(bytes(`{"n":${i},"pad":"${'x'.repeat(60)}"}`), `"${i}"`);
    }
    expect(ends).toEqual(['slow_reader']);
    expect(stream.ended).toBe(true);
    await expect(reader.read()).rejects.toThrow('too long to read');
  });

  test('a client that goes away ends it once', async () => {
    const ends: StreamEnd[] = [];
    const stream = new EventStream({
      maxBufferedBytes: 100,
      onEnd: (why) => ends.push(why),
    });
    await stream.body().cancel();
    stream.close();
    expect(ends).toEqual(['client']);
  });

  test('tells its client first how long to wait before it reconnects', async () => {
    const stream = new EventStream({
      maxBufferedBytes: 100,
      onEnd: () => undefined,
      reconnectMs: 4_321,
    });
    const reader = stream.body().getReader();
    stream.send(bytes('{"n":1}'), '"1"');
    expect(text((await reader.read()).value ?? new Uint8Array())).toBe('retry: 4321\n\n');
    expect(text((await reader.read()).value ?? new Uint8Array())).toContain('data: {"n":1}');
  });

  test('reconnection delays are spread from 1 s to 10 s', () => {
    expect(reconnectDelayMs(() => 0)).toBe(RECONNECT_MS.min);
    expect(reconnectDelayMs(() => 0.5)).toBe(5_500);
    expect(reconnectDelayMs(() => 0.999_999)).toBeLessThan(RECONNECT_MS.max);
    expect(RECONNECT_MS).toEqual({ min: 1_000, max: 10_000 });
  });
});
