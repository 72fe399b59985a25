/**
 * Synthetic `edge` (API gateway) events, shaped like CONTRACT section 3's example and about
 * 1 KB each, built directly as JSON text for speed.
 *
 * @module
 */

import type { SyntheticProject } from './population.ts';
import { type Random, WeightedSampler } from './random.ts';
import { timestampJson } from './timestamps.ts';
import {
  AUTH_ROUTES,
  BUCKETS,
  CLIENTS,
  EDGE_STATUS_WEIGHTS,
  EDGE_STATUSES,
  METHOD_WEIGHTS,
  METHODS,
  OBJECTS,
  OTHER_PATHS,
  OVERLAP_PATHS,
  PLACES,
  TABLES,
} from './vocabulary.ts';

const methodSampler = new WeightedSampler(METHOD_WEIGHTS);
const statusSampler = new WeightedSampler(EDGE_STATUS_WEIGHTS);

/** Route kinds and their shares of gateway traffic. */
const ROUTES = ['rest', 'auth', 'storage', 'realtime', 'functions', 'overlap', 'other'] as const;
const routeSampler = new WeightedSampler([42, 18, 12, 8, 8, 5, 7]);

/** A request route: path and query string (with its `?`, or empty). */
interface Route {
  readonly path: string;
  readonly search: string;
}

function route(random: Random, project: SyntheticProject): Route {
  switch (ROUTES[routeSampler.draw(random)]) {
    case 'rest':
      return {
        path: `/rest/v1/${random.pick(TABLES)}`,
        search: `?select=*&id=eq.${random.int(1e6)}`,
      };
    case 'auth': {
      const [path, search] = random.pick(AUTH_ROUTES);
      return { path, search };
    }
    case 'storage':
      return {
        path: `/storage/v1/object/${random.pick(BUCKETS)}/${random.hex(8)}/${random.pick(OBJECTS)}`,
        search: '',
      };
    case 'realtime':
      return { path: '/realtime/v1/websocket', search: '?vsn=1.0.0' };
    case 'functions':
      return { path: `/functions/v1/${random.pick(project.functions).name}`, search: '' };
    case 'overlap':
      return { path: random.pick(OVERLAP_PATHS), search: '' };
    default:
      return { path: random.pick(OTHER_PATHS), search: '' };
  }
}

/**
 * One `edge` event as a JSON line (no trailing newline) at instant `us`. About 5% of requests
 * omit `host` and 2% omit `path`, so that readers exercise the fallback to `url`.
 *
 * @example
 * ```ts
 * edgeLine(random, population.projects[0], 'a-uuid', 1_795_256_130_123_456);
 * // '{"id":"a-uuid","timestamp":"2026-11-21T10:15:30.123456Z","project":"...","metadata":[...]}'
 * ```
 */
export function edgeLine(
  random: Random,
  project: SyntheticProject,
  id: string,
  us: number,
): string {
  const method = METHODS[methodSampler.draw(random)] ?? 'GET';
  const status = EDGE_STATUSES[statusSampler.draw(random)] ?? 200;
  const { path, search } = route(random, project);
  const url = `https://${project.host}${path}${search}`;
  const ip = `${1 + random.int(223)}.${random.int(256)}.${random.int(256)}.${random.int(256)}`;
  const [userAgent, clientInfo] = random.pick(CLIENTS);
  const [country, city, colo, asn] = random.pick(PLACES);
  const ray = `${random.hex(16)}-${colo}`;
  const originMs = Math.round(Math.exp(2.5 + random.normal() * 0.8));
  const length = random.int(50_000);
  const hostField = random.chance(0.05) ? '' : `"host":"${project.host}",`;
  const pathField = random.chance(0.02) ? '' : `"path":"${path}",`;
  return `{"id":"${id}","timestamp":${
    timestampJson(random, us, 0.05)
  },"project":"${project.ref}",` +
    `"event_message":"${method} | ${status} | ${ip} | ${ray} | ${url} | ${userAgent}",` +
    `"metadata":[{"request":[{"method":"${method}",${hostField}${pathField}"search":"${search}",` +
    `"url":"${url}","protocol":"https:","sb":[{"jwt":[{"apikey":[{"payload":[{"role":"anon",` +
    `"iss":"supabase","algorithm":"HS256"}]}]}]}],"headers":[{"accept":"application/json",` +
    `"user_agent":"${userAgent}","x_client_info":"${clientInfo}","cf_ray":"${ray}",` +
    `"cf_connecting_ip":"${ip}","x_forwarded_proto":"https"}],"cf":[{"country":"${country}",` +
    `"city":"${city}","colo":"${colo}","asn":${asn},"httpProtocol":"HTTP/2",` +
    `"tlsVersion":"TLSv1.3"}]}],"response":[{"status_code":${status},"origin_time":${originMs},` +
    `"headers":[{"content_type":"application/json; charset=utf-8","content_length":"${length}",` +
    `"cf_cache_status":"DYNAMIC","sb_gateway_version":"1"}]}]}]}`;
}
