import { describe, expect, test } from 'vitest';
import { readBody, splitBody } from '../../../api/ingest/body.ts';

const bytes = (text: string) => new TextEncoder().encode(text);
const LIMITS = { maxItems: 5, maxDepth: 4 };
const split = (text: string) => splitBody(bytes(text), LIMITS);

describe('splitBody', () => {
  test('NDJSON: physical line numbers, blank lines and CR skipped', () => {
    expect(split('{"a":1}\r\n\n  \n{"b":2}')).toEqual([
      { line: 1, text: '{"a":1}\r' },
      { line: 4, text: '{"b":2}' },
    ]);
  });

  test('one JSON object over several lines is one event, numbered by the line it starts on', () => {
    expect(split('\n{\n  "a": [1,\n 2],\n  "b": "}\\"\n"\n}\n')).toEqual([
      { line: 2, text: '{\n  "a": [1,\n 2],\n  "b": "}\\"\n"\n}' },
    ]);
  });

  test.each([
    ['{"a":1}\n{"b":2}', [1, 2]],
    ['{"a":\n1}\n{"b":2}', [1, 2, 3]],
    ['{"a":1}}', [1]],
    ['{"a":[[[[[1]]]]]}\n', [1]],
  ])('a body that is not one object is NDJSON: %j', (text, lines) => {
    expect(split(text).map((item) => item.line)).toEqual(lines);
  });

  test('a JSON array: elements numbered from 1, each as sent', () => {
    expect(split(' [ {"a": 1}, 2 ] ')).toEqual([
      { line: 1, text: '{"a": 1}' },
      { line: 2, text: '2' },
    ]);
    expect(split('[]')).toEqual([]);
  });

  test('strings may hold brackets, commas and escaped quotes', () => {
    expect(split('[{"a":"],[{\\"x"}, "b\\\\", {"c":"\\"}"}]')).toEqual([
      { line: 1, text: '{"a":"],[{\\"x"}' },
      { line: 2, text: '"b\\\\"' },
      { line: 3, text: '{"c":"\\"}"}' },
    ]);
  });

  test.each(['', ' \n ', 'x', '[1,', '"s"', '[1,]', '[1,,2]', '[1] 2', '[1}', '[[[[[1]]]]]'])(
    '%j is invalid_body',
    (text) => {
      expect(() => split(text)).toThrow(expect.objectContaining({ code: 'invalid_body' }));
    },
  );

  test('more items than the limit is payload_too_large, in either form', () => {
    expect(split('[1,2,3,4,5]')).toHaveLength(5);
    expect(() => split('[1,2,3,4,5,6]')).toThrow(
      expect.objectContaining({ code: 'payload_too_large' }),
    );
    expect(() => split('{}\n{}\n\n{}\n{}\n{}\n{}')).toThrow(
      expect.objectContaining({ code: 'payload_too_large' }),
    );
  });

  test('bytes that are not UTF-8 are invalid_body, a U+FFFD the sender wrote is kept', () => {
    const invalid = new Uint8Array([...bytes('{"a":"'), 0xed, 0xa0, 0x80, ...bytes('"}')]);
    expect(() => splitBody(invalid, LIMITS)).toThrow(
      expect.objectContaining({ code: 'invalid_body' }),
    );
    expect(split('{"a":"\uFFFD"}')).toEqual([{ line: 1, text: '{"a":"\uFFFD"}' }]);
  });

  test('a UTF-8 BOM is tolerated', () => {
    expect(splitBody(new Uint8Array([0xef, 0xbb, 0xbf, ...bytes('{"a":1}')]), LIMITS)).toHaveLength(
      1,
    );
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
