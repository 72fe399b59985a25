import { describe, expect, it } from 'vitest';
import {
  type DebianProgram,
  ensureDebianProgram,
  installAsked,
  type PackageSystem,
} from '../../../tools/services/debian-package.ts';

const REDIS: DebianProgram = {
  binary: 'redis-server',
  package: 'redis-server',
  howTo: 'install it',
  logFile: '/dev/null',
};
const CHROMIUM: DebianProgram = { ...REDIS, binary: 'chromium', package: 'chromium' };

/**
 * A machine where apt-get behaves as the real one does: an `update` while another apt-get runs
 * fails at once on the lock of the package lists; an `install` puts the package's binary on PATH.
 */
function fakeMachine(options: { canInstall?: boolean } = {}) {
  const onPath = new Set<string>();
  const calls: string[] = [];
  let running = 0;
  let mostAtOnce = 0;
  const system: PackageSystem = {
    findOnPath: (name) => (onPath.has(name) ? `/usr/bin/${name}` : undefined),
    canInstall: () => options.canInstall ?? true,
    async aptGet(args) {
      const command = args.filter((arg) => !arg.startsWith('-') && !arg.includes('=')).join(' ');
      calls.push(command);
      running += 1;
      mostAtOnce = Math.max(mostAtOnce, running);
      try {
        if (running > 1) throw new Error('E: Could not get lock /var/lib/apt/lists/lock');
        await new Promise((resolve) => setTimeout(resolve, 5));
        const name = command.startsWith('install ') ? command.slice('install '.length) : '';
        if (name !== '') onPath.add(name);
      } finally {
        running -= 1;
      }
    },
  };
  return { system, calls, mostAtOnce: () => mostAtOnce, onPath };
}

describe('ensureDebianProgram', () => {
  it('installs a package once when two services need it at the same time', async () => {
    const machine = fakeMachine();
    const [a, b] = await Promise.all([
      ensureDebianProgram(REDIS, () => {}, machine.system),
      ensureDebianProgram(REDIS, () => {}, machine.system),
    ]);
    expect([a, b]).toEqual(['/usr/bin/redis-server', '/usr/bin/redis-server']);
    expect(machine.calls).toEqual(['update', 'install redis-server']);
  });

  it('runs one apt-get at a time for different packages', async () => {
    const machine = fakeMachine();
    await Promise.all([
      ensureDebianProgram(REDIS, () => {}, machine.system),
      ensureDebianProgram(CHROMIUM, () => {}, machine.system),
    ]);
    expect(machine.mostAtOnce()).toBe(1);
    expect(machine.calls).toEqual([
      'update',
      'install redis-server',
      'update',
      'install chromium',
    ]);
  });

  it('answers a program already on PATH without apt-get', async () => {
    const machine = fakeMachine();
    machine.onPath.add('redis-server');
    expect(await ensureDebianProgram(REDIS, () => {}, machine.system)).toBe(
      '/usr/bin/redis-server',
    );
    expect(machine.calls).toEqual([]);
  });

  it('says how to install a missing program where it may not', async () => {
    const machine = fakeMachine({ canInstall: false });
    await expect(ensureDebianProgram(REDIS, () => {}, machine.system)).rejects.toThrow(
      'redis-server is not on PATH. install it',
    );
  });

  it('tries a failed install again on the next call', async () => {
    const machine = fakeMachine();
    let failures = 1;
    const flaky: PackageSystem = {
      ...machine.system,
      aptGet: (args, logFile) =>
        failures-- > 0
          ? Promise.reject(new Error('network down'))
          : machine.system.aptGet(args, logFile),
    };
    await expect(ensureDebianProgram(REDIS, () => {}, flaky)).rejects.toThrow('network down');
    expect(await ensureDebianProgram(REDIS, () => {}, flaky)).toBe('/usr/bin/redis-server');
  });
});

describe('installAsked', () => {
  it('is asked only by TEST_INSTALL=1 (or true, yes): a test run installs nothing by default', () => {
    expect(installAsked({})).toBe(false);
    expect(installAsked({ TEST_INSTALL: '' })).toBe(false);
    expect(installAsked({ TEST_INSTALL: '0' })).toBe(false);
    expect(installAsked({ CI: 'true', REQUIRE_SERVICES: '1' })).toBe(false);
    expect(installAsked({ TEST_INSTALL: '1' })).toBe(true);
    expect(installAsked({ TEST_INSTALL: 'Yes' })).toBe(true);
  });
});
