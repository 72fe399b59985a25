/**
 * A launcher in front of the service (`deno task`, `npm`, a terminal's Ctrl-C to the whole
 * process group) may deliver the same stop signal twice at once: the service still stops cleanly,
 * logging its stop once and exiting 0, instead of being cut short by the second signal.
 */
import { expect, test } from 'vitest';
import { embeddedEnv, startChild } from '../api/helpers/child.ts';

/** The tries of one signal: a service that stops before the second signal comes is tried again. */
const TRIES = 5;

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  test(`${signal} twice at once still stops the service cleanly`, async () => {
    let delivered = false;
    for (let attempt = 0; attempt < TRIES && !delivered; attempt++) {
      const service = await startChild(
        'node_modules/.bin/node',
        ['--disable-warning=TimeoutNegativeWarning', 'service/main.ts'],
        embeddedEnv(),
      );
      // The log line may reach the pipe after the service first answers: wait for it (5 s).
      const listening = /"pid":(\d+)[^\n]*"msg":"listening"/;
      for (let waited = 0; !listening.test(service.output()) && waited < 5_000; waited += 10) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      const pid = Number(listening.exec(service.output())?.[1]);
      expect(pid).toBeGreaterThan(0);
      process.kill(pid, signal);
      // The second one once the first is being handled, as a launcher forwarding it would.
      while (!service.output().includes('"msg":"stopping"')) {
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
      try {
        process.kill(pid, signal);
        delivered = true;
      } catch (error) {
        // Stopped already, between its log line and the second signal: nothing was tested.
        if (!(error instanceof Error && 'code' in error && error.code === 'ESRCH')) throw error;
      }
      const code = await service.stop();
      expect(code).toBe(0);
      expect(service.output().match(/"msg":"stopping"/g)).toHaveLength(1);
    }
    expect(delivered, `the service stopped before a second ${signal} in ${TRIES} tries`)
      .toBe(true);
  }, 120_000);
}
