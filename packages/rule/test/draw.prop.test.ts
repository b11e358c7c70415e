import { nodeBackend } from '@wai-steering/wire/node';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bandOf, drawOf } from '../src/index.js';
import { policyOf } from './helpers/rule-fixtures.js';

describe('§6.3 the draw (properties)', () => {
  it('is fixed for a session: the same inputs give the same draw, in [0, 10^6)', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        fc.uint8Array({ minLength: 16, maxLength: 16 }),
        (digest, session) => {
          const d = drawOf(digest, session);
          expect(d).toBe(drawOf(digest.slice(), session.slice(), nodeBackend));
          expect(Number.isInteger(d) && d >= 0 && d < 1_000_000).toBe(true);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('over 200 000 sessions the bands hold their shares, within 5 standard deviations', () => {
    // Shares 100 000 and 250 000 ppm: p = 0.1 and 0.25 of N = 200 000 sessions. A binomial's
    // standard deviation is √(N p (1 − p)): 134.2 and 193.6 sessions, so the tolerance is
    // ±671 around 20 000 and ±968 around 50 000 (and ±1 067 around 130 000 for no band,
    // p = 0.65). The draw's bias from 2^32 mod 10^6 (< 2.4 × 10^-4 relative) is far inside.
    // Sessions are the counter i as 16 bytes little-endian: deterministic, not random.
    const policy = policyOf([
      { id: 'a', min_share_ppm: 100_000 },
      { id: 'b', min_share_ppm: 250_000 },
      { id: 'c', min_share_ppm: 0 },
    ]);
    const digest = new Uint8Array(32).fill(0x5a);
    const N = 200_000;
    const counts = [0, 0, 0, 0];
    const session = new Uint8Array(16);
    const view = new DataView(session.buffer);
    for (let i = 0; i < N; i++) {
      view.setUint32(0, i, true);
      const band = bandOf(policy, drawOf(digest, session, nodeBackend));
      counts[band ?? 3]!++;
    }
    const within = (count: number, p: number) => {
      const sd = Math.sqrt(N * p * (1 - p));
      return Math.abs(count - N * p) <= 5 * sd;
    };
    expect(counts[2]).toBe(0);
    expect(within(counts[0]!, 0.1)).toBe(true);
    expect(within(counts[1]!, 0.25)).toBe(true);
    expect(within(counts[3]!, 0.65)).toBe(true);
  });
});
