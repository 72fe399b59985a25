/**
 * Files a configuration test points its variables at: PEM-shaped text (the configuration
 * checks a file's kind, not its cryptography) and secrets, in a fresh folder per call.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A key whose text must never appear in a message. */
export const KEY_TEXT = 'key-material-never-shown';

/** Paths of a CA, a client certificate, its key, and `secrets` as files named by their keys. */
export function pemFiles(secrets: Record<string, string> = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'config-tls-'));
  const write = (name: string, content: string) => {
    const path = join(dir, name);
    writeFileSync(path, content);
    return path;
  };
  const files: Record<string, string> = {};
  for (const [name, content] of Object.entries(secrets)) files[name] = write(name, content);
  return {
    ca: write('ca.pem', '-----BEGIN CERTIFICATE-----\nY2E=\n-----END CERTIFICATE-----\n'),
    cert: write('client.pem', '-----BEGIN CERTIFICATE-----\nY2VydA==\n-----END CERTIFICATE-----\n'),
    key: write(
      'client.key',
      `-----BEGIN PRIVATE KEY-----\n${KEY_TEXT}\n-----END PRIVATE KEY-----\n`,
    ),
    notPem: write('notes.txt', `${KEY_TEXT}\n`),
    missing: join(dir, 'missing.pem'),
    files,
  };
}
