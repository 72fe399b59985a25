import { describe, expect, it } from 'vitest';
import { ByteSlab } from '../../src/text/byte-slab.ts';

describe('ByteSlab', () => {
  it('carves views one after another out of one slab, reusing what was given back', () => {
    const slab = new ByteSlab();
    const a = slab.take(10);
    a.fill(1);
    slab.giveBack(4);
    const b = slab.take(6);
    b.fill(2);
    expect(b.buffer).toBe(a.buffer);
    expect(b.byteOffset).toBe(a.byteOffset + 6);
    expect([...a.subarray(0, 6)]).toEqual([1, 1, 1, 1, 1, 1]);
  });

  it('starts a new slab when the view does not fit, and leaves the old views as they were', () => {
    const slab = new ByteSlab();
    const first = slab.take(16 * 1024);
    first.fill(7);
    const views = [slab.take(16 * 1024), slab.take(16 * 1024), slab.take(16 * 1024)];
    const next = slab.take(100);
    expect(views.every((view) => view.buffer === first.buffer)).toBe(true);
    expect(next.buffer).not.toBe(first.buffer);
    expect(first.every((byte) => byte === 7)).toBe(true);
  });

  it('gives a view larger than a quarter slab an array of its own, which nothing gives back', () => {
    const slab = new ByteSlab();
    const small = slab.take(8);
    const large = slab.take(32 * 1024);
    expect(large.buffer).not.toBe(small.buffer);
    expect(large.byteLength).toBe(32 * 1024);
    slab.giveBack(1024);
    expect(slab.take(8).byteOffset).toBe(small.byteOffset + 8);
  });
});
