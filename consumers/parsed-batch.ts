/**
 * What a batch of parsed messages names: its valid events (what the writer loads before the
 * batch is folded).
 *
 * @module
 */
import type { LogEvent, ParseResult } from '../src/events/types.ts';

/** A message of a batch, as far as these need it: its parse result. */
interface Parsed {
  readonly result: ParseResult;
}

/** The valid events of a batch. */
export function* eventsOf(parsed: readonly Parsed[]): Generator<LogEvent> {
  for (const { result } of parsed) if (result.ok) yield result.event;
}
