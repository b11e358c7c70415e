// The Energy page's figures from an account and its series: the cumulative savings end at the
// account's savings and its interval (computed here from the account's own figures by the
// formulas of docs/energy.md), and each fit's points and line.
import {
  accountJson,
  type EnergyAccountJson,
  EnergyAccumulator,
  type PeriodView,
} from '@wai-steering/energy';
import { encodeHopRecord, encodePolicy, type PolicyFields, sha256 } from '@wai-steering/wire';
import { describe, expect, it } from 'vitest';
import { cumulative, type EnergyData, fits, readSeriesBody } from '../../src/energy/model.js';

const P = 1_000_000n;
const room = new Uint8Array(32).fill(0xaa);
const key = (n: number) => new Uint8Array(32).fill(n);
const pathway = (id: string, hop: number) => ({
  id,
  base: 255,
  host: '',
  params: [],
  top_tier: 0,
  latency_ms: 40,
  capacity: 0xffffffff,
  min_share_ppm: 0,
  hops: [{ key: key(hop), place: 1 }],
});
const fields: PolicyFields = {
  room,
  signer: key(1),
  period_us: P,
  window_us: 3n * P,
  lag_us: P / 2n,
  basis: 1,
  floor: 0,
  latency_ceiling_ms: 250,
  min_buffer_ms: 4000,
  hysteresis_ppm: 50_000,
  ttl_s: 10,
  min_ttl_s: 4,
  flags: 0,
  initial: 0,
  tiers: [4_000_000n],
  server_uri: 'https://steer.example/steer',
  reload_uri: 'https://steer.example/steer',
  decision_uri: 'https://steer.example/decisions/',
  pathways: [pathway('incumbent', 2), pathway('efficient', 3), pathway('idle', 4)],
};
const policy = { ...fields, body: encodePolicy(fields), sig: new Uint8Array(64) };

/** 60 periods: delivery moving from the incumbent to the efficient pathway, with meter noise. */
function data(buckets: number): EnergyData {
  const records = [];
  for (let k = 0n; k < 60n; k++) {
    const moved = 5_000_000n * k;
    const d = [500_000_000n - moved, 100_000_000n + moved, 0n];
    const noise = (k % 3n) * 200_000n - 200_000n;
    const joules = [
      90_000_000n + (74n * d[0]!) / 1000n + noise,
      50_000_000n + (42n * d[1]!) / 1000n - noise,
      10_000_000n,
    ];
    for (const p of [0, 1, 2]) {
      const record = {
        room,
        hop: key(2 + p),
        start: k * P,
        end: (k + 1n) * P,
        sessions: 10,
        class: 4,
        joules: joules[p]!,
        subscriber_us: Array(8).fill(0n),
        tracks: [{ track: 1, kind: 1, direction: 2, bytes: d[p]! }],
      };
      records.push({ record, digest: sha256(encodeHopRecord(record)) });
    }
  }
  // The series as the server sums it (docs/server.md, The energy account).
  const per = Math.ceil(60 / buckets);
  const n = Math.ceil(60 / per);
  const cols = [0, 1, 2].map(() => ({
    delivery: new Array(n).fill(0n),
    joules: new Array(n).fill(0n),
    sD: [] as (string | null)[],
    sJ: [] as (string | null)[],
  }));
  const onPeriod = (v: PeriodView) => {
    v.pathways.forEach((p, i) => {
      const c = cols[i]!;
      const b = Math.floor(v.index / per);
      if (p.usable) {
        c.delivery[b] += p.delivery;
        c.joules[b] += p.joules;
      }
      c.sD.push(p.usable ? String(p.delivery) : null);
      c.sJ.push(p.usable ? String(p.joules) : null);
    });
  };
  const acc = new EnergyAccumulator({
    policies: [{ at: 0n, policy }],
    from: 0n,
    to: 60n * P,
    onPeriod,
  });
  for (const r of records) acc.addRecord(r);
  const a = accountJson(acc.finish()) as EnergyAccountJson;
  return {
    account: a,
    series: {
      bucket_us: String(BigInt(per) * P),
      buckets: n,
      sample_stride: 1,
      sample_periods: Array.from({ length: 60 }, (_, k) => k),
      pathways: cols.map((c, i) => ({
        id: a.pathways[i]!.id,
        delivery: c.delivery.map(String),
        joules_uj: c.joules.map(String),
        sessions_served: c.delivery.map(() => '0'),
        usable: c.delivery.map(() => per),
        sample_joules_uj: c.sJ,
        sample_delivery: c.sD,
      })),
    },
  };
}

