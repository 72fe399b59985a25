import { describe, expect, it } from 'vitest';
import { FAMILIES, familiesOf } from '../../src/contract/families.ts';

describe('familiesOf', () => {
  it.each(
    [
      ['/rest/v1/todos', ['rest']],
      ['/storage/v1/object/public/a.png', ['storage']],
      ['/auth/v1/token', ['auth']],
      ['/realtime/v1/websocket', ['realtime']],
      ['/graphql/v1', []],
      ['/functions/v1/hello', []],
      ['/', []],
      ['', []],
      [null, []],
      // Containment anywhere, not a prefix: one request may count toward several families.
      ['/rest/v1/rpc/auth_user', ['rest', 'auth']],
      ['/rest/v1/storage_objects', ['rest', 'storage']],
      ['/storage/v1/object/realtime-x/a.png', ['storage', 'realtime']],
      ['/x/rest/auth/storage/realtime', ['rest', 'storage', 'auth', 'realtime']],
      ['/api/restful', ['rest']],
      // Case-sensitive, and the slash is part of the text.
      ['/REST/v1/todos', []],
      ['rest/v1/todos', []],
    ] as const,
  )('%j -> %j', (path, expected) => {
    expect(familiesOf(path)).toEqual(expected);
  });

  it('lists the families in row-column order', () => {
    expect(FAMILIES).toEqual(['rest', 'storage', 'auth', 'realtime']);
  });
});
