import { describe, expect, it } from 'vitest';
import { parseLogsAllParams } from '../../../src/contract/params/logs-all.ts';
import { us } from '../../fixtures/events.ts';

const DAY = 86_400_000_000;

describe('parseLogsAllParams', () => {
  it.each([
    ['', 'missing_parameter', 'project'],
    ['project_tier=PRO', 'missing_parameter', 'project'],
    ['project=&project_tier=PRO', 'missing_parameter', 'project'],
    [
      'project=p&project_tier=PRO&iso_timestamp_start=yesterday',
      'invalid_parameter',
      'iso_timestamp_start',
    ],
    [
      'project=p&project_tier=PRO&iso_timestamp_end=2026-02-30',
      'invalid_parameter',
      'iso_timestamp_end',
    ],
  ])('%j -> %s %s', (query, code, parameter) => {
    const result = parseLogsAllParams(new URLSearchParams(query));
    expect(result.ok ? null : [result.error.code, result.error.parameter]).toEqual([
      code,
      parameter,
    ]);
  });

  it.each(['project=p', 'project=p&project_tier=', 'project=p&project_tier=PRO&sql=x&lql='])(
    '%j: an absent or empty project_tier falls back to FREE; sql and lql are ignored',
    (query) => {
      const result = parseLogsAllParams(new URLSearchParams(query));
      expect(result.ok && result.params.tier).toBe(query.includes('PRO') ? 'PRO' : 'FREE');
    },
  );

  it('explains an unparseable timestamp', () => {
    const result = parseLogsAllParams({
      project: 'p',
      project_tier: 'PRO',
      iso_timestamp_start: 'yesterday',
    });
    expect(result.ok ? '' : result.error.message).toBe(
      'invalid parameter "iso_timestamp_start": expected an RFC 3339 timestamp such as 2026-11-21T10:15:00Z (without a zone it is taken as UTC); got "yesterday"',
    );
  });

  it.each([
    ['FREE', 'FREE', DAY],
    ['PRO', 'PRO', 7 * DAY],
    ['PAYG', 'PAYG', 90 * DAY],
    ['ENTERPRISE', 'ENTERPRISE', 90 * DAY],
    ['enterprise', 'FREE', DAY],
    ['GOLD', 'FREE', DAY],
  ])('tier %j -> %s, %d us', (projectTier, tier, retentionUs) => {
    const result = parseLogsAllParams({ project: 'p', project_tier: projectTier });
    expect(result).toEqual({
      ok: true,
      params: { project: 'p', tier, retentionUs, startUs: null, endUs: null },
    });
  });

  it.each([
    ['', null],
    ['2026-11-21T10:15:00Z', us('2026-11-21T10:15:00Z')],
    ['2026-11-21T10:15:00', us('2026-11-21T10:15:00Z')],
    ['2026-11-21T11:15:00+01:00', us('2026-11-21T10:15:00Z')],
    ['2026-11-21', us('2026-11-21T00:00:00Z')],
  ])('timestamp %j -> %j', (text, expected) => {
    const result = parseLogsAllParams({
      project: 'p',
      project_tier: 'PRO',
      iso_timestamp_start: text,
      iso_timestamp_end: text,
    });
    expect(result.ok && [result.params.startUs, result.params.endUs]).toEqual([expected, expected]);
  });

  it('reads a + offset even when the query string decoded it as a space', () => {
    const result = parseLogsAllParams(
      new URLSearchParams(
        'project=p&project_tier=PRO&iso_timestamp_start=2026-11-21T11:15:00+01:00',
      ),
    );
    expect(result.ok && result.params.startUs).toBe(us('2026-11-21T10:15:00Z'));
  });
});
