// A small steering world for the verifier's tests: a room with an origin and its key log, a
// policy of three pathways of two hops each, the hops' records over the window, and decisions
// made the way a server makes them.

import { sha256 } from '@noble/hashes/sha2.js';
import { MemoryEvidenceStore, selectEvidence, windowAt } from '@wai-steering/evidence';
import { writeManifest } from '@wai-steering/manifest';
import { assembleAndSign, type Protocol, type Report } from '@wai-steering/rule';
import {
  digestOf,
  type HopRecordFields,
  NO_CAPACITY_LIMIT,
  NOT_A_CLONE,
  nobleBackend,
  type PolicyFields,
  readHopRecord,
  readPolicy,
  readRoom,
  roomIdOf,
  signHopRecord,
  signKeyLog,
  signPolicy,
  signRoom,
  unwrap,
} from '@wai-steering/wire';

export function secret(label: string): Uint8Array {
  return sha256(new TextEncoder().encode(`verifier-test:${label}`));
}

export function pub(sk: Uint8Array): Uint8Array {
  return nobleBackend.publicKey(sk);
}

export const P = 2_000_000n;
export const W = 3n * P;
export const L = 500_000n;
/** An instant whose window is [T0 − W, T0) with T0 a multiple of P. */
export const T0 = 1_800_000_000_000_000n;
export const T = T0 + L + 1n;

export const keys = {
  authority: secret('authority'),
  origin: secret('origin'),
  steer: secret('steer'),
  hops: [0, 1, 2, 3, 4, 5].map((i) => secret(`hop-${i}`)),
};

const LABELS = [
  'energy/CalibratedInstrument',
  'energy/Estimator',
  'energy/ModelBased',
  'energy/OnChipCounter',
];

export interface World {
  room: Uint8Array;
  roomId: Uint8Array;
  keyLog: Uint8Array;
  policyFields: PolicyFields;
  policy: Uint8Array;
  policyDigest: Uint8Array;
  records: Uint8Array[];
  store: MemoryEvidenceStore;
}

/** Per pathway: each hop's class and joules per period (µJ), and its edge bytes per period. */
export interface HopPlan {
  class: number;
  joules: bigint;
  bytes: bigint;
}

export const DEFAULT_PLAN: HopPlan[][] = [
  [
    { class: 4, joules: 3_000_000n, bytes: 1_000_000n },
    { class: 4, joules: 1_000_000n, bytes: 0n },
  ],
  [
    { class: 4, joules: 2_000_000n, bytes: 1_000_000n },
    { class: 4, joules: 1_000_000n, bytes: 0n },
  ],
  [
    { class: 4, joules: 5_000_000n, bytes: 1_000_000n },
    { class: 4, joules: 1_000_000n, bytes: 0n },
  ],
];

export function makeRoom(): { room: Uint8Array; roomId: Uint8Array; keyLog: Uint8Array } {
  const room = signRoom(
    { authority: pub(keys.authority), origin: pub(keys.origin), name: 'verifier test room' },
    keys.authority,
  );
  const roomId = roomIdOf(unwrap(readRoom(room)));
  const entries = [
    { key: pub(keys.authority), status: 1, may_sign: ['live/room', ...LABELS].sort() },
    { key: pub(keys.steer), status: 1, may_sign: [...LABELS, 'live/steer'].sort() },
    ...keys.hops.map((k) => ({ key: pub(k), status: 1, may_sign: [...LABELS, 'live/hop'].sort() })),
  ].sort((x, y) => Buffer.compare(Buffer.from(x.key), Buffer.from(y.key)));
  const keyLog = signKeyLog(
    { origin: pub(keys.origin), seq: 0n, prev: new Uint8Array(32), entries },
    keys.origin,
  );
  return { room, roomId, keyLog };
}

