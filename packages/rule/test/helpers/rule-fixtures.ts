// Fixtures of the rule's tests: a policy (fields only), figures and reports.
import {
  NO_CAPACITY_LIMIT,
  NOT_A_CLONE,
  type PolicyFields,
  type PolicyPathway,
  STATUS,
} from '@wai-steering/wire';
import type { Report, RuleFigure } from '../../src/index.js';

export interface PathwayOpts {
  readonly id: string;
  readonly top_tier?: number;
  readonly latency_ms?: number;
  readonly capacity?: number;
  readonly min_share_ppm?: number;
}

export function key(n: number): Uint8Array {
  const k = new Uint8Array(32);
  k[0] = 0x52;
  k[1] = n & 0xff;
  k[2] = (n >> 8) & 0xff;
  return k;
}

export function policyOf(
  pathways: readonly PathwayOpts[],
  opts: Partial<PolicyFields> = {},
): PolicyFields {
  return {
    room: new Uint8Array(32).fill(0xaa),
    signer: new Uint8Array(32).fill(1),
    period_us: 10_000_000n,
    window_us: 60_000_000n,
    lag_us: 2_000_000n,
    basis: 1,
    floor: 1,
    latency_ceiling_ms: 200,
    min_buffer_ms: 4000,
    hysteresis_ppm: 50_000,
    ttl_s: 300,
    min_ttl_s: 30,
    flags: 0,
    initial: 0,
    tiers: [500_000n, 1_500_000n, 4_000_000n],
    server_uri: 'https://steer.example/s',
    reload_uri: 'https://steer.example/s',
    decision_uri: 'https://steer.example/d/',
    ...opts,
    pathways: pathways.map(
      (p, i): PolicyPathway => ({
        id: p.id,
        base: NOT_A_CLONE,
        host: '',
        params: [],
        top_tier: p.top_tier ?? 2,
        latency_ms: p.latency_ms ?? 50,
        capacity: p.capacity ?? NO_CAPACITY_LIMIT,
        min_share_ppm: p.min_share_ppm ?? 0,
        hops: [{ key: key(i), place: 1 }],
      }),
    ),
  };
}

/** A figure of class `cls` with J and D. */
export function fig(cls: number, joules: bigint, delivery: bigint): RuleFigure {
  return { status: STATUS.figure, class: cls, joules, delivery };
}

/** No figure, of the given status (stale by default). */
export function none(status: number = STATUS.stale): RuleFigure {
  return { status, class: 0, joules: 0n, delivery: 0n };
}

export function report(r: Partial<Report> = {}): Report {
  return { pathway: null, throughput: null, buffer: null, ...r };
}
