/**
 * How a store keeps a stream's reach beside its watermark (see `ProjectCommit.watermark.reachUs`
 * in {@link ./port.ts}): a field of the watermark hash next to the stream's own, holding the
 * watermark it was written with and the reach, so that a writer of a version that does not
 * write reaches, moving the watermark, leaves a reach that no longer holds rather than a wrong
 * one; or {@link FORGOTTEN_REACH}.
 *
 * @module
 */
import type { StoredReach } from './port.ts';

/**
 * The field of a watermark hash that holds `stream`'s reach. Stream names (Kafka topic and
 * partition, or `ingest/<id>`) never hold a space.
 */
export function reachField(stream: string): string {
  return `${stream} reach`;
}

/** The stored text of a reach written with the watermark `offset`. */
export function reachText(offset: number, reachUs: number): string {
  return `${offset} ${reachUs}`;
}

/**
 * What a commit leaves in place of the reach when it found a part of the stream beyond it: the
 * project's parts are read from then on, also where its watermark is gone.
 */
export const FORGOTTEN_REACH = 'forgotten';

/**
 * Reads {@link reachText}; null for none; forgotten for {@link FORGOTTEN_REACH} and for any value
 * it cannot read.
 */
export function parseReach(text: string | null): StoredReach | null {
  if (text === null) return null;
  const space = text.indexOf(' ');
  const offset = Number(text.slice(0, space));
  const reachUs = Number(text.slice(space + 1));
  return space > 0 && Number.isSafeInteger(offset) && Number.isSafeInteger(reachUs)
    ? { offset, reachUs }
    : { forgotten: true };
}
