import { LIMIT, DECISION_REASON as R } from '@wai-steering/wire';
import { describe, expect, it } from 'vitest';
import { applyRule, beats, isAtFloor, type RuleFigure } from '../src/index.js';
import { fig, none, type PathwayOpts, policyOf, report } from './helpers/rule-fixtures.js';

// Three pathways: a (10 µJ per byte), b (12), c (no figure); all class 4 (OnChipCounter).
// Tiers 0.5, 1.5, 4 Mbit/s, floor 1; min buffer 4000 ms; h = 5 %; TTL 300 s, min 30 s.
const base: PathwayOpts[] = [{ id: 'a' }, { id: 'b' }, { id: 'c' }];
const figures: RuleFigure[] = [fig(4, 100n, 10n), fig(4, 120n, 10n), none()];
const onB = report({ pathway: 1, throughput: 10_000_000n, buffer: 10_000n });
const loads = [0, 0, 0];

function run(opts: {
  pathways?: PathwayOpts[];
  figures?: RuleFigure[];
  report?: ReturnType<typeof report>;
  draw?: number;
  loads?: number[];
  policy?: Parameters<typeof policyOf>[1];
}) {
  return applyRule({
    policy: policyOf(opts.pathways ?? base, opts.policy ?? {}),
    figures: opts.figures ?? figures,
    report: opts.report ?? onB,
    draw: opts.draw ?? 999_999,
    loads: opts.loads ?? loads,
  });
}

const farB: PathwayOpts[] = [{ id: 'a' }, { id: 'b', latency_ms: 201 }, { id: 'c' }];

describe('§6.4 step 1: buffer', () => {
  it('c within the limits and B < min_buffer_ms: c, TTL min_ttl_s', () => {
    const out = run({ report: { ...onB, buffer: 3_999n } });
    expect(out).toMatchObject({ first: 1, reason: R.buffer, ttl: 30, priority: [1, 0, 2] });
  });
  it('control: B = min_buffer_ms exactly does not apply (a beats b: rank)', () => {
    expect(run({ report: { ...onB, buffer: 4_000n } })).toMatchObject({
      first: 0,
      reason: R.rank,
      ttl: 300,
    });
  });
  it('control: B absent does not apply', () => {
    expect(run({ report: { ...onB, buffer: null } })).toMatchObject({ first: 0, reason: R.rank });
  });
  it('control: c past the latency ceiling does not apply', () => {
    const out = run({ pathways: farB, report: { ...onB, buffer: 0n } });
    expect(out).toMatchObject({ first: 0, reason: R.rank, priority: [0, 2, 1] });
    expect(out.limits).toEqual([7, 7 & ~LIMIT.latency, 7]);
  });
  it('buffer comes before floor', () => {
    expect(run({ report: { ...onB, buffer: 0n, throughput: 1n } }).reason).toBe(R.buffer);
  });
});

describe('§6.4 step 2: floor', () => {
  it('sustainable tier at F: c, TTL min_ttl_s', () => {
    // T = 1.5 Mbit/s: the sustainable tier is 1 = F.
    expect(run({ report: { ...onB, throughput: 1_500_000n } })).toMatchObject({
      first: 1,
      reason: R.floor,
      ttl: 30,
    });
  });
  it('no sustainable tier (tier 0 above T): at the floor', () => {
    expect(run({ report: { ...onB, throughput: 499_999n } }).reason).toBe(R.floor);
  });
  it('control: sustainable tier above F (T = 4 Mbit/s: tier 2) does not apply', () => {
    expect(run({ report: { ...onB, throughput: 4_000_000n } }).reason).toBe(R.rank);
    expect(run({ report: { ...onB, throughput: 3_999_999n } }).reason).toBe(R.floor);
  });
  it('control: T absent does not apply', () => {
    expect(run({ report: { ...onB, throughput: null } }).reason).toBe(R.rank);
  });
  it('control: c not within the limits does not apply', () => {
    expect(run({ pathways: farB, report: { ...onB, throughput: 1n } })).toMatchObject({
      first: 0,
      reason: R.rank,
    });
  });
  it('isAtFloor', () => {
    const p = policyOf(base);
    expect(isAtFloor(p, null)).toBe(false);
    expect(isAtFloor(p, 0n)).toBe(true);
    expect(isAtFloor(p, 1_499_999n)).toBe(true);
    expect(isAtFloor(p, 4_000_000n)).toBe(false);
    expect(isAtFloor({ ...p, floor: 2 }, 2n ** 64n - 1n)).toBe(true);
  });
});

