import { randomUUID } from 'node:crypto';
import { UpstashStore } from '../../src/store/upstash.ts';
import { describeWithServices } from '../support/services.ts';
import { storeContract } from './contract.ts';

describeWithServices(
  ['upstash'],
  'UpstashStore (REST) passes the store contract',
  ({ upstash }) => {
    const store = new UpstashStore({ url: upstash.url, token: upstash.token });
    const prefix = `contract:${randomUUID()}`;
    let run = 0;
    storeContract({
      store: () => {
        run += 1;
        return store;
      },
      key: (name, group = 'p') => `${prefix}:{${run}:${group}}:${name}`,
      nowMs: Date.now,
      fencesResume: true,
    });
  },
);
