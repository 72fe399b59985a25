import { describe, expect, it } from 'vitest';
import {
  fullestMemory,
  infoNumber,
  refusalAdvice,
  refusalInInfo,
  refusalInInfos,
  refusingText,
  writeRefusalOf,
} from '../../src/store/write-refusal.ts';

describe('writeRefusalOf', () => {
  it.each([
    ["OOM command not allowed when used memory > 'maxmemory'.", 'full'],
    ["READONLY You can't write against a read only replica.", 'readonly'],
    [
      'MISCONF Redis is configured to save RDB snapshots, but it is currently not able to ' +
      'persist on disk.',
      'misconf',
    ],
    [
      'BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.',
      'busy',
    ],
    ["NOPERM User rollups has no permissions to run the 'evalsha' command", 'noperm'],
  ])('reads %s as %s', (message, reason) => {
    expect(writeRefusalOf(new Error(message))).toBe(reason);
  });

  it.each([
    'connect ECONNREFUSED 127.0.0.1:6379',
    'LOADING Redis is loading the dataset in memory',
    'ERR unknown command',
    'the OOM of another kind',
    'BUSYKEY Target key name already exists.',
  ])('reads %s as no refusal', (message) => {
    expect(writeRefusalOf(new Error(message))).toBeNull();
  });

  it('reads nothing but errors', () => {
    expect(writeRefusalOf("OOM command not allowed when used memory > 'maxmemory'.")).toBeNull();
  });
});

describe('refusalInInfo', () => {
  const info = (lines: readonly string[]) => `# Section\r\n${lines.join('\r\n')}\r\n`;

  it('says readonly for a replica', () => {
    expect(refusalInInfo(info(['role:slave', 'master_host:127.0.0.1']))).toBe('readonly');
  });

  it('says full at maxmemory under noeviction, not under a limit it has not reached', () => {
    const full = ['used_memory:2000000', 'maxmemory:2000000', 'maxmemory_policy:noeviction'];
    expect(refusalInInfo(info(['role:master', ...full]))).toBe('full');
    expect(refusalInInfo(info(['used_memory:1999999', 'maxmemory:2000000']))).toBeNull();
    expect(refusalInInfo(info(['used_memory:5', 'maxmemory:0']))).toBeNull();
    expect(
      refusalInInfo(info(['used_memory:9', 'maxmemory:2', 'maxmemory_policy:allkeys-lru'])),
    ).toBeNull();
  });

  it('says misconf while snapshots fail', () => {
    expect(refusalInInfo(info(['rdb_last_bgsave_status:err']))).toBe('misconf');
    expect(refusalInInfo(info(['rdb_last_bgsave_status:ok']))).toBeNull();
  });

  it('reads numbers by whole field name', () => {
    const text = info(['used_memory:10', 'used_memory_rss:99', 'maxmemory:7']);
    expect(infoNumber(text, 'used_memory')).toBe(10);
    expect(infoNumber(text, 'maxmemory')).toBe(7);
    expect(infoNumber(text, 'absent')).toBe(0);
  });
});

describe('refusalAdvice', () => {
  it('gives a full store its memory, what to raise and the runbook', () => {
    const advice = refusalAdvice('full', { usedBytes: 3 * 1_048_576, maxBytes: 3 * 1_048_576 });
    expect(advice).toContain('3.0 MiB in use of maxmemory 3.0 MiB');
    expect(advice).toContain('CONFIG SET maxmemory');
    expect(advice).toContain('add shards');
    expect(advice).toContain('docs/OPERATIONS.md, "StoreRefusingWrites"');
  });

  it('says what to do for each reason, the memory aside where unknown', () => {
    expect(refusalAdvice('full', null)).toMatch(/^the store is full: raise maxmemory/);
    expect(refusalAdvice('readonly', null)).toContain('point REDIS_URL');
    expect(refusalAdvice('misconf', null)).toContain('snapshots fail');
    expect(refusalAdvice('busy', null)).toContain('SCRIPT KILL');
    expect(refusalAdvice('noperm', null)).toContain('ACL SETUSER');
  });

  it('names the reason in what health checks say', () => {
    expect(refusingText('full')).toBe('the store refuses writes (full): answers are going stale');
  });
});

describe('what a cluster says', () => {
  it('the fullest master and the first refusal of any', () => {
    const memory = (used: number, max: number) => `used_memory:${used}\r\nmaxmemory:${max}\r\n`;
    expect(fullestMemory([memory(5, 100), memory(90, 100), memory(999, 0)])).toEqual({
      usedBytes: 90,
      maxBytes: 100,
    });
    expect(fullestMemory([])).toBeNull();
    expect(refusalInInfos(['role:master\r\n', 'role:slave\r\n'])).toBe('readonly');
    expect(refusalInInfos(['role:master\r\n'])).toBeNull();
  });
});
