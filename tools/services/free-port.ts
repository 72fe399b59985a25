/**
 * A free TCP port on loopback, for a server a test or a tool starts itself.
 *
 * @module
 */
import { createServer } from 'node:net';

/** A port nothing listens on at the moment of the call (the system's choice). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => {
        if (address !== null && typeof address === 'object') resolve(address.port);
        else reject(new Error('could not find a free TCP port'));
      });
    });
  });
}
