/**
 * Per-project key bounds (issue 12, item 6), the decision alone: distinct function ids and
 * request hosts per project and day of one stream, an event refused whole, the stored members
 * read back.
 */
import { describe, expect, test } from 'vitest';
import { parse } from '../../src/events/parse.ts';
import type { LogEvent } from '../../src/events/types.ts';
import {
  admissionDay,
  AdmittedKeys,
  admittedKeysExpiryMs,
  admittedKeysKey,
  namesBoundedKeys,
  PROJECT_DAY_BOUNDS,
} from '../../src/rollup/admission.ts';
import { MAX_EVENT_AGE_US } from '../../src/events/limits.ts';

const NOW_US = 1_795_546_847_000_000;
const DAY_US = 86_400_000_000;

function event(text: string, source: 'edge' | 'function-edge'): LogEvent {
  const result = parse(text, source, { nowUs: NOW_US, maxFutureSkewUs: 0 });
  if (!result.ok) throw new Error(result.rejection.reason);
  return result.event;
}

/** A function-edge event of `project` invoking each of `functionIds` once. */
function invoking(project: string, functionIds: readonly (string | null)[], atUs = NOW_US) {
  return event(
    JSON.stringify({
      id: `e-${functionIds.join(',')}`.slice(0, 200),
      timestamp: atUs,
      metadata: functionIds.map((functionId) => ({
        project_ref: project,
        ...(functionId === null ? {} : { function_id: functionId }),
        execution_time_ms: 5,
        response: [{ status_code: 200 }],
      })),
    }),
    'function-edge',
  );
}

/** An edge event of `project` with one request to each of `hosts`. */
function requesting(project: string, hosts: readonly string[]) {
  return event(
    JSON.stringify({
      id: `e-${hosts.join(',')}`.slice(0, 200),
      timestamp: NOW_US,
      project,
      event_message: 'GET | 200',
      metadata: [{
        request: hosts.map((host) => ({ method: 'GET', host, path: '/rest/v1/t' })),
        response: [{ status_code: 200 }],
      }],
    }),
    'edge',
  );
}

const ids = (from: number, count: number) =>
  Array.from({ length: count }, (_, i) => `fn-${from + i}`);

describe('AdmittedKeys', () => {
  test('admits distinct function ids up to the bound, then refuses the whole event', () => {
    const keys = new AdmittedKeys();
    const bound = PROJECT_DAY_BOUNDS.functions;
    for (let from = 0; from < bound; from += 50) {
      const decided = keys.admit(invoking('p', ids(from, 50)), 'logs.function-edge/3');
      expect(decided.ok).toBe(true);
    }
    expect(keys.count('functions')).toBe(bound);
    // Known ids and events without a function id still pass.
    expect(keys.admit(invoking('p', ['fn-0', 'fn-999', null]), 's')).toEqual({
      ok: true,
      added: [],
    });
    // One new id among known ones: the whole event is refused, and nothing of it admitted.
    const refused = keys.admit(invoking('p', ['fn-1', 'fn-new']), 'logs.function-edge/3');
    expect(refused.ok).toBe(false);
    if (refused.ok) return;
    expect(refused.rejection.kind).toBe('cardinality');
    expect(refused.rejection.reason).toBe(
      `project p already has ${bound} distinct function_ids on 2026-11-24 (UTC) in stream ` +
        `logs.function-edge/3, the most one stream folds per project and day (${bound}); this ` +
        'event names 1 more ("fn-new" first)',
    );
    expect(keys.count('functions')).toBe(bound);
  });

  test('bounds request hosts apart from function ids; answers the members to store', () => {
    const keys = new AdmittedKeys(['fa', 'hknown.example.com', 'xother-layout']);
    expect(keys.count('functions')).toBe(1);
    expect(keys.count('hosts')).toBe(1);
    const decided = keys.admit(requesting('p', ['known.example.com', 'new.example.com']), 's');
    expect(decided).toEqual({ ok: true, added: ['hnew.example.com'] });
    const hosts = Array.from({ length: 16 }, (_, i) => `h${i}.example.com`);
    let admitted = 2;
    while (admitted + 16 <= PROJECT_DAY_BOUNDS.hosts) {
      const next = hosts.map((host) => `${admitted}-${host}`);
      expect(keys.admit(requesting('p', next), 's').ok).toBe(true);
      admitted += 16;
    }
    const beyond = hosts.map((host) => `last-${host}`);
    expect(keys.admit(requesting('p', beyond), 's').ok).toBe(false);
    expect(keys.admit(invoking('p', ['fb']), 's')).toEqual({ ok: true, added: ['ffb'] });
  });

  test('events that name no bounded key need no admission', () => {
    expect(namesBoundedKeys(invoking('p', [null]))).toBe(false);
    expect(namesBoundedKeys(invoking('p', ['f']))).toBe(true);
    expect(namesBoundedKeys(requesting('p', ['h.example.com']))).toBe(true);
  });
});

describe('the stored sets', () => {
  test('one per project, stream and UTC day, in the project key group, kept while the day can be folded', () => {
    const day = admissionDay(invoking('p', ['f'], NOW_US));
    expect(day % DAY_US).toBe(0);
    expect(admittedKeysKey('p', 'logs.edge/3', day)).toBe(
      `rollup:{p}:admitted:logs.edge/3:${day / 1_000_000}`,
    );
    expect(admittedKeysExpiryMs(day)).toBeGreaterThan((day + DAY_US + MAX_EVENT_AGE_US) / 1000);
  });
});
