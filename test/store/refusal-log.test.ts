import { describe, expect, it } from 'vitest';
import { REFUSAL_REPEAT_MS, RefusalLog } from '../../src/store/refusal-log.ts';
import type { WriteRefusal } from '../../src/store/write-refusal.ts';
import { messagesLogger } from '../support/logged-messages.ts';

/** A refusal log on a clock the test moves, its lines and its state changes. */
function refusalLog(memory = true) {
  const lines: string[] = [];
  const changes: (WriteRefusal | null)[] = [];
  let nowMs = 1_000_000;
  const log = new RefusalLog({
    logger: messagesLogger('info', 'test', lines),
    nowMs: () => nowMs,
    ...(memory
      ? { memory: () => Promise.resolve({ usedBytes: 2_097_152, maxBytes: 2_097_152 }) }
      : {}),
    onChange: (reason) => changes.push(reason),
  });
  return { log, lines, changes, advance: (ms: number) => (nowMs += ms) };
}

/** Lets the first line's look at the memory finish. */
const settled = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('RefusalLog', () => {
  it('says a refusal once with what to do, reminds once a minute, and says when it is over', async () => {
    const { log, lines, changes, advance } = refusalLog();
    expect(log.current()).toBeNull();
    log.refused('full', 'commitProject');
    await settled();
    expect(lines).toEqual([
      'the store refuses writes: the store is full (2.0 MiB in use of maxmemory 2.0 MiB): raise ' +
      'maxmemory (redis-cli CONFIG SET maxmemory <bytes>, and in redis.conf) or add shards; ' +
      'writes wait until it has room (docs/OPERATIONS.md, "StoreRefusingWrites")',
    ]);
    for (let i = 0; i < 163; i++) {
      advance(100);
      log.refused('full', 'commitProject');
    }
    expect(lines).toHaveLength(1);
    expect(log.current()).toBe('full');
    advance(REFUSAL_REPEAT_MS);
    log.refused('full', 'commitProject');
    log.refused('full', 'commitProject');
    expect(lines.slice(1)).toEqual(['the store still refuses writes (full); writes wait']);
    advance(3_000);
    log.accepted('commitProject');
    log.accepted('commitProject');
    expect(lines.slice(2)).toEqual([
      'the store accepts writes again after 79 s (full); 166 writes waited and are made now',
    ]);
    expect(log.current()).toBeNull();
    expect(changes).toEqual(['full', null]);
  });

  it('says a new reason as a new refusal', async () => {
    const { log, lines, changes } = refusalLog(false);
    log.refused('readonly', 'commitProject');
    log.refused('noperm', 'commitProject');
    await settled();
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain('read-only replica');
    expect(lines[1]).toContain('NOPERM');
    expect(changes).toEqual(['readonly', 'noperm']);
    expect(log.current()).toBe('noperm');
  });

  it('says nothing for writes accepted while none was refused', () => {
    const { log, lines, changes } = refusalLog();
    log.accepted('commitProject');
    expect(lines).toEqual([]);
    expect(changes).toEqual([]);
  });

  it('ends a refusal only when a call it refused is made: a user may lack one command', async () => {
    const { log, lines } = refusalLog(false);
    log.refused('noperm', 'commitProject');
    log.accepted('updateSortedSet');
    expect(log.current()).toBe('noperm');
    log.accepted('commitProject');
    expect(log.current()).toBeNull();
    await settled();
    expect(lines).toHaveLength(2);
  });
});
