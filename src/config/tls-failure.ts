/**
 * Which TLS setting to fix, from the error of a failed handshake: Node's certificate checks
 * fail with codes (`SELF_SIGNED_CERT_IN_CHAIN`, …) that say what is wrong but not which of our
 * variables would make it right.
 *
 * @module
 */
import type { TlsSettings } from './tls.ts';

/** Node's codes for a server certificate that does not chain to a trusted CA. */
const UNTRUSTED = new Set([
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_UNTRUSTED',
  'CERT_SIGNATURE_FAILURE',
]);

/** The `code` of `error` or of any error it wraps (`cause`, kafkajs's `originalError`). */
export function errorCodes(error: unknown): string[] {
  const codes: string[] = [];
  const seen = new Set<unknown>();
  let current: unknown = error;
  while (typeof current === 'object' && current !== null && !seen.has(current)) {
    seen.add(current);
    const { code, cause, originalError } = current as Record<string, unknown>;
    if (typeof code === 'string') codes.push(code);
    current = cause ?? originalError;
  }
  return codes;
}

/**
 * What to set when `error` is a TLS handshake failure of the client whose variables start with
 * `prefix` (`KAFKA`, `REDIS`) and whose settings are `tls`; null for any other error.
 */
export function tlsFailureHint(
  error: unknown,
  prefix: string,
  tls: TlsSettings | null,
): string | null {
  const codes = errorCodes(error);
  const ca = `${prefix}_TLS_CA_FILE`;
  if (codes.some((code) => UNTRUSTED.has(code))) {
    return tls?.ca === null || tls === null
      ? `the server's TLS certificate is not signed by a CA this system trusts: set ${ca} to ` +
        'the PEM file of the CA that signed it'
      : `the server's TLS certificate is not signed by the CA in ${ca}: set it to the CA that ` +
        'signed the certificate';
  }
  if (codes.includes('CERT_HAS_EXPIRED')) {
    return "the server's TLS certificate has expired: renew it on the server";
  }
  if (codes.includes('ERR_TLS_CERT_ALTNAME_INVALID')) {
    return "the server's TLS certificate is not for the host name connected to: connect by a " +
      'name the certificate lists';
  }
  if (
    codes.some((code) =>
      /^ERR_SSL_.*ALERT_(CERTIFICATE_REQUIRED|BAD_CERTIFICATE|CERTIFICATE_UNKNOWN|UNKNOWN_CA)/.test(
        code,
      )
    )
  ) {
    return `the server refused this client's TLS certificate: set ${prefix}_TLS_CERT_FILE and ` +
      `${prefix}_TLS_KEY_FILE to a certificate it trusts`;
  }
  return null;
}
