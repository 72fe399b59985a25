/**
 * The service started in the test's own process, as `service/main.ts` starts it on Node, with
 * the real clock and no banner.
 *
 * @module
 */
import { serveNode } from '../../api/adapters/node.ts';
import { type Service, type StartOptions, startService } from '../../service/start.ts';

/** Starts `options.role` on `options.config`; a fatal message goes to `onFatal`. */
export function startTestService(
  options: Pick<StartOptions, 'config' | 'logger' | 'role' | 'onFatal'>,
): Promise<Service> {
  return startService({
    demo: false,
    serve: serveNode,
    nowUs: () => Date.now() * 1000,
    print: () => {},
    ...options,
  });
}
