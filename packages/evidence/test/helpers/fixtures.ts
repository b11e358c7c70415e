// Test fixtures: plain field objects of wire's records, and their real digests (C1: SHA-256
// over the bytes before `sig`, which `encodeHopRecord` gives without signing).
import {
  encodeHopRecord,
  type HopRecordFields,
  NO_CAPACITY_LIMIT,
  NOT_A_CLONE,
  nobleBackend,
  type PolicyFields,
  type PolicyPathway,
} from '@wai-steering/wire';
import type { EvidenceRecord } from '../../src/index.js';

export const ROOM: Uint8Array = new Uint8Array(32).fill(0xaa);

/** A distinct 32-byte hop key for `n` (not a curve point: the selection never verifies). */
export function key(n: number): Uint8Array {
  const k = new Uint8Array(32);
  k[0] = 0x48;
  k[1] = n & 0xff;
  k[2] = (n >> 8) & 0xff;
  return k;
}

export interface PathwaySpec {
  readonly id?: string;
  /** Places of the hops, 1 edge, 2 interior; keys are key(base + j). */
  readonly places: readonly number[];
}

/** A policy (fields only) with the pathways' hop keys numbered pathway × 16 + hop. */
export function policyOf(
  pathways: readonly PathwaySpec[],
  opts: Partial<Pick<PolicyFields, 'period_us' | 'window_us' | 'lag_us' | 'basis' | 'floor'>> = {},
): PolicyFields {
  return {
    room: ROOM,
    signer: new Uint8Array(32).fill(1),
    period_us: opts.period_us ?? 1_000_000n,
    window_us: opts.window_us ?? 3_000_000n,
    lag_us: opts.lag_us ?? 500_000n,
    basis: opts.basis ?? 1,
    floor: opts.floor ?? 1,
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
    pathways: pathways.map(
      (p, i): PolicyPathway => ({
        id: p.id ?? `p${i}`,
        base: NOT_A_CLONE,
        host: '',
        params: [],
        top_tier: 2,
        latency_ms: 50,
        capacity: NO_CAPACITY_LIMIT,
        min_share_ppm: 0,
        hops: p.places.map((place, j) => ({ key: key(i * 16 + j), place })),
      }),
    ),
  };
}

export interface RecordSpec {
  readonly hop: Uint8Array;
  readonly start: bigint;
  readonly end: bigint;
  readonly cls?: number;
  readonly joules?: bigint;
  /** Media bytes out (track 1, kind 1, direction 2). */
  readonly bytes?: bigint;
  readonly tracks?: HopRecordFields['tracks'];
  readonly subscriber_us?: readonly bigint[];
  readonly sessions?: number;
}

export function rec(s: RecordSpec): HopRecordFields {
  return {
    room: ROOM,
    hop: s.hop,
    start: s.start,
    end: s.end,
    sessions: s.sessions ?? 3,
    class: s.cls ?? 4,
    joules: s.joules ?? (s.cls === 0 ? 0n : 1_000n),
    subscriber_us: s.subscriber_us ?? [0n, 0n, 0n, 0n, 0n, 0n, 0n, 0n],
    tracks: s.tracks ?? [{ track: 1, kind: 1, direction: 2, bytes: s.bytes ?? 10_000n }],
  };
}

/** The record with its real digest. */
export function ev(record: HopRecordFields): EvidenceRecord {
  return { record, digest: nobleBackend.sha256(encodeHopRecord(record)) };
}

/** Records of `hop` for each period [k P, (k + 1) P) with k from `from` to `to` − 1. */
export function periods(
  hop: Uint8Array,
  P: bigint,
  from: number,
  to: number,
  extra: Omit<RecordSpec, 'hop' | 'start' | 'end'> = {},
): HopRecordFields[] {
  const out: HopRecordFields[] = [];
  for (let k = from; k < to; k++) {
    out.push(rec({ ...extra, hop, start: BigInt(k) * P, end: BigInt(k + 1) * P }));
  }
  return out;
}
