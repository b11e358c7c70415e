// The policy in force over a span: what the account cannot span, and the policies in force as
// an archive's decisions show them.
import { nobleBackend } from '@wai-steering/wire';
import { describe, expect, it } from 'vitest';
import { accountChanges, policyTimeline, spanPolicy } from '../src/index.js';
import { policyOf } from './helpers/fixtures.js';

const a = policyOf([
  { id: 'a', places: [1] },
  { id: 'b', places: [1, 2] },
]);
const digest = (p: typeof a) => nobleBackend.sha256(p.body);

describe('accountChanges', () => {
  it('names P, basis, initial and each pathway’s hops, pathways compared by ID', () => {
    expect(accountChanges(a, a)).toEqual([]);
    const reordered = policyOf(
      [
        { id: 'b', places: [1, 2], keyBase: 1 },
        { id: 'a', places: [1], keyBase: 0 },
      ],
      { initial: 1 },
    );
    // The same pathways in another order, the same initial pathway: nothing the account spans.
    expect(accountChanges(a, reordered)).toEqual([]);
    const b = policyOf(
      [
        { id: 'a', places: [1] },
        { id: 'c', places: [1] },
      ],
      { period_us: 2_000_000n },
    );
    expect(accountChanges(a, b)).toEqual(['period_us', 'pathways.b', 'pathways.c']);
    const places = policyOf([
      { id: 'a', places: [1] },
      { id: 'b', places: [1, 1] },
    ]);
    expect(accountChanges(a, places)).toEqual(['pathways.b.hops']);
  });
});

describe('spanPolicy', () => {
  it('takes the policy in force at to (its pathways’ order) and knows every policy’s IDs', () => {
    const reordered = policyOf(
      [
        { id: 'b', places: [1, 2], keyBase: 1 },
        { id: 'a', places: [1], keyBase: 0 },
      ],
      { initial: 1 },
    );
    const s = spanPolicy(
      [
        { at: 0n, policy: a },
        { at: 5_000_000n, policy: reordered },
      ],
      0n,
      10_000_000n,
    );
    expect(s.policy).toBe(reordered);
    expect([...s.idsByDigest.values()]).toEqual([
      ['a', 'b'],
      ['b', 'a'],
    ]);
  });

  it('refuses misuse with a TypeError', () => {
    expect(() => spanPolicy([], 0n, 1n)).toThrow(TypeError);
    expect(() =>
      spanPolicy(
        [
          { at: 5n, policy: a },
          { at: 1n, policy: a },
        ],
        0n,
        1_000_000n,
      ),
    ).toThrow(TypeError);
    const other = policyOf([{ id: 'a', places: [1] }], { room: new Uint8Array(32) });
    expect(() =>
      spanPolicy(
        [
          { at: 0n, policy: a },
          { at: 1n, policy: other },
        ],
        0n,
        1_000_000n,
      ),
    ).toThrow(TypeError);
  });
});

describe('policyTimeline', () => {
  it('starts an entry at each decision naming another policy than the one before', () => {
    const b = policyOf(
      [
        { id: 'a', places: [1] },
        { id: 'b', places: [1, 2] },
      ],
      { floor: 2 },
    );
    const unknown = new Uint8Array(32).fill(9);
    const t = policyTimeline(
      [
        { t: 10n, policy: digest(a) },
        { t: 20n, policy: digest(a) },
        { t: 30n, policy: digest(b) },
        { t: 40n, policy: unknown },
        { t: 50n, policy: digest(b) },
        { t: 60n, policy: digest(a) },
      ],
      [a, b],
    );
    expect(t.map((e) => [e.at, e.policy])).toEqual([
      [10n, a],
      [30n, b],
      [60n, a],
    ]);
  });
});