export function makePolicyFields(
  roomId: Uint8Array,
  over: Partial<PolicyFields> = {},
): PolicyFields {
  const ids = ['cdn-a', 'cdn-b', 'cdn-c'];
  return {
    room: roomId,
    signer: pub(keys.steer),
    period_us: P,
    window_us: W,
    lag_us: L,
    basis: 1,
    floor: 0,
    latency_ceiling_ms: 200,
    min_buffer_ms: 4000,
    hysteresis_ppm: 50_000,
    ttl_s: 300,
    min_ttl_s: 30,
    flags: 0,
    initial: 0,
    tiers: [800_000n, 2_500_000n, 6_000_000n],
    server_uri: 'https://steer.example/steer.json',
    reload_uri: 'https://steer.example/steer.json?live=1',
    decision_uri: 'https://steer.example/decisions/',
    pathways: ids.map((id, i) => ({
      id,
      base: NOT_A_CLONE,
      host: '',
      params: [],
      top_tier: 2,
      latency_ms: 50,
      capacity: NO_CAPACITY_LIMIT,
      min_share_ppm: 0,
      hops: [
        { key: pub(keys.hops[2 * i]!), place: 1 },
        { key: pub(keys.hops[2 * i + 1]!), place: 2 },
      ],
    })),
    ...over,
  };
}

export function hopRecord(
  roomId: Uint8Array,
  hop: number,
  start: bigint,
  end: bigint,
  plan: HopPlan,
): Uint8Array {
  const fields: HopRecordFields = {
    room: roomId,
    hop: pub(keys.hops[hop]!),
    start,
    end,
    sessions: 10,
    class: plan.class,
    joules: plan.class === 0 ? 0n : plan.joules,
    subscriber_us: [0n, 0n, 0n, 0n, 0n, 0n, 0n, 0n],
    tracks: plan.bytes === 0n ? [] : [{ track: 1, kind: 1, direction: 2, bytes: plan.bytes }],
  };
  return signHopRecord(fields, keys.hops[hop]!);
}

export function makeWorld(
  plan: HopPlan[][] = DEFAULT_PLAN,
  over: Partial<PolicyFields> = {},
): World {
  const { room, roomId, keyLog } = makeRoom();
  const policyFields = makePolicyFields(roomId, over);
  const policy = signPolicy(policyFields, keys.steer);
  const policyDigest = digestOf(unwrap(readPolicy(policy)));
  const records: Uint8Array[] = [];
  const store = new MemoryEvidenceStore();
  plan.forEach((hops, i) => {
    hops.forEach((hopPlan, h) => {
      for (let s = T0 - W; s < T0; s += P) {
        const bytes = hopRecord(roomId, 2 * i + h, s, s + P, hopPlan);
        records.push(bytes);
        const rec = unwrap(readHopRecord(bytes));
        store.add(rec, digestOf(rec));
      }
    });
  });
  return { room, roomId, keyLog, policyFields, policy, policyDigest, records, store };
}

export interface Made {
  decision: Uint8Array;
  digest: Uint8Array;
  manifest: string;
}

export function decide(
  world: World,
  report: Report = { pathway: null, throughput: null, buffer: null },
  options: { session?: Uint8Array; loads?: number[]; t?: bigint; protocol?: Protocol } = {},
): Made {
  const t = options.t ?? T;
  const evidence = selectEvidence(world.policyFields, windowAt(world.policyFields, t), world.store);
  const session = options.session ?? new Uint8Array(16).fill(7);
  const signed = assembleAndSign(
    {
      signer: pub(keys.steer),
      policy: world.policyFields,
      policyDigest: world.policyDigest,
      t,
      session,
      protocol: options.protocol ?? 'hls',
      report,
      evidence,
      loads: options.loads ?? world.policyFields.pathways.map(() => 0),
    },
    keys.steer,
  );
  const manifest = writeManifest(world.policyFields, signed.fields, signed.digest);
  return { decision: signed.bytes, digest: signed.digest, manifest };
}
