// Test fixtures: policies (fields with the bytes their digest covers, as `readPolicy` gives
// them), per-hop records with their real digests, and decisions, built from plain numbers.
import type { EvidenceRecord } from '@wai-steering/evidence';
import {
  encodeHopRecord,
  encodePolicy,
  type HopRecordFields,
  NO_CAPACITY_LIMIT,
  NOT_A_CLONE,
  nobleBackend,
  type Policy,
  type PolicyFields,
  type PolicyPathway,
} from '@wai-steering/wire';
import type { AccountDecision } from '../../src/index.js';

export const ROOM: Uint8Array = new Uint8Array(32).fill(0xaa);
export const ROOM_HEX = 'aa'.repeat(32);

/** A distinct 32-byte hop key for `n`. */
export function key(n: number): Uint8Array {
  const k = new Uint8Array(32);
  k[0] = 0x48;
  k[1] = n & 0xff;
  k[2] = (n >> 8) & 0xff;
  return k;
}

export interface PathwaySpec {
  readonly id?: string;
  /** Places of the hops, 1 edge, 2 interior; keys are key(pathway × 16 + hop). */
  readonly places: readonly number[];
  /** Another number for the keys (a pathway whose hops changed). */
  readonly keyBase?: number;
  readonly capacity?: number;
}

export type PolicyOptions = Partial<
  Pick<PolicyFields, 'period_us' | 'basis' | 'floor' | 'initial' | 'room'>
>;

/** A policy as read: its fields, `body` (what its digest covers) and a zero `sig`. */
export function policyOf(pathways: readonly PathwaySpec[], o: PolicyOptions = {}): Policy {
  const P = o.period_us ?? 1_000_000n;
  const fields: PolicyFields = {
    room: o.room ?? ROOM,
    signer: new Uint8Array(32).fill(1),
    period_us: P,
    window_us: 3n * P,
    lag_us: P / 2n,
    basis: o.basis ?? 1,
    floor: o.floor ?? 1,
    latency_ceiling_ms: 200,
    min_buffer_ms: 4000,
    hysteresis_ppm: 50_000,
    ttl_s: 300,
    min_ttl_s: 30,
    flags: 0,
    initial: o.initial ?? 0,
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
        capacity: p.capacity ?? NO_CAPACITY_LIMIT,
        min_share_ppm: 0,
        hops: p.places.map((place, j) => ({ key: key((p.keyBase ?? i) * 16 + j), place })),
      }),
    ),
  };
  return { ...fields, body: encodePolicy(fields), sig: new Uint8Array(64) };
}

/** The key of hop `h` of pathway `p` of a policy made by {@link policyOf}. */
export function hopKey(p: number, h: number): Uint8Array {
  return key(p * 16 + h);
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
  readonly room?: Uint8Array;
}

export function rec(s: RecordSpec): HopRecordFields {
  return {
    room: s.room ?? ROOM,
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

/** A record of hop `hop` for period k of P (from 0). */
export function period(
  hop: Uint8Array,
  P: bigint,
  k: number,
  extra: Omit<RecordSpec, 'hop' | 'start' | 'end'> = {},
): EvidenceRecord {
  return ev(rec({ ...extra, hop, start: BigInt(k) * P, end: BigInt(k + 1) * P }));
}

/** A decision placing `session` (a small number) at pathway `first` at `t` with `ttl` s. */
export function decision(
  policy: Policy,
  t: bigint,
  session: number,
  first: number,
  ttl = 10,
): AccountDecision {
  const s = new Uint8Array(16);
  new DataView(s.buffer).setUint32(0, session);
  return {
    t,
    session: s,
    policy: nobleBackend.sha256(policy.body),
    ttl,
    priority: [first],
    pathways: policy.pathways.map(() => ({})),
  };
}
