/**
 * The monitoring kit of deploy/ held together: the alert rules pass `promtool check rules` and
 * their unit tests (`promtool test rules`), Prometheus's configuration passes `promtool check
 * config` and scrapes the containers docker-compose.yml runs on the ports they listen on, every
 * alert has a unit test and a runbook section in docs/OPERATIONS.md, every command the runbook
 * gives is one that exists and that a test runs, and Grafana's provisioning names the data source
 * the dashboard's panels use. Whether the dashboard's and the rules'
 * series exist is checked against a running consumer and API in
 * test/service/operator-metrics.test.ts.
 *
 * promtool's own checks of these files are in test/deploy/promtool.test.ts (the services tier).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { parse } from 'yaml';
import { PUBLIC_PATHS } from '../../api/routes/operations.ts';
import { metricNames } from './exposition.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

interface Rule {
  readonly alert: string;
  readonly expr: string;
  readonly annotations: Readonly<Record<string, string>>;
}

const rules = (parse(read('deploy/prometheus/alerts.yml')) as {
  groups: { rules: Rule[] }[];
}).groups.flatMap((group) => group.rules);

describe('the alert rules, their tests and the runbook', () => {
  const tests = read('deploy/prometheus/alerts.test.yml');
  const operations = read('docs/OPERATIONS.md');

  test('there is a rule for each question the issue asks', () => {
    expect(rules.map((rule) => rule.alert).sort()).toEqual([
      'ConsumerLagGrowing',
      'DeadLettersAppearing',
      'EventsLostToRetention',
      'FreshnessObjectiveMissed',
      'HttpServerErrors',
      'PartitionPaused',
      'ProcessDown',
      'StoreErrors',
      'StoreRefusingWrites',
      'StoreTimeouts',
      'StoreWentBack',
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

/** The lines of the `sh` code blocks of a Markdown text. */
function shellLines(markdown: string): string[] {
  return [...markdown.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].flatMap((block) =>
    (block[1] ?? '').split('\n').filter((line) => line.trim() !== '' && !line.startsWith('#'))
  );
}

/** Every test file's text, by path. */
function testTexts(): string[] {
  const run = spawnSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', 'test'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  return run.stdout.split('\n').filter((path) => path.endsWith('.ts')).map(read);
}

/** The paths the consumers role serves on METRICS_PORT (service/consumer-ops.ts). */
const CONSUMER_PATHS = new Set(['/metrics', '/healthz', '/readyz']);

describe("the runbook's commands", () => {
  const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> })
    .scripts;
  const compose = read('docker-compose.yml');
  const tested = testTexts();
  /** Why `line` is not a command that exists and is tested, or null. */
  const unsupported = (line: string): string | null => {
    const npm = /^npm run ([\w:-]+)(?: -- .*)?$/.exec(line);
    if (npm !== null) {
      const script = scripts[npm[1] ?? ''];
      if (script === undefined) return `no npm script ${npm[1]}`;
      // The script's entry file (and role) run by some test.
      const entry = /\S+\.ts\b/.exec(script)?.[0] ?? '';
      const role = /--role (\w+)/.exec(script)?.[1];
      const runs = tested.some((text) =>
        text.includes(entry) &&
        (role === undefined || text.includes(`'--role', '${role}'`) ||
          text.includes(`role: '${role}'`))
      );
      return runs ? null : `no test runs ${entry}${role === undefined ? '' : ` --role ${role}`}`;
    }
    const curl = /^curl -s http:\/\/127\.0\.0\.1:(8080|9464)(\/\w+)(?: \| grep '\^\w+')?$/.exec(
      line,
    );
    if (curl !== null) {
      const paths = curl[1] === '8080' ? PUBLIC_PATHS : CONSUMER_PATHS;
      return paths.has(curl[2] ?? '') ? null : `no route ${curl[2]} on port ${curl[1]}`;
    }
    const up = /^docker compose((?: --profile \w+)+) up$/.exec(line);
    if (up !== null) {
      const profiles = [...(up[1] ?? '').matchAll(/--profile (\w+)/g)].map((m) => m[1]);
      const missing = profiles.filter((profile) => !compose.includes(`profiles: [${profile}]`));
      return missing.length === 0 ? null : `no compose profile ${missing.join(', ')}`;
    }
    if (
      line === 'promtool check rules deploy/prometheus/alerts.yml' ||
      line === 'promtool test rules deploy/prometheus/alerts.test.yml'
    ) return null;
    return 'not a command this test knows to be tested';
  };

  test('docs/OPERATIONS.md gives commands', () => {
    expect(shellLines(read('docs/OPERATIONS.md')).length).toBeGreaterThan(5);
  });

  test.each(shellLines(read('docs/OPERATIONS.md')).map((line) => [line]))(
    '%s exists and is tested',
    (line) => {
      expect(unsupported(line)).toBeNull();
    },
  );

  test('a command that does not exist is refused', () => {
    expect(unsupported('npm run consumers:rebuild')).toBe('no npm script consumers:rebuild');
    expect(unsupported('curl -s http://127.0.0.1:9464/status')).toBe(
      'no route /status on port 9464',
    );
    expect(unsupported('docker compose --profile grafana up')).toBe('no compose profile grafana');
    expect(unsupported('redis-cli FLUSHALL')).toBe('not a command this test knows to be tested');
  });
});

describe('the dashboard', () => {
  test('has one row per question', () => {
    const dashboard = JSON.parse(read('deploy/grafana/streaming-endpoints.json')) as {
      panels: { type: string; title: string }[];
    };
    const rows = dashboard.panels.filter((panel) => panel.type === 'row').map(({ title }) =>
      title.split(':')[0]
    );
    expect(rows).toEqual([
      'Freshness',
      'Throughput and lag',
      'Errors and dead letters',
      'Store health',
      'API',
    ]);
  });
});
