/**
 * The TLS files of a client (`<PREFIX>_TLS_CA_FILE`, `_CERT_FILE`, `_KEY_FILE`), read once at
 * start and checked to hold PEM of the right kind: a wrong path is a configuration error, not a
 * handshake that fails later for a reason the user must guess.
 *
 * @module
 */
import { ConfigError, type Env, fileContent, text } from './read.ts';
import { Secret } from './secret.ts';

/** What a TLS client is given beyond the system's trusted CAs. */
export interface TlsSettings {
  /** PEM certificates of the CAs to trust instead of the system's, or null: the system's. */
  readonly ca: string | null;
  /** PEM client certificate (chain) for mutual TLS, with `key`; null without. */
  readonly cert: string | null;
  /** PEM private key of `cert`. */
  readonly key: Secret | null;
}

/** Whether any of the TLS file variables of `prefix` is set. */
export function tlsFilesSet(env: Env, prefix: string): string | null {
  return ['CA', 'CERT', 'KEY'].map((part) => `${prefix}_TLS_${part}_FILE`)
    .find((name) => text(env, name) !== null) ?? null;
}

/** The TLS files of `prefix` (`KAFKA`, `REDIS`), each checked to hold what it should. */
export function tlsSettings(env: Env, prefix: string): TlsSettings {
  const caVariable = `${prefix}_TLS_CA_FILE`;
  const certVariable = `${prefix}_TLS_CERT_FILE`;
  const keyVariable = `${prefix}_TLS_KEY_FILE`;
  const ca = pem(
    env,
    caVariable,
    'CERTIFICATE',
    'PEM CA certificates (-----BEGIN CERTIFICATE-----)',
  );
  const cert = pem(env, certVariable, 'CERTIFICATE', 'a PEM client certificate');
  const key = pem(env, keyVariable, 'PRIVATE KEY', 'the PEM private key of the client certificate');
  if ((cert === null) !== (key === null)) {
    const [set, unset] = cert === null ? [keyVariable, certVariable] : [certVariable, keyVariable];
    throw new ConfigError(
      unset,
      '',
      `set with ${set}: a client certificate and its key go together`,
    );
  }
  return { ca, cert, key: key === null ? null : new Secret(key) };
}

/** The PEM file `name` names, which must hold a block whose label ends with `label`. */
function pem(env: Env, name: string, label: string, what: string): string | null {
  const content = fileContent(env, name, what);
  if (content === null) return null;
  if (!new RegExp(`-----BEGIN [A-Z ]*${label}-----`).test(content)) {
    // The path names the file; its content (maybe a key) is never shown.
    throw new ConfigError(name, text(env, name) ?? '', `a file holding ${what}`);
  }
  return content;
}
