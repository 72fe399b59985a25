/**
 * Issue 31: every refusal is counted in /metrics at once, and logged sparingly: the first at
 * once, then at most one line per interval with the counts since the last line, by reason.
 */
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, test } from 'vitest';
import { createMetrics } from '../../api/metrics.ts';
import { refusalReporter } from '../../api/refusal-report.ts';

function captured() {
  const lines: { level: number; refused: Record<string, number>; overSeconds?: number }[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter((l) => l !== '')) {
        lines.push(JSON.parse(line));
      }
      done();
    },
  });
  return { lines, logger: pino({ level: 'info' }, sink) };
}

describe('refusalReporter', () => {
  test('counts each refusal, logs the first at once and then one line per interval', async () => {
    const metrics = createMetrics();
    const { lines, logger } = captured();
    let nowMs = 1_000_000;
    const report = refusalReporter({ metrics, logger, nowMs: () => nowMs, logEveryMs: 30_000 });
    report('no_request');
    for (let i = 0; i < 999; i++) report(i % 3 === 0 ? 'address_cap' : 'no_request');
    nowMs += 29_999;
    report('slow_reader');
    expect(lines).toHaveLength(1);
    nowMs += 1;
    report('slow_reader');
    expect(lines.map(({ level, refused, overSeconds }) => ({ level, refused, overSeconds })))
      .toEqual([
        { level: 40, refused: { no_request: 1 }, overSeconds: undefined },
        {
          level: 40,
          refused: { address_cap: 333, no_request: 666, slow_reader: 2 },
          overSeconds: 30,
        },
      ]);
    const text = await metrics.registry.metrics();
    expect(text).toContain('http_refused_total{reason="no_request"} 667');
    expect(text).toContain('http_refused_total{reason="address_cap"} 333');
    expect(text).toContain('http_refused_total{reason="slow_reader"} 2');
    expect(text).toContain('http_refused_total{reason="connection_cap"} 0');
  });
});
