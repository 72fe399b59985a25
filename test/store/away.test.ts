import { expect, test } from 'vitest';
import { isStoreAway } from '../../src/store/away.ts';

const cases: readonly [string, Error, boolean][] = [
  ['a refused connection', new Error('connect ECONNREFUSED 127.0.0.1:6379'), true],
  [
    'a closed client',
    Object.assign(new Error('The client is closed'), { name: 'ClientClosedError' }),
    true,
  ],
  ['a cluster without a master for some slots', new Error('CLUSTERDOWN The cluster is down'), true],
  [
    'slots moving during a failover',
    new Error('TRYAGAIN Multiple keys request during rehashing of slot'),
    true,
  ],
  [
    'a replica that lost its master',
    new Error("MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'."),
    true,
  ],
  [
    'a Redis loading its data set',
    new Error('LOADING Redis is loading the dataset in memory'),
    true,
  ],
  [
    'a script error',
    new Error('ERR Error running script (call to f_1): @user_script:1: bad'),
    false,
  ],
  [
    'an out-of-memory refusal',
    new Error("OOM command not allowed when used memory > 'maxmemory'."),
    false,
  ],
  ['a reply that merely mentions a cluster', new Error('ERR unknown command CLUSTERDOWN'), false],
];

test.each(cases)('%s: away is %s', (_name, error, away) => {
  expect(isStoreAway(error)).toBe(away);
});

test('what is not an Error is never away', () => {
  expect(isStoreAway('ECONNREFUSED')).toBe(false);
});
