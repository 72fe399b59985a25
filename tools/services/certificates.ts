/**
 * The local certificate authority of the secure services, made with `openssl` on first use and
 * kept in `.services/tls/` (reused while its files are there; delete the folder for new ones):
 *
 * - `ca.pem`, `ca.key`: the CA clients are told to trust (`SECURE_TLS_CA_FILE`);
 * - `server.pem`, `server.key`: signed by it for `127.0.0.1` and `localhost`, for server and
 *   client use (a Redis Cluster node presents it to its peers);
 * - `client.pem`, `client.key`: a client certificate of the same CA, for mutual TLS;
 * - `untrusted-ca.pem`, `untrusted-ca.key`: a CA that signed nothing here, for the tests of an
 *   untrusted server (and, self-signed, of an untrusted client).
 *
 * @module
 */
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { serviceDir } from './paths.ts';
import { findOnPath, runLogged } from './run.ts';

/** Where the local CA and its certificates are. */
export const TLS_DIR: string = serviceDir('tls');

/** Paths of the files {@link ensureCertificates} makes. */
export const TLS_FILES = {
  ca: join(TLS_DIR, 'ca.pem'),
  caKey: join(TLS_DIR, 'ca.key'),
  serverCert: join(TLS_DIR, 'server.pem'),
  serverKey: join(TLS_DIR, 'server.key'),
  clientCert: join(TLS_DIR, 'client.pem'),
  clientKey: join(TLS_DIR, 'client.key'),
  untrustedCa: join(TLS_DIR, 'untrusted-ca.pem'),
  untrustedCaKey: join(TLS_DIR, 'untrusted-ca.key'),
} as const;

const DAYS = '825';

/** The making under way in this process: the secure services start together and share it. */
let making: Promise<void> | null = null;

/** Makes the CA and its certificates unless they are all there already. */
export function ensureCertificates(log: (line: string) => void): Promise<void> {
  if (Object.values(TLS_FILES).every((file) => existsSync(file))) return Promise.resolve();
  making ??= makeCertificates(log).finally(() => (making = null));
  return making;
}

async function makeCertificates(log: (line: string) => void): Promise<void> {
  if (findOnPath('openssl') === undefined) {
    throw new Error('openssl not found: install it (Debian: apt-get install -y openssl)');
  }
  log(`making a local certificate authority and certificates in ${TLS_DIR}`);
  // Made in a scratch folder and moved into place whole: an interrupted run leaves no half CA.
  const scratch = `${TLS_DIR}.partial`;
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(scratch, { recursive: true });
  const logFile = join(scratch, 'openssl.log');
  const openssl = (args: readonly string[]) =>
    runLogged('openssl', args, { logFile, cwd: scratch });
  const selfSignedCa = (name: string, subject: string) =>
    openssl([
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      `${name}.key`,
      '-out',
      `${name}.pem`,
      '-days',
      DAYS,
      '-subj',
      subject,
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    ]);
  const signed = async (name: string, subject: string, extensions: string) => {
    writeFileSync(join(scratch, `${name}.ext`), extensions);
    await openssl([
      'req',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      `${name}.key`,
      '-out',
      `${name}.csr`,
      '-subj',
      subject,
    ]);
    await openssl([
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-out',
      `${name}.pem`,
      '-days',
      DAYS,
      '-extfile',
      `${name}.ext`,
    ]);
  };
  await selfSignedCa('ca', '/CN=streaming-endpoints local CA');
  await selfSignedCa('untrusted-ca', '/CN=a CA nothing here trusts');
  await signed(
    'server',
    '/CN=localhost',
    'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth,clientAuth\n',
  );
  await signed('client', '/CN=streaming-endpoints client', 'extendedKeyUsage=clientAuth\n');
  rmSync(TLS_DIR, { recursive: true, force: true });
  renameSync(scratch, TLS_DIR);
}
