/**
 * The table `npm run bench:api` prints: per workload and mode, the API's figures beside the
 * fixed-bytes ceiling, the reference evaluator and DuckDB.
 *
 * @module
 */
import type { BaselineResult } from './baseline.ts';
import type { DriveResult } from './load.ts';

/** One mode of the API (answer reuse or not). */
export interface Mode {
  readonly name: string;
  readonly env: Readonly<Record<string, string>>;
}

/** What one workload measured. */
export interface WorkloadFigures {
  readonly label: string;
  /** By mode name: saturation, the offered rate and the figures at it. */
  readonly api: ReadonlyMap<string, { saturation: DriveResult; atRate: DriveResult; rate: number }>;
  readonly ceiling?: DriveResult;
  /** The same bytes through the API's framework, computing nothing (`--framework`). */
  readonly floors?: readonly FrameworkFloor[];
  readonly reference?: BaselineResult;
  readonly duckdb?: BaselineResult;
}

/** The fixed bytes served through a framework: what it costs beneath any work of the API's. */
export interface FrameworkFloor {
  readonly label: string;
  readonly result: DriveResult;
}

/** ` (FAILURES)` after a row whose load met any failure, else nothing. */
const flagged = (result: DriveResult) =>
  Object.keys(result.failures).length > 0 ? ' (FAILURES)' : '';

/** Milliseconds, two decimals below 10. */
export const ms = (value: number) => value.toFixed(value < 10 ? 2 : 1);
/** A rate, rounded, with thousands separators. */
export const perSecond = (value: number) => Math.round(value).toLocaleString('en-US');
const times = (value: number) =>
  `${value < 100 ? value.toFixed(1) : Math.round(value).toLocaleString('en-US')}x`;
/** Microseconds, rounded; `?` when unknown. */
export const micro = (value: number | null) => value === null ? '?' : Math.round(value).toString();
const calls = (result: BaselineResult | undefined) =>
  result === undefined ? '?' : `${result.perSecond.toFixed(2)} (${ms(result.p50Ms)})`;

/**
 * DuckDB's CPU per call over the API's and Redis's CPU per request at saturation: the ratio of
 * work, which the load other processes put on the machine changes less than throughput.
 */
function cpuRatio(result: DriveResult, duckdb: BaselineResult | undefined): string {
  if (duckdb === undefined || result.serverCpuUsPerRequest === null) return '?';
  return times(
    duckdb.cpuUsPerCall / (result.serverCpuUsPerRequest + (result.storeCpuUsPerRequest ?? 0)),
  );
}

/** Prints the Markdown table of `figures`, one row per workload and mode plus its ceiling. */
export function printTable(
  figures: readonly WorkloadFigures[],
  modes: readonly Mode[],
  connections: number,
): void {
  console.log(
    `| workload | mode | max req/s (${connections} conns) | offered req/s | ` +
      'p50 / p99 ms at offered | server CPU µs per request (max / offered) | ' +
      'Redis CPU µs per request | max / fixed-bytes ceiling | ' +
      'baseline calls/s (p50 ms) | max req/s / baseline | ' +
      `DuckDB calls/s, ${connections} callers (p50 ms) | DuckDB CPU µs per call | ` +
      'max req/s / DuckDB | DuckDB CPU / API and Redis CPU |',
  );
  console.log('|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const workload of figures) {
    const { reference, duckdb, ceiling } = workload;
    for (const mode of modes) {
      const result = workload.api.get(mode.name);
      if (result === undefined) continue;
      const { saturation, atRate } = result;
      const failed = Object.keys(saturation.failures).length +
        Object.keys(atRate.failures).length;
      console.log(
        `| ${workload.label} | ${mode.name}${failed > 0 ? ' (FAILURES)' : ''} | ${
          perSecond(saturation.perSecond)
        } | ${perSecond(result.rate)} | ${ms(atRate.p50Ms)} / ${ms(atRate.p99Ms)} | ${
          micro(saturation.serverCpuUsPerRequest)
        } / ${micro(atRate.serverCpuUsPerRequest)} | ${micro(saturation.storeCpuUsPerRequest)} | ${
          ceiling === undefined
            ? '?'
            : `${Math.round((100 * saturation.perSecond) / ceiling.perSecond)}%`
        } | ${calls(reference)} | ${
          reference === undefined ? '?' : times(saturation.perSecond / reference.perSecond)
        } | ${calls(duckdb)} | ${duckdb === undefined ? '?' : micro(duckdb.cpuUsPerCall)} | ${
          duckdb === undefined ? '?' : times(saturation.perSecond / duckdb.perSecond)
        } | ${cpuRatio(saturation, duckdb)} |`,
      );
    }
    if (ceiling !== undefined) {
      console.log(
        `| ${workload.label} | fixed bytes, bare node:http (ceiling)${flagged(ceiling)} | ${
          perSecond(ceiling.perSecond)
        } | | | ${micro(ceiling.serverCpuUsPerRequest)} | | 100% | | | | | | |`,
      );
      for (const { label, result } of workload.floors ?? []) {
        console.log(
          `| ${workload.label} | fixed bytes, ${label}${flagged(result)} | ${
            perSecond(result.perSecond)
          } | | | ${micro(result.serverCpuUsPerRequest)} | | ${
            Math.round((100 * result.perSecond) / ceiling.perSecond)
          }% | | | | | | |`,
        );
      }
    }
  }
}
