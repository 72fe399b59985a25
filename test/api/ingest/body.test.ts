import { describe, expect, test } from 'vitest';
import { readBody, splitBody } from '../../../api/ingest/body.ts';
import { HttpError } from '../../../api/errors.ts';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('splitBody', () => {
  test('NDJSON: physical line numbers, blank lines and CR skipped', () => {
    expect(splitBody(bytes('{"a":1}\r\n\n  \n{"b":2}'))).toEqual([
      { line: 1, text: '{"a":1}\r' },
      { line: 4, text: '{"b":2}' },
    ]);
  });

  test('a JSON array: elements numbered from 1, re-serialized', () => {
    expect(splitBody(bytes(' [ {"a": 1}, 2 ] '))).toEqual([
      { line: 1, text: '{"a":1}' },
      { line: 2, text: '2' },
    ]);
  });

  test.each(['', ' \n ', 'x', '[1,', '"s"'])('%j is invalid_body', (text) => {
    expect(() => splitBody(bytes(text))).toThrow(HttpError);
  });

  test('a UTF-8 BOM is tolerated', () => {
    expect(splitBody(new Uint8Array([0xef, 0xbb, 0xbf, ...bytes('{"a":1}')]))).toHaveLength(1);
  });
});

describe('readBody', () => {
  test('reads within the limit and refuses beyond it', async () => {
    const request = (body: string) => new Request('http://x/', { method: 'POST', body });
    expect(new TextDecoder().decode(await readBody(request('hello'), 5))).toBe('hello');
    await expect(readBody(request('hello!'), 5)).rejects.toMatchObject({
      code: 'payload_too_large',
    });
    expect(await readBody(new Request('http://x/'), 5)).toHaveLength(0);
  });
});
