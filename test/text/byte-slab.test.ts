import { describe, expect, it } from 'vitest';
import { ByteSlab } from '../../src/text/byte-slab.ts';

describe('ByteSlab', () => {
  it('carves views one after another out of one slab, the unwritten room used by the next', () => {
    const slab = new ByteSlab();
    slab.reserve(10).fill(1, slab.start, slab.start + 6);
    const a = slab.keep(6);
    const room = slab.reserve(6);
    room.fill(2, slab.start, slab.start + 6);
    const b = slab.keep(6);
    expect(room.buffer).toBe(a.buffer);
    expect(b.buffer).toBe(a.buffer);
    expect(b.byteOffset).toBe(a.byteOffset + 6);
    expect([...a]).toEqual([1, 1, 1, 1, 1, 1]);
    expect([...b]).toEqual([2, 2, 2, 2, 2, 2]);
  });

  it('starts a new slab when the room does not fit, and leaves the old views as they were', () => {
    const slab = new ByteSlab();
    slab.reserve(16 * 1024).fill(7, slab.start, slab.start + 16 * 1024);
    const first = slab.keep(16 * 1024);
    const views = [16, 16, 16].map((kib) => {
      slab.reserve(kib * 1024);
      return slab.keep(kib * 1024);
    });
    slab.reserve(100);
    expect(slab.start).toBe(0);
    const next = slab.keep(100);
    expect(views.every((view) => view.buffer === first.buffer)).toBe(true);
    expect(next.buffer).not.toBe(first.buffer);
    expect(first.every((byte) => byte === 7)).toBe(true);
  });

  it('gives room larger than a quarter slab an array of its own, and the slab goes on after it', () => {
    const slab = new ByteSlab();
    slab.reserve(8);
    const small = slab.keep(8);
    const own = slab.reserve(32 * 1024);
    expect(slab.start).toBe(0);
    expect(own.buffer).not.toBe(small.buffer);
    expect(slab.keep(32 * 1024)).toBe(own);
    slab.reserve(32 * 1024);
    expect(slab.keep(1000).byteLength).toBe(1000);
    slab.reserve(8);
    expect(slab.keep(8).byteOffset).toBe(small.byteOffset + 8);
  });
});
