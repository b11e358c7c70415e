// Which records taken no decision will name, and why: a hop on no pathway, a span off the period
// grid, a span before the window in use (late, or signed for the past).
import { windowAt } from '@wai-steering/evidence';
import { describe, expect, it } from 'vitest';
import { unusedReason } from '../../src/engine/unused.js';
import { demoRoom } from '../helpers/setup.js';

describe('unusedReason', () => {
  const { setup, remove } = demoRoom();
  const policy = { ...setup.policy, sig: new Uint8Array(64), body: new Uint8Array(0) };
  const P = policy.period_us;
  const hop = setup.policy.pathways[0]!.hops[0]!.key;
  const now = 1_800_000_000_000_000n + P / 2n;
  const { a, b } = windowAt(policy, now);

  it('is undefined for a record of the window in use, or of a later one', () => {
    expect(unusedReason(policy, { hop, start: a, end: a + P }, now)).toBeUndefined();
    expect(unusedReason(policy, { hop, start: b - P, end: b }, now)).toBeUndefined();
    expect(unusedReason(policy, { hop, start: b, end: b + P }, now)).toBeUndefined();
  });

  it('names a hop on no pathway', () => {
    expect(unusedReason(policy, { hop: new Uint8Array(32), start: a, end: a + P }, now)).toBe(
      'its hop is on no pathway of the policy in force',
    );
  });

  it('names a span off the period grid, in the one form of times for people', () => {
    expect(unusedReason(policy, { hop, start: a + P / 2n, end: a + P + P / 2n }, now)).toMatch(
      /^its span \(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z to .*\) is not cut on the policy's period P \(2 s\): a window starts and ends on multiples of P, so no window is tiled with it$/,
    );
  });

  it('names a record 7 hours old, and one just before the window in use', () => {
    const old = ((now - 7n * 3_600_000_000n) / P) * P;
    expect(unusedReason(policy, { hop, start: old, end: old + P }, now)).toMatch(
      /^it starts 6 h 59 min before the window in use \(from .*\): windows only move forward, so none will name it \(a record reaches the server within L, 500 ms, of its period's end\)$/,
    );
    expect(unusedReason(policy, { hop, start: a - P, end: a }, now)).toMatch(
      /^it starts 2 s before the window in use/,
    );
  });

  it('cleans up', () => remove());
});
