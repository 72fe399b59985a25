/**
 * PII redaction (docs/API.md; issues 11 and 31): `LF-ENDPOINT-REDACT-PII` over the record's
 * `redact_pii`; every IPv4 and IPv6 address in any string of the rows, nested metadata included,
 * becomes `REDACTED`. Time is not asserted: `npm run bench:redact` prints it (BENCHMARKS.md, "PII
 * redaction").
 */
import { describe, expect, test } from 'vitest';
import { redactAddresses, redactText } from '../../src/text/redact-addresses.ts';
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
    // Leading zeros: inet_aton and many logs accept them (010 is octal 8: still an address).
    ['padded 010.000.000.001 end', 'padded REDACTED end'],
    ['mixed 192.168.001.010', 'mixed REDACTED'],
    ['long zeros 0000127.0.0.1', 'long zeros REDACTED'],
    ['mapped ::ffff:010.000.000.001', 'mapped REDACTED'],
  ])('%j -> %j', (text, redacted) => {
    expect(redactText(text)).toBe(redacted);
  });

  test.each([
    'at 10:15:30 on 2026-11-21',
    'version v1.2.3 and 999.1.1.1',
    'padded but too large 0256.1.1.1 and 1.2.3.0300',
    'mac aa:bb:cc:dd:ee:ff',
    'https://abcdefghijklmnopqrst.supabase.co/rest/v1/todos?select=*',
  ])('%j holds no address and is kept', (text) => {
    expect(redactText(text)).toBe(text);
  });
});

describe('redactAddresses', () => {
  test('addresses inside object keys are redacted, at any depth', () => {
    const value = JSON.parse(
      '{"seen": {"203.0.113.7": 1, "from 2001:db8::1 on": [{"010.0.0.1": "x"}]}, "plain": 2}',
    );
    expect(redactAddresses(value)).toEqual({
      seen: { REDACTED: 1, 'from REDACTED on': [{ REDACTED: 'x' }] },
      plain: 2,
    });
  });

  test('keys that redact to the same text are all kept, numbered in their order', () => {
    const value = JSON.parse(
      '{"10.0.0.1": "a", "REDACTED": "b", "10.0.0.2": "c", "REDACTED (2)": "d", "::1": "e"}',
    );
    const redacted = redactAddresses(value);
    expect(Object.entries(redacted)).toEqual([
      ['REDACTED', 'a'],
      ['REDACTED (2)', 'b'],
      ['REDACTED (3)', 'c'],
      ['REDACTED (2) (2)', 'd'],
      ['REDACTED (4)', 'e'],
    ]);
  });

  test('a __proto__ field is kept as a field (JSON.parse makes it one), and written back', () => {
    const value = JSON.parse('{"__proto__": {"ip": "10.0.0.1"}, "b": [{"__proto__": "::1"}]}');
    const redacted = redactAddresses(value);
    expect(JSON.stringify(redacted)).toBe(
      '{"__proto__":{"ip":"REDACTED"},"b":[{"__proto__":"REDACTED"}]}',
    );
    expect(Object.getPrototypeOf(redacted)).toBe(Object.prototype);
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
  // Written by hand: an object literal's __proto__ would set the prototype, not a field.
  const hostile = `{"id":"keys","timestamp":${TEST_NOW_US - 2_000_000},"project":"${PROJECT}",` +
    '"event_message":"m","metadata":[{"__proto__":{"client":"198.51.100.4"},' +
    '"by_address":{"010.000.000.001":1,"2001:db8::2":2}}]}';

  const logs = async (headers: Record<string, string>) => {
    const response = await read(app.call, LOGS, { headers });
    expect(response.status, response.body).toBe(200);
    return JSON.parse(response.body).result;
  };

  test('off by default (the records say redact_pii false): addresses come back as ingested', async () => {
    await read(app.call, '/api/ingest/edge', {
      method: 'POST',
      body: [JSON.stringify(event), JSON.stringify(long), hostile].join('\n'),
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

  test('true: addresses in keys and leading-zero forms are REDACTED, a __proto__ field is kept', async () => {
    const response = await read(app.call, LOGS, { headers: { 'LF-ENDPOINT-REDACT-PII': 'true' } });
    expect(response.body).toContain(
      '"metadata":[{"__proto__":{"client":"REDACTED"},"by_address":{"REDACTED":1,"REDACTED (2)":2}}]',
    );
    expect(response.body).not.toContain('010.000.000.001');
  });

  test('the header value is read in any letter case; other values leave the record setting', async () => {
    const upper = await logs({ 'LF-ENDPOINT-REDACT-PII': 'TRUE' });
    expect(JSON.stringify(upper)).not.toContain('203.0.113.7');
    const other = await logs({ 'LF-ENDPOINT-REDACT-PII': 'yes' });
    expect(JSON.stringify(other)).toContain('203.0.113.7');
  });
});
