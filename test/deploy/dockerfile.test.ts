/**
 * The service's Dockerfile, checked without a Docker engine (the fast first line; `npm run
 * image:test` builds the image and runs it): Node 24 slim, production dependencies only, a
 * non-root user, tini in front, listening on all interfaces, a health check on `/healthz`, one
 * image for every role; and the image holds everything the service loads: each file the entry
 * points import is copied and not kept out by .dockerignore, and each package is a production
 * dependency. The health check itself runs against a real socket.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { dirname, join, relative, resolve } from 'node:path';
import { builtinModules } from 'node:module';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { freePort } from '../../tools/services/free-port.ts';
import { dockerfileEnv, finalStage, readDockerfile } from './dockerfile.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const instructions = readDockerfile(join(ROOT, 'Dockerfile'));
const final = finalStage(instructions);
const ENTRY_POINTS = ['service/main.ts', 'service/healthcheck.ts'];

function arguments_(keyword: string): string[] {
  return final.filter((i) => i.keyword === keyword).map((i) => i.argument);
}

/**
 * Every file the entry points load, and every package they import, following relative imports,
 * the files and folders a module reads beside it (`new URL('./…', import.meta.url)`) and a Lua script's
 * fragments (`-- @include '…'`, relative to the script).
 */
function closure(): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const pending = ENTRY_POINTS.map((file) => join(ROOT, file));
  // A specifier holds no white space: prose in a string ("... from ' + `${x}`") is not an import.
  const specifiers =
    /\b(?:from|import)\s*\(?\s*'([^'\s]+)'|require\.resolve\('([^'\s]+)'\)|new URL\('(\.[^'\s]+)', import\.meta\.url\)|^-- @include '([^'\s]+)'$/gm;
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (files.has(file)) continue;
    files.add(file);
    for (const match of readFileSync(file, 'utf8').matchAll(specifiers)) {
      const specifier = match[1] ?? match[2] ?? match[3] ?? `./${match[4]!}`;
      // A folder read at run time (the explorer's page) is held as a whole: its top is checked.
      if (specifier.endsWith('/')) files.add(resolve(dirname(file), specifier));
      else if (specifier.startsWith('.')) pending.push(resolve(dirname(file), specifier));
      else if (!specifier.startsWith('node:') && !builtinModules.includes(specifier)) {
        const parts = specifier.split('/');
        packages.add(specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!);
      }
    }
  }
  return { files, packages };
}

describe('Dockerfile', () => {
  test('every stage is Node 24 slim (the base a build argument, node:24-slim by default)', () => {
    const declared = instructions.filter((i) =>
      i.keyword === 'ARG' && /^BASE_IMAGE=/.test(i.argument)
    );
    expect(declared.map((i) => i.argument)).toEqual(['BASE_IMAGE=node:24-slim']);
    // Declared before the first stage, so that every FROM can read it.
    expect(instructions[0]).toEqual({ keyword: 'ARG', argument: 'BASE_IMAGE=node:24-slim' });
    const bases = instructions.filter((i) => i.keyword === 'FROM').map((i) => i.argument);
    expect(bases.length).toBeGreaterThan(0);
    for (const base of bases) expect(base).toMatch(/^\$\{BASE_IMAGE\}(\s|$)/);
  });

  test('installs production dependencies only, from the lock file', () => {
    const installs = instructions.filter((i) => i.keyword === 'RUN' && /\bnpm\b/.test(i.argument));
    expect(installs.map((i) => i.argument)).toEqual([
      expect.stringMatching(/^npm ci --omit=dev\b/),
    ]);
  });

  test('runs as a user other than root, on all interfaces, one image for every role', () => {
    const users = arguments_('USER');
    expect(users.length).toBe(1);
    expect(users[0]).not.toMatch(/^(root|0)(:|$)/);
    expect(dockerfileEnv(instructions)['HOST']).toBe('0.0.0.0');
    expect(arguments_('ENTRYPOINT')).toEqual([expect.stringContaining('service/main.ts')]);
    // tini as PID 1 passes SIGTERM on, also before the service has installed its handlers.
    expect(JSON.parse(arguments_('ENTRYPOINT')[0] ?? '[]').slice(0, 4)).toEqual([
      'tini',
      '-e',
      '143',
      '--',
    ]);
    expect(JSON.parse(arguments_('CMD')[0] ?? '[]')).toEqual(['--role', 'all']);
  });

  test('checks its health on /healthz', () => {
    expect(arguments_('HEALTHCHECK')).toEqual([
      expect.stringMatching(/CMD \["node", "service\/healthcheck\.ts"\]$/),
    ]);
    expect(readFileSync(join(ROOT, 'service/healthcheck.ts'), 'utf8')).toContain('/healthz');
  });

  test('holds every file and package the service loads', () => {
    const copied = arguments_('COPY').filter((a) => !a.startsWith('--from'))
      .map((a) => a.split(/\s+/)[0]!);
    const ignore = readFileSync(join(ROOT, '.dockerignore'), 'utf8').split('\n')
      .filter((line) => line.startsWith('!')).map((line) => line.slice(1).replace(/\/$/, ''));
    const { files, packages } = closure();
    expect(files.size).toBeGreaterThan(50);
    for (const file of files) {
      const top = relative(ROOT, file).split('/')[0]!;
      expect(copied, relative(ROOT, file)).toContain(top);
      expect(ignore, relative(ROOT, file)).toContain(top);
    }
    // Read at run time: the explorer's page (in api/) and its chart library.
    packages.add('uplot');
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    for (const name of packages) expect(Object.keys(manifest.dependencies), name).toContain(name);
  });
});

describe('service/healthcheck.ts', () => {
  let server: Server;
  let healthyPort = 0;

  beforeAll(async () => {
    server = createServer((request, response) => {
      response.statusCode = request.url === '/healthz' ? 200 : 404;
      response.end();
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const address = server.address();
    healthyPort = typeof address === 'object' && address !== null ? address.port : 0;
  });

  afterAll(() => new Promise<void>((done) => server.close(() => done())));

  async function check(env: Record<string, string>): Promise<number | null> {
    const child = spawn(process.execPath, [join(ROOT, 'service/healthcheck.ts')], {
      env: { PATH: process.env['PATH'] ?? '', ...env },
      stdio: 'ignore',
    });
    return await new Promise((done) => child.once('exit', (code) => done(code)));
  }

  test('healthy when /healthz answers on PORT (all, api) or METRICS_PORT (consumers)', async () => {
    const closed = String(await freePort());
    expect(await check({ PORT: String(healthyPort) })).toBe(0);
    expect(await check({ PORT: closed, METRICS_PORT: String(healthyPort) })).toBe(0);
    expect(await check({ PORT: closed })).toBe(1);
  });
});
