/**
 * A Logflare source's ring-buffer member read back (`sourceLogEntry`): written by
 * `RecentLogMembers` as an edge entry is, read whatever its id holds, refused when corrupt.
 */
import { describe, expect, test } from 'vitest';
import { RecentLogMembers, sourceLogEntry } from '../../src/rollup/recent-logs.ts';
import type { SourceLogEvent } from '../../src/events/types.ts';
import { memberText } from '../../src/store/member-text.ts';

function event(id: string): SourceLogEvent {
  return {
    source: 'logflare',
    sourceName: 'gotrue.logs.prod',
    id,
    timestampUs: 1_795_256_130_123_456,
    project: 'default',
    text: JSON.stringify({ id, event_message: 'a { and a \u0000 escaped', project: 'default' }),
    edge: null,
  };
}

describe('sourceLogEntry', () => {
  test.each(['plain', 'with {braces}', 'with a \u0000 NUL', 'ünïcödé'])('an id %s', (id) => {
    const written = new RecentLogMembers('logs.source.gotrue.logs.prod/3').of(event(id), 42);
    const member = typeof written.member === 'string'
      ? new TextEncoder().encode(written.member)
      : written.member;
    expect(sourceLogEntry(member)).toEqual({
      id,
      timestampUs: 1_795_256_130_123_456,
      text: event(id).text,
    });
    expect(memberText(written.member)).toContain(event(id).text);
  });

  test('a corrupt member is named', () => {
    expect(() => sourceLogEntry(new TextEncoder().encode('no separators at all')))
      .toThrow(/source log member is malformed: no separators at all/);
    expect(() => sourceLogEntry(new TextEncoder().encode('a\u0000p\u0000x1\u0000{}')))
      .toThrow(/malformed/);
  });
});
