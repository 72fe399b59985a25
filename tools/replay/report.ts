/**
 * A load test's report: what was published and how the API behaved meanwhile, printed and
 * written as JSON.
 *
 * @module
 */
import { writeFileSync } from 'node:fs';
import type { ProbeReport } from './probe.ts';

/** What the replay itself achieved. */
export interface IngestFigures {
  readonly sent: number;
  readonly seconds: number;
  readonly interrupted: boolean;
}

/** The report as written to JSON. */
export interface LoadTestReport extends ProbeReport {
  readonly ingest: {
    readonly events: number;
    readonly seconds: number;
    readonly eventsPerSecond: number;
    readonly interrupted: boolean;
  };
}

/** The report of `ingest` and `probed`. */
export function loadTestReport(ingest: IngestFigures, probed: ProbeReport): LoadTestReport {
  return {
    ingest: {
      events: ingest.sent,
      seconds: Math.round(ingest.seconds * 10) / 10,
      eventsPerSecond: Math.round(ingest.sent / Math.max(ingest.seconds, 1e-3)),
      interrupted: ingest.interrupted,
    },
    ...probed,
  };
}

/** The report as text, one line per figure. */
export function reportText(report: LoadTestReport): string {
  const ms = (value: number | null) => value === null ? '-' : `${value} ms`;
  const lines = [
    `ingest: ${report.ingest.events} events in ${report.ingest.seconds} s ` +
    `(${report.ingest.eventsPerSecond} events/s)`,
  ];
  for (const [name, figures] of Object.entries(report.endpoints)) {
    const errors = Object.entries(figures.errors).map(([status, n]) => `${status}: ${n}`);
    lines.push(
      `${name}: ${figures.requests} requests, p50 ${ms(figures.p50Ms)}, p99 ${ms(figures.p99Ms)}` +
        `, errors ${errors.length === 0 ? 'none' : errors.join(', ')}`,
    );
  }
  const { freshness } = report;
  lines.push(
    `freshness (marker published -> visible in logs.all): ${freshness.seen} of ` +
      `${freshness.markers} seen, p50 ${ms(freshness.p50Ms)}, p99 ${ms(freshness.p99Ms)}`,
  );
  return lines.join('\n');
}

/** Writes the report's JSON to `path`; answers its text and where it went. */
export function writeReport(path: string, ingest: IngestFigures, probed: ProbeReport): string {
  const report = loadTestReport(ingest, probed);
  writeFileSync(path, `${JSON.stringify(report, null, 2)}\n`);
  return `${reportText(report)}\nreport written to ${path}`;
}
