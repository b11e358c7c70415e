// A steering world for the auditor's tests: a room with an origin and its key log, a policy of
// three pathways (an edge and an interior hop each), the hops' records of every period over a
// stretch of room clock, and a simulated server that decides, counts its sessions (its own count,
// written here apart from the auditor's replay) and signs, the way a steering server does.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sha256 } from '@noble/hashes/sha2.js';
import { MemoryEvidenceStore, selectEvidence, windowAt } from '@wai-steering/evidence';
import { assembleAndSign, type Report } from '@wai-steering/rule';
import {
  digestOf,
  type HopRecordFields,
  NO_CAPACITY_LIMIT,
  NOT_A_CLONE,
  type PolicyFields,
  readHopRecord,
  readPolicy,
  readRoom,
  roomIdOf,
  signHopRecord,
  signKeyLog,
  signPolicy,
  signRoom,
  toHex,
  unwrap,
} from '@wai-steering/wire';
import { nodeBackend } from '@wai-steering/wire/node';
import { ArchiveWriter } from '../../src/node.js';

export function secret(label: string): Uint8Array {
  return sha256(new TextEncoder().encode(`auditor-test:${label}`));
}

export function pub(sk: Uint8Array): Uint8Array {
  return nodeBackend.publicKey(sk);
}

export const P = 2_000_000n;
export const W = 3n * P;
export const L = 500_000n;
/** The first instant decided at: a multiple of P, after a first window of records. */
export const T0 = 1_800_000_000_000_000n;

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

/** Joules per period (µJ) of each pathway's edge hop: cdn-b is the cheapest. */
const EDGE_JOULES = [3_000_000n, 2_000_000n, 5_000_000n];

export function makePolicyFields(
  roomId: Uint8Array,
  over: Partial<PolicyFields> = {},
): PolicyFields {
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
    ttl_s: 10,
    min_ttl_s: 5,
    flags: 0,
    initial: 0,
    tiers: [800_000n, 2_500_000n, 6_000_000n],
    server_uri: 'https://steer.example/steer.json',
    reload_uri: 'https://steer.example/steer.json?live=1',
    decision_uri: 'https://steer.example/decisions/',
    pathways: ['cdn-a', 'cdn-b', 'cdn-c'].map((id, i) => ({
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

function hopRecord(roomId: Uint8Array, hop: number, start: bigint, end: bigint): Uint8Array {
  const i = hop >> 1;
  const edge = (hop & 1) === 0;
  const fields: HopRecordFields = {
    room: roomId,
    hop: pub(keys.hops[hop]!),
    start,
    end,
    sessions: 10,
    class: 4,
    joules: edge ? EDGE_JOULES[i]! : 1_000_000n,
    subscriber_us: [0n, 0n, 0n, 0n, 0n, 0n, 0n, 0n],
    tracks: edge
      ? [
          { track: 1, kind: 1, direction: 1, bytes: 1_000_000n },
          { track: 1, kind: 1, direction: 2, bytes: 1_000_000n },
        ]
      : [{ track: 1, kind: 1, direction: 2, bytes: 1_000_000n }],
  };
  return signHopRecord(fields, keys.hops[hop]!, { backend: nodeBackend });
}

/** A world whose records cover every window of [T0, T0 + seconds). */
export function makeWorld(seconds: number, over: Partial<PolicyFields> = {}): World {
  const room = signRoom(
    { authority: pub(keys.authority), origin: pub(keys.origin), name: 'auditor test room' },
    keys.authority,
    { backend: nodeBackend },
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
    { backend: nodeBackend },
  );
  const policyFields = makePolicyFields(roomId, over);
  const policy = signPolicy(policyFields, keys.steer, { backend: nodeBackend });
  const policyDigest = digestOf(unwrap(readPolicy(policy)));
  const records: Uint8Array[] = [];
  const store = new MemoryEvidenceStore();
  const end = T0 + BigInt(seconds) * 1_000_000n;
  for (let hop = 0; hop < 6; hop++) {
    for (let s = T0 - W; s < end; s += P) {
      const bytes = hopRecord(roomId, hop, s, s + P);
      records.push(bytes);
      const rec = unwrap(readHopRecord(bytes));
      store.add(rec, digestOf(rec));
    }
  }
  return { room, roomId, keyLog, policyFields, policy, policyDigest, records, store };
}

/** A 16-byte session from a number. */
export function sessionOf(n: number): Uint8Array {
  const s = new Uint8Array(16);
  new DataView(s.buffer).setUint32(0, n, true);
  s[15] = 0xa5;
  return s;
}

/** A decision made. */
export interface Made {
  bytes: Uint8Array;
  digest: string;
  t: bigint;
  first: number;
  loads: number[];
}

/**
 * A simulated steering server: its session count is a plain map, each session live while the
 * room clock is below its decision's `t` + (TTL + grace) s, exactly; the loads it states are the
 * count before the decision, unless `lie` says otherwise.
 */
export class SimServer {
  private readonly live = new Map<string, { pathway: number; until: bigint }>();
  readonly made: Made[] = [];

  constructor(
    readonly world: World,
    readonly graceS = 10,
  ) {}

  count(t: bigint): number[] {
    const loads = this.world.policyFields.pathways.map(() => 0);
    for (const [k, v] of this.live) {
      if (t < v.until) loads[v.pathway]!++;
      else this.live.delete(k);
    }
    return loads;
  }

  decide(
    t: bigint,
    session: Uint8Array,
    report: Report = { pathway: null, throughput: null, buffer: null },
    lie?: (loads: number[]) => number[],
  ): Made {
    const w = this.world;
    const honest = this.count(t);
    const loads = lie === undefined ? honest : lie([...honest]);
    const evidence = selectEvidence(w.policyFields, windowAt(w.policyFields, t), w.store);
    const signed = assembleAndSign(
      {
        signer: pub(keys.steer),
        policy: w.policyFields,
        policyDigest: w.policyDigest,
        t,
        session,
        protocol: 'hls',
        report,
        evidence,
        loads,
        backend: nodeBackend,
      },
      keys.steer,
    );
    const first = signed.fields.priority[0]!;
    this.live.set(toHex(session), {
      pathway: first,
      until: t + BigInt(signed.fields.ttl + this.graceS) * 1_000_000n,
    });
    const made = { bytes: signed.bytes, digest: toHex(signed.digest), t, first, loads };
    this.made.push(made);
    return made;
  }
}

/** A temporary directory, removed by the returned function. */
export function tempDir(): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'wai-auditor-'));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Writes an archive of the world and the decisions given. */
export async function writeArchive(
  dir: string,
  world: World,
  decisions: readonly Uint8Array[],
  options: { records?: readonly Uint8Array[]; graceS?: number } = {},
): Promise<void> {
  const w = await ArchiveWriter.create(dir, {
    meta: { room: toHex(world.roomId), grace_s: options.graceS ?? 10 },
    room: world.room,
    keyLog: world.keyLog,
    policies: [world.policy],
    records: options.records ?? world.records,
  });
  for (const d of decisions) await w.add(d);
  await w.close();
}
