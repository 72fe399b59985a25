/**
 * `parse`'s CPU per event over a benchmark's published messages, read again without Kafka: the
 * parsing half of a consumer's floor (`bench:consumer`).
 *
 * @module
 */
import { parse } from '../../src/events/parse.ts';
import { benchEvents } from './publish-generated.ts';

/** Messages encoded at a time: their encoding is not timed, only their parsing. */
const CHUNK = 10_000;

/**
 * This process's CPU (user + system) per event, in µs, of `parse` over the UTF-8 bytes of
 * `benchEvents(events, nowUs)` (the values a consumer receives), each as its source, after one
 * untimed pass over the first chunk to warm the code up.
 *
 * @example
 * ```ts
 * const floor = bareCpuUsPerEvent + parseCpuUsPerEvent(events, nowUs);
 * ```
 */
export function parseCpuUsPerEvent(events: number, nowUs: number): number {
  const encoder = new TextEncoder();
  const options = { nowUs: Date.now() * 1000 };
  let cpuUs = 0;
  let parsed = 0;
  let warm = false;
  let chunk: { source: 'edge' | 'function-edge'; bytes: Uint8Array }[] = [];
  const parseChunk = () => {
    if (!warm) {
      for (const { source, bytes } of chunk) parse(bytes, source, options);
      warm = true;
    }
    const before = process.cpuUsage();
    for (const { source, bytes } of chunk) parse(bytes, source, options);
    const cpu = process.cpuUsage(before);
    cpuUs += cpu.user + cpu.system;
    parsed += chunk.length;
    chunk = [];
  };
  for (const { source, line } of benchEvents(events, nowUs)) {
    chunk.push({ source, bytes: encoder.encode(line) });
    if (chunk.length === CHUNK) parseChunk();
  }
  if (chunk.length > 0) parseChunk();
  return parsed === 0 ? 0 : cpuUs / parsed;
}
