// The bench's room: 8 pathways of 3 hops each (an edge and two interior hops), one-second
// periods, every hop's record of every period, its figures varying from period to period.
import type { EvidenceRecord } from '@wai-steering/evidence';
import {
  encodePolicy,
  type HopRecordFields,
  NO_CAPACITY_LIMIT,
  NOT_A_CLONE,
  type Policy,
  type PolicyFields,
  type TrackEntry,
} from '@wai-steering/wire';

export const PATHWAYS = 8;
export const HOPS = 3;
export const P = 1_000_000n;
export const ROOM = new Uint8Array(32).fill(0xaa);
const ZERO_US: readonly bigint[] = Object.freeze(Array(8).fill(0n));

export function hopKey(p: number, h: number): Uint8Array {
  const k = new Uint8Array(32);
  k[0] = 0x48;
  k[1] = p;
  k[2] = h;
  k[3] = 0x5a;
  return k;
}

export function benchPolicy(): Policy {
  const fields: PolicyFields = {
    room: ROOM,
    signer: new Uint8Array(32).fill(1),
    period_us: P,
    window_us: 3n * P,
    lag_us: P / 2n,
    basis: 1,
    floor: 1,
    latency_ceiling_ms: 200,
    min_buffer_ms: 4000,
    hysteresis_ppm: 50_000,
    ttl_s: 10,
    min_ttl_s: 4,
    flags: 0,
    initial: 0,
    tiers: [500_000n, 1_500_000n, 4_000_000n],
    server_uri: 'https://steer.example/s',
    reload_uri: 'https://steer.example/s',
    decision_uri: 'https://steer.example/d/',
    pathways: Array.from({ length: PATHWAYS }, (_, p) => ({
      id: `cdn-${p}`,
      base: NOT_A_CLONE,
      host: '',
      params: [],
      top_tier: 2,
      latency_ms: 50,
      capacity: NO_CAPACITY_LIMIT,
      min_share_ppm: 0,
      hops: Array.from({ length: HOPS }, (_, h) => ({ key: hopKey(p, h), place: h === 0 ? 1 : 2 })),
    })),
  };
  return { ...fields, body: encodePolicy(fields), sig: new Uint8Array(64) };
}

/** A buffer of views for `periodRecords`: `periods` periods' worth of room and hop arrays. */
export function keyViews(periods = 1024): Uint8Array {
  return new Uint8Array(64 * PATHWAYS * HOPS * periods);
}

/** Stand-ins for the records' digests (the account compares digests, never hashes them). */
export function digestViews(periods = 1024): Uint8Array {
  const d = new Uint8Array(32 * PATHWAYS * HOPS * periods);
  for (let i = 0; i < d.length; i++) d[i] = (i * 2654435761) >>> 24;
  return d;
}

/** Track arrays and joules shared between records (the bench measures the account, not memory). */
const POOL = 4096;
const tracks: TrackEntry[][] = Array.from({ length: POOL }, (_, i) => [
  { track: 1, kind: 1, direction: 2, bytes: BigInt(40_000_000 + ((i * 7919) % 20_000_000)) },
]);
const joules: bigint[] = Array.from({ length: POOL }, (_, i) =>
  BigInt(30_000_000 + ((i * 104729) % 9_000_000)),
);

/**
 * The records of period k (every hop's), in a fresh array. As a reader gives them, each record
 * has its own `room` and `hop` arrays (views of `keys` here) and digest (a view of `digests`).
 */
export function periodRecords(k: number, digests: Uint8Array, keys: Uint8Array): EvidenceRecord[] {
  if (keys.length % (64 * PATHWAYS * HOPS) !== 0) {
    throw new RangeError('periodRecords: keys holds a whole number of periods of room and hop');
  }
  const start = BigInt(k) * P;
  const end = start + P;
  const out: EvidenceRecord[] = [];
  for (let p = 0; p < PATHWAYS; p++) {
    for (let h = 0; h < HOPS; h++) {
      const i = (k * 31 + p * 7 + h) % POOL;
      const n = (k * PATHWAYS + p) * HOPS + h;
      const at = (n % (keys.length / 64)) * 64;
      const room = keys.subarray(at, at + 32);
      room.set(ROOM);
      const hop = keys.subarray(at + 32, at + 64);
      hop.set(KEYS[p]![h]!);
      const record: HopRecordFields = {
        room,
        hop,
        start,
        end,
        sessions: 100 + (i % 50),
        class: 4,
        joules: joules[i]!,
        subscriber_us: ZERO_US,
        tracks: tracks[(i * 13) % POOL]!,
      };
      const d = (n % (digests.length / 32)) * 32;
      const digest = digests.subarray(d, d + 32);
      out.push({ record, digest });
    }
  }
  return out;
}

const KEYS = Array.from({ length: PATHWAYS }, (_, p) =>
  Array.from({ length: HOPS }, (_, h) => hopKey(p, h)),
);
