/**
 * Fixed vocabularies the synthetic events draw from. Every entry is plain ASCII without
 * quotes or backslashes, so the event builders can place them in JSON text unescaped.
 *
 * @module
 */

/** `[user agent, x-client-info]` pairs. */
export const CLIENTS: readonly (readonly [string, string])[] = [
  ['supabase-js/2.45.4 node/20.11.1', 'supabase-js-node/2.45.4'],
  [
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15',
    'supabase-js-web/2.45.4',
  ],
  [
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36',
    'supabase-js-web/2.44.2',
  ],
  ['Dart/3.4 (dart:io)', 'supabase-flutter/2.5.6'],
  ['okhttp/4.12.0', 'supabase-kt/2.5.1'],
  ['supabase-py/2.5.3', 'supabase-py/2.5.3'],
  ['PostgREST-client/1.0 Deno/1.45.2', 'supabase-js-deno/2.45.0'],
];

/** `[country, city, colo, asn]` tuples. */
export const PLACES: readonly (readonly [string, string, string, number])[] = [
  ['US', 'Ashburn', 'IAD', 14618],
  ['US', 'San Jose', 'SJC', 7922],
  ['DE', 'Frankfurt am Main', 'FRA', 3320],
  ['GB', 'London', 'LHR', 2856],
  ['IN', 'Mumbai', 'BOM', 55836],
  ['BR', 'Sao Paulo', 'GRU', 28573],
  ['SG', 'Singapore', 'SIN', 4773],
  ['JP', 'Tokyo', 'NRT', 2516],
  ['AU', 'Sydney', 'SYD', 1221],
  ['FR', 'Paris', 'CDG', 3215],
];

/** Supabase regions for edge functions. */
export const REGIONS = [
  'us-east-1',
  'us-west-1',
  'eu-central-1',
  'eu-west-2',
  'ap-south-1',
  'ap-southeast-1',
  'sa-east-1',
] as const;

/** PostgREST tables. */
export const TABLES = [
  'todos',
  'profiles',
  'messages',
  'orders',
  'products',
  'comments',
  'events',
  'teams',
  'invoices',
  'posts',
] as const;

/** Storage buckets and objects. */
export const BUCKETS = ['avatars', 'public', 'uploads', 'documents', 'images'] as const;
export const OBJECTS = ['photo.jpg', 'report.pdf', 'logo.png', 'data.csv', 'video.mp4'] as const;

/** Auth endpoints with their query strings. */
export const AUTH_ROUTES: readonly (readonly [string, string])[] = [
  ['/auth/v1/token', '?grant_type=refresh_token'],
  ['/auth/v1/token', '?grant_type=password'],
  ['/auth/v1/user', ''],
  ['/auth/v1/logout', ''],
  ['/auth/v1/signup', ''],
  ['/auth/v1/recover', ''],
  ['/auth/v1/otp', ''],
];

/**
 * Paths whose text contains two family markers, so one request counts toward two families
 * of `usage.api-counts`.
 */
export const OVERLAP_PATHS = [
  '/rest/v1/rpc/auth_user_sync',
  '/rest/v1/storage_objects',
  '/storage/v1/object/public/realtime-x/frame.png',
  '/auth/v1/admin/realtime/sessions',
  '/rest/v1/realtime_presence',
] as const;

/** Paths of no family. */
export const OTHER_PATHS = [
  '/graphql/v1',
  '/pg/meta/tables',
  '/analytics/v1/logs',
  '/',
  '/favicon.ico',
] as const;

/** HTTP methods, with weights, for gateway requests. */
export const METHODS = ['GET', 'POST', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD'] as const;
export const METHOD_WEIGHTS = [60, 22, 8, 4, 5, 1];

/** Gateway status codes, with weights. */
export const EDGE_STATUSES = [
  200,
  201,
  204,
  206,
  301,
  304,
  400,
  401,
  403,
  404,
  409,
  429,
  500,
  502,
  503,
  504,
];
export const EDGE_STATUS_WEIGHTS = [700, 60, 40, 10, 5, 30, 30, 40, 20, 30, 10, 10, 10, 5, 3, 2];

/** Edge-function status codes, with weights. */
export const FUNCTION_STATUSES = [200, 201, 204, 400, 401, 404, 500, 502, 503, 504, 546];
export const FUNCTION_STATUS_WEIGHTS = [850, 30, 10, 20, 20, 10, 30, 10, 10, 5, 5];

/** Reason phrases for the status codes used above. */
export const STATUS_TEXT: Readonly<Record<number, string>> = {
  200: 'OK',
  201: 'Created',
  204: 'No Content',
  206: 'Partial Content',
  301: 'Moved Permanently',
  304: 'Not Modified',
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  409: 'Conflict',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
  546: 'Resource Limit',
};
