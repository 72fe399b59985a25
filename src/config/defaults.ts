/**
 * The defaults that more than one layer needs, each in one place: the configuration
 * (`src/config.ts`) falls back on them when a variable is unset, and the parts it configures
 * fall back on the same value when they are built without it (tests, tools). A leaf: it imports
 * nothing, so any layer may import it.
 *
 * @example
 * ```ts
 * const flushBytes = options.flushBytes ?? DEFAULT_FLUSH_BYTES;
 * ```
 *
 * @module
 */

/** The service's name: the logger's, and Kafka's client id unless configured (`KAFKA_CLIENT_ID`). */
export const SERVICE_NAME = 'streaming-endpoints';

/** The API's port unless configured (`PORT`). */
export const DEFAULT_PORT = 8080;

/**
 * Most bytes of events a partition holds folded but not yet written unless configured
 * (`FLUSH_BYTES`): one script call's worth.
 */
export const DEFAULT_FLUSH_BYTES = 16 * 1024 * 1024;

/**
 * Least bytes a consumer's fetch waits for, up to the flush interval (`FETCH_MIN_BYTES`), unless
 * configured: at a live rate, a fetch per few events cost the consumers a quarter of their CPU.
 */
export const DEFAULT_FETCH_MIN_BYTES = 1024 * 1024;

/**
 * Least time between the starts of a partition's flushes unless configured (`FLUSH_LINGER_MS`),
 * ms: at a live rate, a flush per few events cost the store a commit per project for each few.
 */
export const DEFAULT_FLUSH_LINGER_MS = 200;

/** How soon a dead consumer's partitions move unless configured (`KAFKA_SESSION_TIMEOUT_MS`), ms. */
export const DEFAULT_SESSION_TIMEOUT_MS = 30_000;

/**
 * `logs.all` entries kept per project unless configured (`RECENT_LOGS_CAPACITY`); CONTRACT
 * section 5 asks for at least 10,000.
 */
export const DEFAULT_RECENT_LOGS_CAPACITY = 10_000;

/** How far in the future an event may be unless configured (`MAX_FUTURE_SKEW`): 5 minutes, in µs. */
export const DEFAULT_MAX_FUTURE_SKEW_US = 5 * 60_000_000;

/** The longest the API waits for a store read or ping unless configured (`STORE_TIMEOUT_MS`), ms. */
export const DEFAULT_STORE_TIMEOUT_MS = 5_000;
