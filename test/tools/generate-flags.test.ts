import { describe, expect, it } from 'vitest';
import { FlagError, parseGenerateFlags } from '../../tools/generate-flags.ts';

const NOW = 1_795_256_130_000_000;

describe('parseGenerateFlags', () => {
  it('reads every flag', () => {
    const command = parseGenerateFlags(
      [
        '--seed',
        '7',
        '--events',
        '1000',
        '--out',
        'data',
        '--span',
        '15m',
        '--now',
        '2026-11-21T10:15:30Z',
        '--out-of-order',
        '0.05',
        '--invalid',
        '0.01',
        '--projects',
        '50',
        '--edge-share',
        '0.5',
      ],
      0,
    );
    expect(command).toEqual({
      out: 'data',
      options: {
        seed: 7,
        events: 1000,
        spanUs: 900_000_000,
        nowUs: NOW,
        outOfOrder: 0.05,
        invalid: 0.01,
        projects: 50,
        edgeShare: 0.5,
      },
    });
  });

  it('defaults the optional flags, with the injected clock for --now', () => {
    expect(parseGenerateFlags(['--events=10', '--out=d'], NOW)).toEqual({
      out: 'd',
      options: {
        seed: 1,
        events: 10,
        spanUs: 3_600_000_000,
        nowUs: NOW,
        outOfOrder: 0,
        invalid: 0,
        projects: 1000,
        edgeShare: 0.7,
      },
    });
  });

  it('returns null for --help', () => {
    expect(parseGenerateFlags(['--help'], NOW)).toBeNull();
  });

  it.each([
    [['--out', 'd'], '--events is required'],
    [['--events', '5'], '--out is required'],
    [['--events', 'many', '--out', 'd'], '--events must be an integer >= 0: got "many"'],
    [['--events', '1.5', '--out', 'd'], '--events must be an integer >= 0: got "1.5"'],
    [['--events=-3', '--out', 'd'], '--events must be an integer >= 0: got "-3"'],
    [['--events', '5', '--out', 'd', '--seed', 'x'], '--seed must be an integer'],
    [
      ['--events', '5', '--out', 'd', '--span', '1y'],
      '--span: a duration must be an integer followed by',
    ],
    [['--events', '5', '--out', 'd', '--span', '0s'], '--span: a span must be longer than zero'],
    [
      ['--events', '5', '--out', 'd', '--now', '2026-11-21'],
      '--now must be an RFC 3339 timestamp with a zone',
    ],
    [
      ['--events', '5', '--out', 'd', '--invalid', '1.5'],
      '--invalid must be a number from 0 to 1: got "1.5"',
    ],
    [
      ['--events', '5', '--out', 'd', '--out-of-order', ''],
      '--out-of-order must be a number from 0 to 1',
    ],
    [
      ['--events', '5', '--out', 'd', '--projects', '0'],
      '--projects must be an integer >= 1: got "0"',
    ],
    [['--events', '5', '--out', 'd', '--bogus'], "Unknown option '--bogus'"],
    [['--events', '5', '--out', 'd', 'extra'], 'extra'],
  ])('refuses %j', (args, message) => {
    expect(() => parseGenerateFlags(args, NOW)).toThrow(FlagError);
    expect(() => parseGenerateFlags(args, NOW)).toThrow(message);
  });
});
