// The copies of a decision's frame: found among the frames of one `t` (the same digest and
// `sig`), forgotten when `t` moves on, and at most SAME_T_HELD held at one µs.
import { describe, expect, it } from 'vitest';
import { FrameCopies, SAME_T_HELD } from '../src/copies.js';

/** A frame of 70 bytes whose body (digest) and `sig` are numbered apart. */
function frame(body: number, sig: number): { digest: Uint8Array; bytes: Uint8Array } {
  const bytes = new Uint8Array(70);
  new DataView(bytes.buffer).setUint32(0, body, true);
  new DataView(bytes.buffer).setUint32(66, sig, true);
  const digest = new Uint8Array(32);
  new DataView(digest.buffer).setUint32(0, body, true);
  return { digest, bytes };
}

describe('FrameCopies', () => {
  it('finds a frame given again at its t, not one of another sig, nor one of another t', () => {
    const c = new FrameCopies();
    const a = frame(1, 1);
    expect(c.firstOf(a.digest, a.bytes, 0, 10n)).toBeUndefined();
    expect(c.firstOf(a.digest, a.bytes.slice(), 1, 10n)).toBe(0);
    const other = frame(1, 2);
    expect(c.firstOf(other.digest, other.bytes, 2, 10n)).toBeUndefined();
    expect(c.firstOf(a.digest, a.bytes, 3, 10n)).toBe(0);
    // t moved on: the frames of the t before are let go.
    expect(c.firstOf(a.digest, a.bytes, 4, 11n)).toBeUndefined();
    expect(c.firstOf(a.digest, a.bytes, 5, 11n)).toBe(4);
  });

  it('holds at most SAME_T_HELD frames of one t, the oldest forgotten first', () => {
    const c = new FrameCopies();
    for (let i = 0; i <= SAME_T_HELD; i++) {
      const f = frame(i, 0);
      expect(c.firstOf(f.digest, f.bytes, i, 7n)).toBeUndefined();
    }
    const oldest = frame(0, 0);
    const newest = frame(SAME_T_HELD, 0);
    expect(c.firstOf(newest.digest, newest.bytes, SAME_T_HELD + 1, 7n)).toBe(SAME_T_HELD);
    expect(c.firstOf(oldest.digest, oldest.bytes, SAME_T_HELD + 2, 7n)).toBeUndefined();
  });
});
