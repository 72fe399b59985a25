/**
 * promtool on the monitoring kit of deploy/: the alert rules pass `promtool check rules` and their
 * unit tests (`promtool test rules`, which catch a broken rule), and Prometheus's configuration
 * passes `promtool check config`. promtool comes with Debian's `prometheus` package (installed
 * by .ci/run); without it the suite is skipped behind the run's banner, or fails the run with
 * REQUIRE_SERVICES=1.
 *
 * @module
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { parse } from 'yaml';
import { describeWithServices } from '../support/services.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

/** Runs promtool with `args` from the repository's root; its exit code and output. */
function promtool(...args: string[]): { status: number | null; output: string } {
  const run = spawnSync('promtool', args, { cwd: ROOT, encoding: 'utf8' });
  if (run.error !== undefined) throw run.error;
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

const rules = (parse(read('deploy/prometheus/alerts.yml')) as {
  groups: { rules: unknown[] }[];
}).groups.flatMap((group) => group.rules);

describeWithServices(['promtool'], 'promtool on deploy/prometheus', () => {
  test('promtool check rules: the alert rules are valid', () => {
    const { status, output } = promtool('check', 'rules', 'deploy/prometheus/alerts.yml');
    expect(output).toContain(`SUCCESS: ${rules.length} rules found`);
    expect(status, output).toBe(0);
  });

  test("promtool test rules: every rule's unit tests pass", () => {
    const { status, output } = promtool('test', 'rules', 'deploy/prometheus/alerts.test.yml');
    expect(status, output).toBe(0);
    expect(output).toContain('SUCCESS');
  });

  test('promtool check config: the configuration of the monitoring profile is valid', () => {
    const { status, output } = promtool('check', 'config', 'deploy/prometheus/prometheus.yml');
    expect(status, output).toBe(0);
  });

  test('a rule that breaks its unit test is caught (the tests are live)', () => {
    const dir = join(ROOT, 'test-results', 'promtool-live');
    const broken = read('deploy/prometheus/alerts.yml').replace(
      /(\(rate\(consumer_freshness_seconds_bucket\[5m\]\)\)\)) > 2/,
      '$1 > 200',
    );
    expect(broken).not.toBe(read('deploy/prometheus/alerts.yml'));
    const run = spawnSync('sh', [
      '-c',
      'mkdir -p "$1" && cp deploy/prometheus/alerts.test.yml "$1/" && printf %s "$2" > "$1/alerts.yml"' +
      ' && promtool test rules "$1/alerts.test.yml"',
      'sh',
      dir,
      broken,
    ], { cwd: ROOT, encoding: 'utf8' });
    expect(run.status).not.toBe(0);
    expect(`${run.stdout}${run.stderr}`).toContain('FreshnessObjectiveMissed');
  });
});
