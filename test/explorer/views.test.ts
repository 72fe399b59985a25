/**
 * The explorer's request building (api/explorer/page/views.js, plain browser JavaScript): the
 * view a URL fragment stands for, the request it sends and that request as a curl command.
 */
import { describe, expect, test } from 'vitest';
import { ENDPOINTS as RECORDS } from '../../src/contract/registry.ts';
import {
  curlCommand,
  ENDPOINTS,
  hashOf,
  queryOf,
  requestPath,
  viewFromHash,
} from '../../api/explorer/page/views.js';

describe('explorer views', () => {
  test('a fragment without choices is the first endpoint with its default interval', () => {
    expect(viewFromHash('')).toEqual({
      endpoint: 'functions.invocation-stats',
      project: '',
      interval: '1hr',
      function_id: '',
      project_tier: 'PRO',
    });
  });

  test('unknown endpoints, intervals and tiers fall back to the defaults', () => {
    const view = viewFromHash('#endpoint=nope&interval=weekly&project_tier=GOLD&project=p');
    expect(view.endpoint).toBe('functions.invocation-stats');
    expect(view.interval).toBe('1hr');
    expect(view.project_tier).toBe('PRO');
    expect(viewFromHash('#endpoint=usage.api-counts&interval=5min').interval).toBe('hourly');
  });

  test.each(RECORDS.filter((record) => record.name !== 'logs.all'))(
    'the page offers every interval $name accepts, in its order',
    (record) => {
      const interval = record.parameters.find((parameter) => parameter.name === 'interval');
      expect(ENDPOINTS[record.name].intervals).toEqual(interval?.values);
    },
  );

  test('a view sends only its endpoint parameters, empty optional ones left out', () => {
    const stats = viewFromHash('#endpoint=functions.invocation-stats&project=p&interval=5min');
    expect(queryOf(stats)).toEqual({ project: 'p', interval: '5min' });
    expect(queryOf({ ...stats, function_id: 'f 1' })).toEqual({
      project: 'p',
      interval: '5min',
      function_id: 'f 1',
    });
    const logs = viewFromHash('#endpoint=logs.all&project=p&interval=5min&project_tier=FREE');
    expect(requestPath(logs)).toBe('/api/endpoints/logs.all?project=p&project_tier=FREE');
  });

  test('the fragment of a view reads back as the same view', () => {
    const view = viewFromHash('#endpoint=usage.api-counts&project=a%26b&interval=daily');
    expect(view.project).toBe('a&b');
    expect(viewFromHash(hashOf(view))).toEqual(view);
  });

  test('the curl command quotes the URL for a POSIX shell and reads the key from $API_KEY', () => {
    const path = requestPath(viewFromHash("#endpoint=logs.all&project=it's"));
    expect(path).toBe('/api/endpoints/logs.all?project=it%27s&project_tier=PRO');
    expect(curlCommand('http://127.0.0.1:8080', "/x?project=it's")).toBe(
      `curl -H "X-API-KEY: $API_KEY" 'http://127.0.0.1:8080/x?project=it'\\''s'`,
    );
  });
});
