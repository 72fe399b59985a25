/**
 * The service started in the test's own process, as `service/main.ts` starts it on Node, with
 * the real clock and no banner.
 *
 * @module
 */
import { serveNode } from '../../api/adapters/node.ts';
import { type Service, type StartOptions, startService } from '../../service/start.ts';
import { createLogger } from '../../src/logger.ts';

/**
 * Starts `options.role` on `options.config`; a fatal message goes to `onFatal`. The clock is the
 * real one unless `options.nowUs` is given.
 */
export function startTestService(
  options:
    & Pick<StartOptions, 'config' | 'logger' | 'role' | 'onFatal'>
    & Partial<Pick<StartOptions, 'nowUs'>>,
): Promise<Service> {
  return startService({
    demo: false,
    serve: serveNode,
    nowUs: () => Date.now() * 1000,
    print: () => {},
    ...options,
  });
}

/** A request to a started service, with its API key. */
export type ServiceCall = (path: string, init?: RequestInit) => Promise<Response>;

/**
 * Starts every role on `config` and resolves once `/readyz` answers 200 (the store, topics and
 * consumers are ready), with a way to call it with `key`; rejects with the fatal message, or
 * after 60 s. `nowUs` replaces the real clock (a fixed one makes answers exact to compare).
 */
export async function startReadyService(
  config: StartOptions['config'],
  name: string,
  key: string,
  nowUs?: StartOptions['nowUs'],
): Promise<{ service: Service; call: ServiceCall }> {
  let fatal: string | null = null;
  const service = await startTestService({
    config,
    logger: createLogger('warn', name),
    role: 'all',
    onFatal: (message) => (fatal = message),
    ...(nowUs === undefined ? {} : { nowUs }),
  });
  const call: ServiceCall = (path, init = {}) =>
    fetch(`${service.url}${path}`, { ...init, headers: { 'X-API-KEY': key, ...init.headers } });
  // The service answers at once and says when its store, topics and consumers are ready.
  const deadline = Date.now() + 60_000;
  while ((await call('/readyz')).status !== 200) {
    if (fatal !== null || Date.now() > deadline) {
      await service.stop();
      throw new Error(`the service did not get ready: ${fatal ?? 'no fatal message'}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { service, call };
}
