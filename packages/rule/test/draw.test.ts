import { createHash } from 'node:crypto';
import { nobleBackend } from '@wai-steering/wire';
import { nodeBackend } from '@wai-steering/wire/node';
import { describe, expect, it } from 'vitest';
import { bandOf, drawOf } from '../src/index.js';
import { policyOf } from './helpers/rule-fixtures.js';

/** §6.3 computed with node:crypto directly: the first four bytes little-endian, mod 10^6. */
function expected(policyDigest: Uint8Array, session: Uint8Array): number {
  const h = createHash('sha256')
    .update('wai:steering-draw')
    .update(Uint8Array.of(1))
    .update(policyDigest)
    .update(session)
    .digest();
  return h.readUInt32LE(0) % 1_000_000;
}

describe('§6.3 draw', () => {
  const digest = Uint8Array.from({ length: 32 }, (_, i) => i);
  it('is u32 little-endian of SHA-256("wai:steering-draw" ‖ 0x01 ‖ digest ‖ session) mod 10^6', () => {
    for (let s = 0; s < 64; s++) {
      const session = Uint8Array.from({ length: 16 }, (_, i) => (s * 31 + i * 7) & 0xff);
      const d = drawOf(digest, session);
      expect(d).toBe(expected(digest, session));
      expect(drawOf(digest, session, nodeBackend)).toBe(d);
      expect(drawOf(digest, session, nobleBackend)).toBe(d);
    }
  });
  it('refuses a digest that is not 32 bytes or a session that is not 16 (TypeError)', () => {
    expect(() => drawOf(new Uint8Array(31), new Uint8Array(16))).toThrow(TypeError);
    expect(() => drawOf(digest, new Uint8Array(15))).toThrow(TypeError);
  });
});

describe('§6.3 bands', () => {
  const policy = policyOf([
    { id: 'a', min_share_ppm: 100_000 },
    { id: 'b', min_share_ppm: 0 },
    { id: 'c', min_share_ppm: 250_000 },
  ]);
  it('[S_i, S_i + min_share_ppm_i) from 0 in the policy order; a share of 0 has no band', () => {
    expect(bandOf(policy, 0)).toBe(0);
    expect(bandOf(policy, 99_999)).toBe(0);
    expect(bandOf(policy, 100_000)).toBe(2);
    expect(bandOf(policy, 349_999)).toBe(2);
    expect(bandOf(policy, 350_000)).toBeUndefined();
    expect(bandOf(policy, 999_999)).toBeUndefined();
  });
  it('shares summing to 10^6 cover every draw', () => {
    const full = policyOf([
      { id: 'a', min_share_ppm: 400_000 },
      { id: 'b', min_share_ppm: 600_000 },
    ]);
    expect(bandOf(full, 999_999)).toBe(1);
  });
});
