/**
 * The explorer's files, read once when the API is built: the page and its scripts and styles
 * (`api/explorer/page/`), and the chart library (uPlot) from `node_modules`, served under a
 * path that carries its version, so a browser may keep it for good. No build step: what is in
 * the folder is what the browser gets. Node and Deno read the same files (`node:fs`).
 *
 * @module
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** One file the explorer serves. */
export interface Asset {
  readonly body: Uint8Array<ArrayBuffer>;
  readonly contentType: string;
  /** `Cache-Control`: versioned files for a year, the page's own files revalidated. */
  readonly cacheControl: string;
}

/** The page's own files, by name in `page/`, with their media types. */
const PAGE_FILES: Readonly<Record<string, string>> = {
  'explorer.css': 'text/css; charset=utf-8',
  'explorer.js': 'text/javascript; charset=utf-8',
  'api-client.js': 'text/javascript; charset=utf-8',
  'views.js': 'text/javascript; charset=utf-8',
  'charts.js': 'text/javascript; charset=utf-8',
  'tables.js': 'text/javascript; charset=utf-8',
  'format.js': 'text/javascript; charset=utf-8',
};

/** Where the explorer lives: the page at `/`, everything else under this prefix. */
const EXPLORER_PREFIX = '/explorer/';

const REVALIDATE = 'no-cache';
const IMMUTABLE = 'public, max-age=31536000, immutable';

/** The chart library's files in its package, with the media types they are served as. */
const UPLOT_FILES: Readonly<Record<string, string>> = {
  'uPlot.iife.min.js': 'text/javascript; charset=utf-8',
  'uPlot.min.css': 'text/css; charset=utf-8',
};

/**
 * Every file of the explorer by URL path (`/` is the page).
 *
 * @example
 * ```ts
 * const assets = explorerAssets();
 * assets.get('/')?.contentType; // 'text/html; charset=utf-8'
 * ```
 */
export function explorerAssets(): ReadonlyMap<string, Asset> {
  const pageDir = fileURLToPath(new URL('./page/', import.meta.url));
  const uplot = uplotPackage();
  const vendorPrefix = `${EXPLORER_PREFIX}vendor/uplot-${uplot.version}/`;
  const assets = new Map<string, Asset>();
  for (const [name, contentType] of Object.entries(PAGE_FILES)) {
    assets.set(`${EXPLORER_PREFIX}${name}`, {
      body: readFileSync(join(pageDir, name)),
      contentType,
      cacheControl: REVALIDATE,
    });
  }
  for (const [name, contentType] of Object.entries(UPLOT_FILES)) {
    assets.set(`${vendorPrefix}${name}`, {
      body: readFileSync(join(uplot.dist, name)),
      contentType,
      cacheControl: IMMUTABLE,
    });
  }
  // The page names the library by its versioned path: the one placeholder it holds.
  const page = readFileSync(join(pageDir, 'index.html'), 'utf8').replaceAll(
    '{{UPLOT}}',
    vendorPrefix,
  );
  assets.set('/', {
    body: new TextEncoder().encode(page),
    contentType: 'text/html; charset=utf-8',
    cacheControl: REVALIDATE,
  });
  return assets;
}

/** The installed uPlot: its version and the folder of its built files. */
function uplotPackage(): { version: string; dist: string } {
  const require = createRequire(import.meta.url);
  const manifestPath = require.resolve('uplot/package.json');
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { version?: unknown };
  if (typeof manifest.version !== 'string' || !/^[0-9A-Za-z.+-]+$/.test(manifest.version)) {
    throw new Error(`${manifestPath} has no usable version: reinstall with npm ci`);
  }
  return { version: manifest.version, dist: join(dirname(manifestPath), 'dist') };
}
