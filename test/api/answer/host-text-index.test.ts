/**
 * The flat text index of hosts finds exactly the hosts `includes` finds.
 */
import { describe, expect, test } from 'vitest';
import fc from 'fast-check';
import { HostTextIndex } from '../../../api/answer/host-text-index.ts';

const never = () => false;

describe('HostTextIndex', () => {
  test('finds every host containing the literal once, first and last hosts included', () => {
    const hosts = ['aaa.io', 'b.aa', 'ccc', 'xaax', 'aa'].map((host) => ({ host }));
    const index = new HostTextIndex(hosts);
    expect(index.find('aa', never)?.map((entry) => entry.host)).toEqual([
      'aaa.io',
      'b.aa',
      'xaax',
      'aa',
    ]);
    expect(index.find('c.b', never)).toEqual([]);
    // Never across two hosts: 'io\nb' is not searchable, 'iob' is in no host.
    expect(index.find('iob', never)).toEqual([]);
    expect(HostTextIndex.searchable('io\nb')).toBe(false);
    expect(HostTextIndex.searchable('')).toBe(false);
    expect(new HostTextIndex([]).find('a', never)).toEqual([]);
  });

  test('equals a search host by host, for any hosts and literal', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: fc.constantFrom('a', 'b', '.', '-'), maxLength: 8 }), {
          maxLength: 30,
        }),
        fc.string({ unit: fc.constantFrom('a', 'b', '.'), minLength: 1, maxLength: 3 }),
        (hosts, literal) => {
          const entries = hosts.map((host, i) => ({ host, i }));
          const found = new HostTextIndex(entries).find(literal, never);
          expect(found).toEqual(entries.filter((entry) => entry.host.includes(literal)));
        },
      ),
    );
  });

  test('stops with null when the budget says so', () => {
    const hosts = Array.from({ length: 3_000 }, () => ({ host: 'a.supabase.co' }));
    expect(new HostTextIndex(hosts).find('supabase', () => true)).toBeNull();
  });
});