describe('the cumulative savings', () => {
  it('end at the account’s savings and its interval, from 0 at the span’s start', () => {
    for (const buckets of [1, 7, 60]) {
      const d = data(buckets);
      const a = d.account;
      const c = cumulative(d);
      expect(c.x).toHaveLength(d.series.buckets + 1);
      expect(c.x[0]).toBe(0);
      expect(c.x.at(-1)).toBe(60);
      expect([c.average[0], c.marginal[0]]).toEqual([0, 0]);
      const close = (x: number | null | undefined, want: number) =>
        expect(Math.abs(x! - want)).toBeLessThanOrEqual(Math.abs(want) * 1e-6);
      close(c.average.at(-1), Number(a.saved_average_uj));
      close(c.marginal.at(-1), Number(a.saved_marginal_uj));
      close(c.low.at(-1), a.saved_marginal_ci95_uj![0]);
      close(c.high.at(-1), a.saved_marginal_ci95_uj![1]);
      // The delivery moved to the cheaper pathway: the saving grows in both views.
      for (let k = 1; k < c.x.length; k++) {
        expect(c.marginal[k]!).toBeGreaterThan(c.marginal[k - 1]!);
        expect(c.average[k]!).toBeGreaterThan(c.average[k - 1]!);
      }
    }
  });

  it('are null in a view the account does not state', () => {
    const d = data(6);
    const unstated = {
      ...d,
      account: { ...d.account, saved_marginal_uj: null, saved_marginal_ci95_uj: null },
    };
    const c = cumulative(unstated);
    expect(c.marginal.every((v) => v === null)).toBe(true);
    expect(c.low.every((v) => v === null)).toBe(true);
    expect(c.average.every((v) => v !== null)).toBe(true);
  });
});

describe('the fits', () => {
  it('give each pathway’s periods sorted by delivery, and its line through the idle level', () => {
    const d = data(6);
    const [inc, eff, idle] = fits(d);
    expect(inc!.d).toHaveLength(60);
    expect([...inc!.d].sort((x, y) => x - y)).toEqual(inc!.d);
    const a = d.account.pathways[0]!;
    const b = Number(a.marginal_pj_per_unit) / 1e6;
    expect(inc!.idle).toBe(Number(a.idle_uj_per_period));
    inc!.d.forEach((x, i) => {
      expect(inc!.line[i]).toBeCloseTo(inc!.idle! + b * x, 3);
    });
    expect(eff!.line.every((v) => v !== null)).toBe(true);
    // A pathway that delivered nothing: no variance, no line.
    expect(d.account.pathways[2]!.marginal_why).toBe('no_variance');
    expect(idle!.line.every((v) => v === null)).toBe(true);
  });
});

describe('readSeriesBody', () => {
  it('reads the server’s answer, and says what is wrong with another', () => {
    const d = data(6);
    const read = readSeriesBody(JSON.stringify(d));
    expect(typeof read).toBe('object');
    expect(readSeriesBody('nope')).toBe('the server’s answer is not JSON');
    expect(readSeriesBody(JSON.stringify({ ...d, account: { ...d.account, room: 1 } }))).toMatch(
      /^the server’s account does not read: not_an_account/,
    );
    expect(readSeriesBody(JSON.stringify({ account: d.account }))).toBe(
      'the server’s answer has no series of the account’s pathways',
    );
  });
});
