// The decisions an account replays: from TTL + grace before its span, so that a session placed
// before the span counts at its first midpoints as the load replay counts it.
import { describe, expect, it } from 'vitest';
import { decisionsSince } from '../../src/energy/stream.js';

const policy = (ttl_s: number) => ({ ttl_s }) as never;

describe('decisionsSince', () => {
  it('is from less the largest ttl_s of the policies and the grace, in s; 0 at the least', () => {
    expect(decisionsSince([{ at: 0n, policy: policy(10) }], 100_000_000n, 5)).toBe(85_000_000n);
    expect(
      decisionsSince(
        [
          { at: 0n, policy: policy(10) },
          { at: 50n, policy: policy(30) },
        ],
        100_000_000n,
        5,
      ),
    ).toBe(65_000_000n);
    expect(decisionsSince([{ at: 0n, policy: policy(10) }], 3_000_000n, 5)).toBe(0n);
  });
});
