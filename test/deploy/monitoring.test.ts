/**
 * The monitoring kit of deploy/ held together: the alert rules pass `promtool check rules` and
 * their unit tests (`promtool test rules`), Prometheus's configuration passes `promtool check
 * config` and scrapes the containers docker-compose.yml runs on the ports they listen on, every
 * alert has a unit test and a runbook section in docs/OPERATIONS.md, and Grafana's provisioning
 * names the data source the dashboard's panels use. Whether the dashboard's and the rules'
 * series exist is checked against a running consumer and API in
 * test/service/operator-metrics.test.ts.
 *
 * promtool comes with Debian's `prometheus` package (installed by .ci/run). Without it the
 * promtool tests are skipped, unless REQUIRE_SERVICES=1 (CI), where its absence fails the run.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { parse } from 'yaml';
import { metricNames } from './exposition.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

/** Runs promtool with `args` from the repository's root; its exit code and output. */
function promtool(...args: string[]): { status: number | null; output: string } {
  const run = spawnSync('promtool', args, { cwd: ROOT, encoding: 'utf8' });
  if (run.error !== undefined) throw run.error;
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

const hasPromtool = spawnSync('promtool', ['--version']).error === undefined;
const required = process.env['REQUIRE_SERVICES'] === '1';

interface Rule {
  readonly alert: string;
  readonly expr: string;
  readonly annotations: Readonly<Record<string, string>>;
}

const rules = (parse(read('deploy/prometheus/alerts.yml')) as {
  groups: { rules: Rule[] }[];
}).groups.flatMap((group) => group.rules);

describe.skipIf(!hasPromtool && !required)('promtool on deploy/prometheus', () => {
  test('promtool is installed (apt-get install prometheus)', () => {
    expect(hasPromtool, 'promtool is not on PATH: apt-get install prometheus').toBe(true);
  });

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

describe('the alert rules, their tests and the runbook', () => {
  const tests = read('deploy/prometheus/alerts.test.yml');
  const operations = read('docs/OPERATIONS.md');

  test('there is a rule for each question the issue asks', () => {
    expect(rules.map((rule) => rule.alert).sort()).toEqual([
      'ConsumerLagGrowing',
      'DeadLettersAppearing',
      'FreshnessObjectiveMissed',
      'HttpServerErrors',
      'PartitionPaused',
      'ProcessDown',
      'StoreErrors',
    ]);
  });

  test.each(rules.map((rule) => [rule.alert, rule] as const))(
    '%s has a unit test and a runbook section its annotation points at',
    (alert, rule) => {
      expect(tests).toContain(`alertname: ${alert}\n`);
      expect(rule.annotations['runbook']).toBe(`docs/OPERATIONS.md#${alert.toLowerCase()}`);
      expect(operations).toMatch(new RegExp(`^### ${alert}$`, 'm'));
    },
  );

  test('every rule names at least one series', () => {
    for (const rule of rules) expect(metricNames(rule.expr), rule.alert).not.toEqual([]);
  });
});

describe('the PromQL reader of the tests', () => {
  test('finds the metric names of an expression, not its functions, labels or ranges', () => {
    expect(
      metricNames(
        'sum by (le) (rate(x_bucket{job="a",le="1e3"}[5m])) / sum(rate(y_count[$__rate_interval]))' +
          ' > 1e-2 and on (job) up{job=~"api|c"} == 0',
      ),
    ).toEqual(['x_bucket', 'y_count', 'up']);
    expect(
      metricNames(
        'histogram_quantile(0.99, sum by (le, topic) (rate(consumer_freshness_seconds_bucket[5m])))',
      ),
    ).toEqual(['consumer_freshness_seconds_bucket']);
  });
});

interface ComposeService {
  readonly profiles?: readonly string[];
  readonly environment?: Readonly<Record<string, string>>;
  readonly volumes?: readonly string[];
}

describe('the monitoring profile of docker-compose.yml', () => {
  const compose = parse(read('docker-compose.yml'), { merge: true }) as {
    services: Record<string, ComposeService>;
  };
  const prometheus = parse(read('deploy/prometheus/prometheus.yml')) as {
    rule_files: string[];
    scrape_configs: {
      job_name: string;
      dns_sd_configs: { names: string[]; port: number }[];
    }[];
  };

  test('runs Prometheus and Grafana in the profile only', () => {
    expect(compose.services['prometheus']?.profiles).toEqual(['monitoring']);
    expect(compose.services['grafana']?.profiles).toEqual(['monitoring']);
  });

  test('Prometheus scrapes the API and the consumers on the ports their containers listen on', () => {
    const jobs = new Map(prometheus.scrape_configs.map((job) => [job.job_name, job]));
    expect([...jobs.keys()].sort()).toEqual(['api', 'consumers']);
    for (const job of jobs.values()) {
      for (const { names, port } of job.dns_sd_configs) {
        for (const name of names) {
          const env = compose.services[name]?.environment;
          expect(env, `${job.job_name}: no container ${name}`).toBeDefined();
          const listens = job.job_name === 'api' ? env?.['PORT'] : env?.['METRICS_PORT'];
          expect(listens, `${job.job_name}: ${name}`).toBe(String(port));
        }
      }
    }
  });

  test('every file the profile mounts is in the repository', () => {
    for (const name of ['prometheus', 'grafana']) {
      for (const volume of compose.services[name]?.volumes ?? []) {
        const source = volume.split(':')[0] ?? '';
        expect(existsSync(join(ROOT, source)), `${name}: ${source}`).toBe(true);
      }
    }
    expect(prometheus.rule_files).toEqual(['alerts.yml']);
  });

  test("Grafana's provisioned data source is the one every panel of the dashboard names", () => {
    const sources = parse(read('deploy/grafana/provisioning/datasources/prometheus.yml')) as {
      datasources: { uid: string; type: string; url: string }[];
    };
    const [source] = sources.datasources;
    expect(source?.type).toBe('prometheus');
    expect(source?.url).toBe('http://prometheus:9090');
    const dashboard = JSON.parse(read('deploy/grafana/streaming-endpoints.json')) as {
      panels: { type: string; datasource?: { uid: string } }[];
    };
    const panels = dashboard.panels.filter((panel) => panel.type !== 'row');
    expect(panels.length).toBeGreaterThan(0);
    for (const panel of panels) expect(panel.datasource?.uid).toBe(source?.uid);
  });
});
