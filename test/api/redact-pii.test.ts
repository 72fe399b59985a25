/**
 * PII redaction (CONTRACT section 4, issue 11): `LF-ENDPOINT-REDACT-PII` over the record's
 * `redact_pii`; every IPv4 and IPv6 address in any string of the rows, nested metadata included,
 * becomes `REDACTED`. Time is not asserted: `npm run bench:hostile` style figures live in
 * BENCHMARKS.md.
 */
import { describe, expect, test } from 'vitest';
import { redactText } from '../../src/text/redact-addresses.ts';
import { TEST_NOW_US, testApp } from './helpers/app.ts';
import { read } from './helpers/http.ts';

const PROJECT = 'piiprojectref0000000';
const LOGS = `/api/endpoints/query/logs.all?project=${PROJECT}&project_tier=PRO`;

describe('redactText', () => {
  test.each([
    ['GET | 200 | 203.0.113.7 | /rest/v1/t', 'GET | 200 | REDACTED | /rest/v1/t'],
    ['client 2001:db8::1 via ::1', 'client REDACTED via REDACTED'],
    ['full 2001:0db8:85a3:0000:0000:8a2e:0370:7334 end', 'full REDACTED end'],
    ['mapped ::ffff:192.0.2.1', 'mapped REDACTED'],
    ['link fe80::1ff:fe23:4567:890a%eth0', 'link REDACTED%eth0'],
    ['with port 192.168.1.1:8080', 'with port REDACTED:8080'],
    ['bracketed [2001:db8::7]:443', 'bracketed [REDACTED]:443'],
  ])('%j -> %j', (text, redacted) => {
    expect(redactText(text)).toBe(redacted);
  });

  test.each([
    'at 10:15:30 on 2026-11-21',
    'version v1.2.3 and 999.1.1.1',
    'mac aa:bb:cc:dd:ee:ff',
    'https://abcdefghijklmnopqrst.supabase.co/rest/v1/todos?select=*',
  ])('%j holds no address and is kept', (text) => {
    expect(redactText(text)).toBe(text);
  });
});

describe('LF-ENDPOINT-REDACT-PII on logs.all', () => {
  const app = testApp();
  const event = {
    id: 'pii-1',
    timestamp: TEST_NOW_US - 1_000_000,
    project: PROJECT,
    event_message: 'GET | 200 | 203.0.113.7 | https://x.supabase.co/rest/v1/t',
    metadata: [{
      request: [{ headers: { x_forwarded_for: '198.51.100.4, 2001:db8::beef' }, path: '/rest' }],
      response: [{ status_code: 200 }],
      deep: [{ deeper: { ip: 'fe80::1' } }],
    }],
  };
  const long = { ...event, id: 'long', metadata: [{ note: 'x:y.'.repeat(25_000) }] };

  const logs = async (headers: Record<string, string>) => {
    const response = await read(app.call, LOGS, { headers });
    expect(response.status, response.body).toBe(200);
    return JSON.parse(response.body).result;
  };

  test('off by default (the records say redact_pii false): addresses come back as ingested', async () => {
    await read(app.call, '/api/ingest/edge', {
      method: 'POST',
      body: [JSON.stringify(event), JSON.stringify(long)].join('\n'),
    });
    const listing = JSON.parse((await read(app.call, '/api/endpoints')).body).result;
    expect(listing.map((record: { redact_pii: boolean }) => record.redact_pii)).toEqual([
      false,
      false,
      false,
    ]);
    const rows = await logs({});
    expect(rows.find((row: { id: string }) => row.id === 'pii-1').event_message).toContain(
      '203.0.113.7',
    );
    expect(await logs({ 'LF-ENDPOINT-REDACT-PII': 'false' })).toEqual(rows);
  });

  test('true: every address in the message and in nested metadata is REDACTED', async () => {
    const rows = await logs({ 'LF-ENDPOINT-REDACT-PII': 'true' });
    const row = rows.find((r: { id: string }) => r.id === 'pii-1');
    expect(row.event_message).toBe('GET | 200 | REDACTED | https://x.supabase.co/rest/v1/t');
    expect(row.metadata[0].request[0].headers.x_forwarded_for).toBe('REDACTED, REDACTED');
    expect(row.metadata[0].deep[0].deeper.ip).toBe('REDACTED');
    expect(row.metadata[0].response).toEqual([{ status_code: 200 }]);
    expect(row.timestamp).toBe(TEST_NOW_US - 1_000_000);
    // A 100 KB string without addresses is answered, and kept as it was.
    expect(rows.find((r: { id: string }) => r.id === 'long').metadata).toEqual(long.metadata);
  });

  test('the header value is read in any letter case; other values leave the record setting', async () => {
    const upper = await logs({ 'LF-ENDPOINT-REDACT-PII': 'TRUE' });
    expect(JSON.stringify(upper)).not.toContain('203.0.113.7');
    const other = await logs({ 'LF-ENDPOINT-REDACT-PII': 'yes' });
    expect(JSON.stringify(other)).toContain('203.0.113.7');
  });
});
