import { describe, expect, it } from 'vitest';
import { FlagError, parseReplayFlags } from '../../tools/replay/flags.ts';

describe('parseReplayFlags', () => {
  it('reads every flag', () => {
    expect(
      parseReplayFlags([
        'edge-2026-11-21.ndjson.gz',
        'function-edge.ndjson',
        '--speed',
        '2.5',
        '--loop',
        '3',
        '--rebase',
        'now',
        '--keys',
        'random',
        '--compression',
        'zstd',
      ]),
    ).toEqual({
      inputs: [
        { path: 'edge-2026-11-21.ndjson.gz', source: 'edge', gzip: true },
        { path: 'function-edge.ndjson', source: 'function-edge', gzip: false },
      ],
      pace: { kind: 'speed', factor: 2.5 },
      loops: 3,
      rebase: true,
      keys: 'random',
      compression: 'zstd',
      probe: null,
    });
  });

  it('has defaults: unpaced, once, as recorded, keyed by project', () => {
    expect(parseReplayFlags(['data/function-edge.ndjson'])).toEqual({
      inputs: [{ path: 'data/function-edge.ndjson', source: 'function-edge', gzip: false }],
      pace: { kind: 'unpaced' },
      loops: 1,
      rebase: false,
      keys: 'project',
      compression: 'none',
      probe: null,
    });
    expect(parseReplayFlags(['--rate', '5000', 'edge.ndjson'])?.pace).toEqual({
      kind: 'rate',
      eventsPerSecond: 5000,
    });
    expect(parseReplayFlags(['-', '--source', 'edge'])?.inputs).toEqual([
      { path: '-', source: 'edge', gzip: false },
    ]);
    expect(parseReplayFlags(['--help'])).toBeNull();
  });

  it.each([
    [[], /name at least one NDJSON file/],
    [['logs.ndjson'], /cannot tell the source of logs.ndjson/],
    [['edgy.ndjson'], /cannot tell the source of edgy.ndjson/],
    [['-'], /standard input \(-\) has no name to tell its source from: add --source/],
    [['-', '-', '--source', 'edge'], /standard input \(-\) can be read only once/],
    [['edge.ndjson', '--source', 'api'], /--source is edge or function-edge: got "api"/],
    [['edge.ndjson', '--rate', '0'], /--rate must be a number above 0: got "0"/],
    [['edge.ndjson', '--rate', 'fast'], /--rate must be a number above 0: got "fast"/],
    [['edge.ndjson', '--speed=-1'], /--speed must be a number above 0: got "-1"/],
    [['edge.ndjson', '--rate', '10', '--speed', '1'], /--rate and --speed exclude each other/],
    [['edge.ndjson', '--loop', '0'], /--loop must be an integer of at least 1: got "0"/],
    [['edge.ndjson', '--loop', '1.5'], /--loop must be an integer of at least 1: got "1.5"/],
    [['edge.ndjson', '--rebase', 'yesterday'], /--rebase takes one value, now: got "yesterday"/],
    [['-', '--source', 'edge', '--rebase', 'now'], /add --speed 1/],
    [['-', '--source', 'edge', '--loop', '2'], /can be played only once/],
    [['edge.ndjson', '--keys', 'hash'], /--keys is project or random: got "hash"/],
    [
      ['edge.ndjson', '--compression', 'brotli'],
      /--compression is none, gzip, snappy, lz4, zstd: got "brotli"/,
    ],
    [['edge.ndjson', '--fast'], /Unknown option '--fast'/],
    [['edge.ndjson', '--probe', 'localhost'], /--probe must be the API's base URL/],
    [['edge.ndjson', '--probe', 'ftp://x'], /--probe must be an http or https URL/],
    [
      ['edge.ndjson', '--report', 'r.json', '--probe-rate', '0'],
      /--probe-rate must be a number above 0/,
    ],
  ])('refuses %j with a message that says what to do', (args, message) => {
    expect(() => parseReplayFlags(args)).toThrow(FlagError);
    expect(() => parseReplayFlags(args)).toThrow(message);
  });

  it('probes the API named, or the local one when only a report is asked for', () => {
    expect(parseReplayFlags(['edge.ndjson', '--probe', 'http://api.test:9000/'])?.probe).toEqual({
      url: 'http://api.test:9000',
      requestsPerSecond: 30,
      reportPath: 'loadtest-report.json',
    });
    expect(
      parseReplayFlags(
        ['edge.ndjson', '--report', 'out.json', '--probe-rate', '5'],
        'http://127.0.0.1:3000',
      )
        ?.probe,
    ).toEqual({ url: 'http://127.0.0.1:3000', requestsPerSecond: 5, reportPath: 'out.json' });
  });

  it('takes standard input rebased in real time', () => {
    expect(parseReplayFlags(['-', '--source', 'edge', '--rebase', 'now', '--speed', '1']))
      .toMatchObject({ rebase: true, pace: { kind: 'speed', factor: 1 } });
  });
});
