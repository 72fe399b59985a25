/**
 * The container's health check (the Dockerfile's HEALTHCHECK): exits 0 when the service in this
 * container answers `/healthz`, on `PORT` (roles `all` and `api`) or on `METRICS_PORT` (role
 * `consumers`), and 1 otherwise. One image runs every role, so the check tries both.
 *
 *   node service/healthcheck.ts
 *
 * @module
 */
import process from 'node:process';
import { DEFAULT_PORT } from '../src/config/defaults.ts';

const TIMEOUT_MS = 2_000;

async function answers(port: string | undefined): Promise<boolean> {
  if (port === undefined || port === '') return false;
  try {
    const response = await fetch(`http://127.0.0.1:${port}/healthz`, {
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    return response.ok;
  } catch {
    return false;
  }
}

const ports = [process.env['PORT'] ?? String(DEFAULT_PORT), process.env['METRICS_PORT']];
const healthy = (await Promise.all(ports.map(answers))).some(Boolean);
if (!healthy) console.error(`no /healthz answered on port ${ports.filter(Boolean).join(' or ')}`);
process.exitCode = healthy ? 0 : 1;
