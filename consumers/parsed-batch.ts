/**
 * A batch's tail parsed ahead: what the processor keeps of a batch from its first message whose
 * project the writer must load, so that one round of reads loads what all of them need. Until
 * then (and in the steady state, every batch) each message is parsed, folded and dropped.
 *
 * @module
 */
import type { LogEvent } from '../src/events/types.ts';
import {
  type InputMessage,
  type ParsedMessage,
  parseMessage,
  type ParseOptions,
} from './input-message.ts';

/** The messages of `messages` from index `from` on, parsed. */
export function parsedFrom(
  messages: readonly InputMessage[],
  from: number,
  options: ParseOptions,
): ParsedMessage[] {
  const parsed: ParsedMessage[] = [];
  for (let index = from; index < messages.length; index++) {
    const message = messages[index] as InputMessage;
    parsed.push({
      message,
      offset: Number(message.offset),
      result: parseMessage(message, options),
    });
  }
  return parsed;
}

/** The valid events of `parsed`. */
export function* eventsOf(parsed: readonly ParsedMessage[]): Generator<LogEvent> {
  for (const { result } of parsed) if (result.ok) yield result.event;
}