describe('§6.4 step 3: none', () => {
  const allFar: PathwayOpts[] = [
    { id: 'a', latency_ms: 300 },
    { id: 'b', latency_ms: 300 },
    { id: 'c', top_tier: 0 },
  ];
  it('no pathway within the limits: c when known, TTL min_ttl_s (steps 1 and 2 cannot apply)', () => {
    const out = run({ pathways: allFar, report: { ...onB, buffer: 0n, throughput: 1n } });
    expect(out).toMatchObject({ first: 1, reason: R.none, ttl: 30, priority: [1, 0, 2] });
  });
  it('no pathway within the limits, c absent: the first pathway of the order', () => {
    const out = run({ pathways: allFar, report: report(), draw: 0 });
    expect(out).toMatchObject({ first: 0, reason: R.none });
    const reordered = run({
      pathways: allFar,
      report: report(),
      figures: [none(), fig(2, 1n, 1n), none()],
    });
    expect(reordered).toMatchObject({ first: 1, reason: R.none, priority: [1, 0, 2] });
  });
  it('none comes before share', () => {
    const shared = allFar.map((p) => ({ ...p, min_share_ppm: 300_000 }));
    expect(run({ pathways: shared, report: report(), draw: 0 }).reason).toBe(R.none);
  });
  it('control: one pathway within the limits: not none', () => {
    const one: PathwayOpts[] = [
      { id: 'a', latency_ms: 300 },
      { id: 'b', latency_ms: 300 },
      { id: 'c' },
    ];
    expect(run({ pathways: one, report: report() })).toMatchObject({ first: 2, reason: R.rank });
  });
});

describe('§6.4 step 4: share', () => {
  const shares: PathwayOpts[] = [
    { id: 'a', min_share_ppm: 100_000 },
    { id: 'b', min_share_ppm: 0 },
    { id: 'c', min_share_ppm: 250_000 },
  ];
  it('the draw in the band of a pathway within the limits places it, whatever its evidence', () => {
    // c's band is [100 000, 350 000); c has no figure.
    for (const draw of [100_000, 349_999]) {
      expect(run({ pathways: shares, draw })).toMatchObject({
        first: 2,
        reason: R.share,
        ttl: 300,
        priority: [2, 0, 1],
      });
    }
    expect(run({ pathways: shares, draw: 0 })).toMatchObject({ first: 0, reason: R.share });
  });
  it('control: a draw in no band does not apply (then hold or rank)', () => {
    expect(run({ pathways: shares, draw: 350_000 })).toMatchObject({ first: 0, reason: R.rank });
  });
  it("control (C9): the band's pathway is not within the limits: step 4 does not apply", () => {
    const cFar = shares.map((p) => (p.id === 'c' ? { ...p, top_tier: 0 } : p));
    expect(run({ pathways: cFar, draw: 200_000 })).toMatchObject({ first: 0, reason: R.rank });
  });
  it('buffer and floor come before share', () => {
    expect(run({ pathways: shares, draw: 200_000, report: { ...onB, buffer: 1n } }).reason).toBe(
      R.buffer,
    );
    expect(
      run({ pathways: shares, draw: 200_000, report: { ...onB, throughput: 1n } }).reason,
    ).toBe(R.floor);
  });
  it('share comes before hold', () => {
    const near = [fig(4, 100n, 10n), fig(4, 101n, 10n), none()];
    expect(run({ figures: near })).toMatchObject({ first: 1, reason: R.hold });
    expect(run({ figures: near, pathways: shares, draw: 0 })).toMatchObject({
      first: 0,
      reason: R.share,
    });
  });
});

