/**
 * The bounds of live answers (`LIVE_*`): endpoint answers pushed as server-sent events while
 * their rollups change (docs/API.md, "Live answers"). Each stream holds an HTTP connection, so
 * `HTTP_MAX_CONNECTIONS` bounds them too.
 *
 * @module
 */
import { type Env, integer } from './read.ts';

/** The live-answer bounds unless configured. */
export const DEFAULT_LIVE = {
  coalesceMs: 250,
  heartbeatMs: 15_000,
  maxStreams: 512,
  maxStreamsPerKey: 256,
  maxStreamsPerAddress: 16,
} as const;

/** The live-answer part of the configuration. */
export interface LiveConfig {
  /**
   * How long change signals of one watched answer are gathered before it is computed again, in
   * ms: one computation per window however many commits and watchers.
   */
  readonly liveCoalesceMs: number;
  /** How often an idle stream sends a comment, so proxies keep it open, in ms. */
  readonly liveHeartbeatMs: number;
  /** Most open streams of this API process (then 429); 0: live answers are off (406). */
  readonly liveMaxStreams: number;
  /** Most open streams of one API key (then 429). */
  readonly liveMaxStreamsPerKey: number;
  /** Most open streams from one client address (IPv6: one /64; then 429); 0: no limit. */
  readonly liveMaxStreamsPerAddress: number;
}

/** Reads and checks the `LIVE_*` settings. */
export function liveConfig(env: Env): LiveConfig {
  return {
    liveCoalesceMs: integer(env, 'LIVE_COALESCE_MS', DEFAULT_LIVE.coalesceMs, 250, 1_000),
    liveHeartbeatMs: integer(env, 'LIVE_HEARTBEAT_MS', DEFAULT_LIVE.heartbeatMs, 1_000, 120_000),
    liveMaxStreams: integer(env, 'LIVE_MAX_STREAMS', DEFAULT_LIVE.maxStreams, 0, 1_000_000),
    liveMaxStreamsPerKey: integer(
      env,
      'LIVE_MAX_STREAMS_PER_KEY',
      DEFAULT_LIVE.maxStreamsPerKey,
      1,
      1_000_000,
    ),
    liveMaxStreamsPerAddress: integer(
      env,
      'LIVE_MAX_STREAMS_PER_ADDRESS',
      DEFAULT_LIVE.maxStreamsPerAddress,
      0,
      1_000_000,
    ),
  };
}
