/**
 * Validation of an ingest body's items with the consumers' own code (`parse`): the valid
 * events go on, the invalid ones are counted and the first few explained by position.
 *
 * @module
 */
import { parse } from '../../src/events/parse.ts';
import type { LogEvent, Source } from '../../src/events/types.ts';
import type { BodyItem } from './body.ts';

/** How many rejected items an ingest answer explains. */
export const MAX_REPORTED_ERRORS = 10;

/** A valid event and the text it was read from (what a Kafka sink publishes). */
export interface AcceptedEvent {
  readonly event: LogEvent;
  readonly text: string;
  /** Its line (NDJSON) or element (JSON array) number in the body, 1-based. */
  readonly line: number;
}

/** Why one item was rejected. */
export interface ItemError {
  readonly line: number;
  readonly reason: string;
}

/** The outcome of validating a body. */
export interface Validated {
  readonly accepted: AcceptedEvent[];
  readonly rejected: number;
  /** The first {@link MAX_REPORTED_ERRORS} rejections, in body order. */
  readonly errors: ItemError[];
}

/** The clock and skew `parse` checks timestamps against. */
export interface ValidateOptions {
  readonly nowUs: number;
  readonly maxFutureSkewUs: number;
}

/**
 * Validates every item as an event of `source`.
 *
 * @example
 * ```ts
 * const { accepted, rejected, errors } = validateItems(items, 'edge', { nowUs, maxFutureSkewUs });
 * ```
 */
export function validateItems(
  items: readonly BodyItem[],
  source: Source,
  options: ValidateOptions,
): Validated {
  const outcome = new ValidationOutcome();
  for (const item of items) {
    const result = parse(item.text, source, options);
    if (result.ok) outcome.accept({ event: result.event, text: item.text, line: item.line });
    else outcome.refuse(item.line, result.rejection.reason);
  }
  return outcome.validated();
}

/**
 * The outcome of validating a body's items, one at a time: the accepted events, the count of
 * rejected ones and the first {@link MAX_REPORTED_ERRORS} reasons, in body order.
 */
export class ValidationOutcome {
  readonly #accepted: AcceptedEvent[] = [];
  readonly #errors: ItemError[] = [];
  #rejected = 0;

  /** Keeps a valid event. */
  accept(event: AcceptedEvent): void {
    this.#accepted.push(event);
  }

  /** Counts the item at `line` rejected, for `reason`. */
  refuse(line: number, reason: string): void {
    this.#rejected += 1;
    if (this.#errors.length < MAX_REPORTED_ERRORS) this.#errors.push({ line, reason });
  }

  /** What was validated. */
  validated(): Validated {
    return { accepted: this.#accepted, rejected: this.#rejected, errors: this.#errors };
  }
}