describe('§6.4 step 5: hold', () => {
  it('w does not beat c by more than h: c, TTL ttl_s', () => {
    // a: 100/10; b: 104/10. 100 × 10 × 1 050 000 = 1.05e9 is not below 104 × 10 × 10^6 = 1.04e9.
    const out = run({ figures: [fig(4, 100n, 10n), fig(4, 104n, 10n), none()] });
    expect(out).toMatchObject({ first: 1, reason: R.hold, ttl: 300, priority: [1, 0, 2] });
  });
  it('exactly at the margin holds (C9: beats is strict)', () => {
    // 100 × 10 × 1 050 000 = 1 050 000 000 = 105 × 10 × 1 000 000.
    const at = [fig(4, 100n, 10n), fig(4, 105n, 10n), none()];
    expect(beats(at[0]!, at[1]!, 50_000)).toBe(false);
    expect(run({ figures: at }).reason).toBe(R.hold);
  });
  it('control: one unit past the margin: w beats c, rank', () => {
    const past = [fig(4, 100n, 10n), fig(4, 106n, 10n), none()];
    expect(beats(past[0]!, past[1]!, 50_000)).toBe(true);
    expect(run({ figures: past })).toMatchObject({ first: 0, reason: R.rank });
  });
  it('h = 0: any lower figure beats', () => {
    const near = [fig(4, 1000n, 10n), fig(4, 1001n, 10n), none()];
    expect(run({ figures: near, policy: { hysteresis_ppm: 0 } }).reason).toBe(R.rank);
    const same = [fig(4, 1000n, 10n), fig(4, 2000n, 20n), none()];
    expect(run({ figures: same, policy: { hysteresis_ppm: 0 } })).toMatchObject({
      first: 1,
      reason: R.hold,
    });
  });
  it('rank 4: between two pathways with no figure the client stays', () => {
    const out = run({
      figures: [none(), none(), fig(4, 1n, 1n)],
      pathways: [{ id: 'a' }, { id: 'b' }, { id: 'c', latency_ms: 999 }],
    });
    expect(out).toMatchObject({ first: 1, reason: R.hold });
  });
  it('control: c of another rank than w moves (a client on no figure moves to a figure)', () => {
    const out = run({ figures: [fig(3, 1000n, 1n), none(), none()] });
    expect(out).toMatchObject({ first: 0, reason: R.rank });
    // c of a better rank than w cannot happen (w is the first within the limits)… c of a
    // worse class with a lower figure: a (class 5) is w, c = b (class 2) cheaper: rank.
    const classes = run({ figures: [fig(5, 1000n, 1n), fig(2, 1n, 1000n), none()] });
    expect(classes).toMatchObject({ first: 0, reason: R.rank });
  });
  it('control: c is w: rank', () => {
    expect(run({ report: { ...onB, pathway: 0 } })).toMatchObject({ first: 0, reason: R.rank });
  });
  it('control: c absent: rank', () => {
    expect(run({ report: report() })).toMatchObject({ first: 0, reason: R.rank });
  });
});

describe('§6.1 limits', () => {
  it('latency ≤ ceiling, top_tier ≥ F, capacity', () => {
    const out = run({
      pathways: [
        { id: 'a', latency_ms: 200 },
        { id: 'b', latency_ms: 201, top_tier: 0 },
        { id: 'c', capacity: 5 },
      ],
      loads: [0, 0, 5],
      report: report(),
    });
    expect(out.limits).toEqual([7, 4, 3]);
  });
  it('capacity: load < capacity, or c with load ≤ capacity; 2^32 − 1 is no limit', () => {
    const pathways = [{ id: 'a', capacity: 5 }, { id: 'b', capacity: 0 }, { id: 'c' }];
    expect(run({ pathways, loads: [4, 0, 4294967295], report: report() }).limits).toEqual([
      7, 3, 7,
    ]);
    expect(run({ pathways, loads: [5, 0, 0], report: report({ pathway: 0 }) }).limits).toEqual([
      7, 3, 7,
    ]);
    expect(run({ pathways, loads: [6, 0, 0], report: report({ pathway: 0 }) }).limits).toEqual([
      3, 3, 7,
    ]);
    // C9: a capacity of 0 with c's load 0 is within the limits for c.
    expect(run({ pathways, loads: [0, 0, 0], report: report({ pathway: 1 }) }).limits).toEqual([
      7, 7, 7,
    ]);
    expect(run({ pathways, loads: [0, 1, 0], report: report({ pathway: 1 }) }).limits).toEqual([
      7, 3, 7,
    ]);
  });
  it('a pathway at its capacity is not w; c at its capacity can be held', () => {
    const pathways = [{ id: 'a', capacity: 3 }, { id: 'b' }, { id: 'c' }];
    const near = [fig(4, 100n, 10n), fig(4, 104n, 10n), none()];
    expect(run({ pathways, loads: [3, 0, 0], figures: near, report: report() })).toMatchObject({
      first: 1,
      reason: R.rank,
      priority: [1, 2, 0],
    });
    expect(run({ pathways, loads: [3, 0, 0], report: { ...onB, pathway: 0 } })).toMatchObject({
      first: 0,
      reason: R.rank,
    });
  });
});

describe('§6.5 priority and TTL', () => {
  it('first, then within the limits in the order, then the others in the order', () => {
    const pathways = [
      { id: 'a', latency_ms: 999 },
      { id: 'b' },
      { id: 'c' },
      { id: 'd', top_tier: 0 },
    ];
    const f = [fig(5, 1n, 1n), fig(4, 3n, 1n), fig(4, 2n, 1n), none()];
    const out = run({
      pathways,
      figures: f,
      loads: [0, 0, 0, 0],
      report: report({ pathway: 1, buffer: 0n }),
    });
    expect(out.order).toEqual([0, 2, 1, 3]);
    expect(out).toMatchObject({ first: 1, reason: R.buffer, priority: [1, 2, 0, 3], ttl: 30 });
  });
  it('misuse: a report naming no pathway, loads of the wrong count', () => {
    expect(() => run({ report: report({ pathway: 3 }) })).toThrow(RangeError);
    expect(() => run({ loads: [0] })).toThrow(TypeError);
  });
});
