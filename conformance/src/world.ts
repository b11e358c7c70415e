/**
 * The corpus's world: two rooms (one with an origin and its key log, one with none), the
 * scenarios' policies, the per-hop records their hops sign over the periods around the window,
 * and decisions made the way a steering server makes them: records held in a
 * `MemoryEvidenceStore`, `selectEvidence` over the window of `t`, `assembleDecision`, signed,
 * and `writeManifest`.
 */
import {
  type Evidence,
  type EvidenceRecord,
  MemoryEvidenceStore,
  selectEvidence,
  windowAt,
} from '@wai-steering/evidence';
import { writeManifest } from '@wai-steering/manifest';
import {
  type AssembleInput,
  assembleDecision,
  bandOf,
  drawOf,
  type Protocol,
  type Report,
  readReport,
  type SteeringRequest,
} from '@wai-steering/rule';
import {
  CLASS_LABEL,
  type CloneParam,
  compareBytes,
  type DecisionFields,
  encodeDecision,
  encodeHopRecord,
  encodeKeyLog,
  encodePolicy,
  encodeRoom,
  type HopRecordFields,
  type KeyLogEntry,
  type KeyLogFields,
  type Magic,
  NO_CAPACITY_LIMIT,
  NOT_A_CLONE,
  nobleBackend,
  type PolicyFields,
  type ReasonName,
  type RoomFields,
  signingMessage,
  toHex,
} from '@wai-steering/wire';
import { bandByHand, drawByHand } from './independent.js';
import { type KeyPair, keyOf, sha256Text } from './keys.js';

// ---------------------------------------------------------------------------------------------
// Time. Every hop cuts its records on P; the decisions' window is [T0 − W, T0).

/** P: 10 s. */
export const P = 10_000_000n;
/** W: three periods. */
export const W = 3n * P;
/** L: 2 s. */
export const L = 2_000_000n;
/** 2026-01-01T00:00:00Z on the room clock (µs), a multiple of P. */
export const T0 = 1_767_225_600_000_000n;
/** The decisions' instant: b = ⌊(T − L) / P⌋ × P = T0, so the window is [T0 − 30 s, T0). */
export const T = T0 + L + 3_000_000n;
/** The periods, as k in start = T0 + k × P, for which hops sign records (k = 0 is after T's window). */
export const PERIODS: readonly number[] = [-4, -3, -2, -1, 0];

// ---------------------------------------------------------------------------------------------
// Bytes.

/** A record's bytes: its body, then the signature by `secret` (or 64 zero bytes for none). */
export function seal(magic: Magic, body: Uint8Array, secret: Uint8Array | null): Uint8Array {
  const sig =
    secret === null ? new Uint8Array(64) : nobleBackend.sign(secret, signingMessage(magic, body));
  const out = new Uint8Array(body.length + 64);
  out.set(body);
  out.set(sig, body.length);
  return out;
}

/** SHA-256 of the bytes before the last 64 (the digest of a record that reads). */
export function digestOfBytes(bytes: Uint8Array): Uint8Array {
  return nobleBackend.sha256(bytes.subarray(0, bytes.length - 64));
}

/**
 * C9: the digest a given per-hop blob answers to, over the bytes before where `sig` would begin
 * by C5.1's sizes (171 + 14 × k, k the byte at offset 170); written here from the text.
 */
export function blobDigest(blob: Uint8Array): string | undefined {
  if (blob.length < 171) return undefined;
  const end = 171 + 14 * blob[170]!;
  if (blob.length < end) return undefined;
  return toHex(nobleBackend.sha256(blob.subarray(0, end)));
}

/** A copy of `bytes` with the byte at `offset` replaced. */
export function patch(bytes: Uint8Array, offset: number, value: number): Uint8Array {
  const out = bytes.slice();
  out[offset] = value;
  return out;
}

/** A copy of `bytes` with the byte at `offset` XORed with `mask`. */
export function flip(bytes: Uint8Array, offset: number, mask = 0x01): Uint8Array {
  const out = bytes.slice();
  out[offset] = out[offset]! ^ mask;
  return out;
}

export function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Rooms.

export const ENERGY_LABELS = [
  'energy/CalibratedInstrument',
  'energy/Estimator',
  'energy/ModelBased',
  'energy/OnChipCounter',
] as const;

/** The keys of the room with an origin. */
export const ORIGIN = {
  authority: keyOf('origin-room/authority'),
  origin: keyOf('origin-room/origin'),
  /** A steering key: `live/steer` and every `energy/` label. */
  steer: keyOf('origin-room/steer'),
  /** A steering key without any `energy/` label. */
  steerNoEnergy: keyOf('origin-room/steer-no-energy'),
  /** A steering key whose entry is revoked. */
  steerRevoked: keyOf('origin-room/steer-revoked'),
  /** A key the head does not list. */
  unlisted: keyOf('origin-room/unlisted'),
  /** A hop key listed for `live/hop` and `energy/OnChipCounter`, in no policy. */
  spareHop: keyOf('origin-room/hop-spare'),
  /** A hop key listed, revoked. */
  revokedHop: keyOf('origin-room/hop-revoked'),
  /** Another origin's key (a head of another origin). */
  otherOrigin: keyOf('origin-room/other-origin'),
} as const;

/** The keys of the room with no origin. */
export const SOLO = {
  authority: keyOf('solo-room/authority'),
  other: keyOf('solo-room/other'),
} as const;

/** A room as a verifier is given it. */
export interface Env {
  readonly kind: 'origin' | 'solo';
  readonly roomFields: RoomFields;
  readonly room: Uint8Array;
  readonly roomId: Uint8Array;
  readonly keyLogFields: KeyLogFields | null;
  readonly keyLog: Uint8Array | null;
  readonly authority: KeyPair;
  /** The default signer of policies and decisions. */
  readonly steer: KeyPair;
}

function entry(key: KeyPair, mays: readonly string[], status = 1): KeyLogEntry {
  const may_sign = [...new Set(mays)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return { key: key.pub, status, may_sign };
}

/** The may_sign of a hop that signs records of `cls`. */
export function hopMays(cls: number): string[] {
  return cls === 0 ? ['live/hop'] : [`energy/${CLASS_LABEL[cls]}`, 'live/hop'];
}

/** C4: a head's entries sorted by key, bytewise. */
export function sortEntries(entries: KeyLogEntry[]): KeyLogEntry[] {
  return entries.slice().sort((x, y) => compareBytes(x.key, y.key));
}

/** The entries of the origin room's head: the authority, the steering keys and every hop. */
export function originEntries(hops: ReadonlyMap<string, number>): KeyLogEntry[] {
  const list: KeyLogEntry[] = [
    entry(ORIGIN.authority, ['live/room', ...ENERGY_LABELS]),
    entry(ORIGIN.steer, ['live/steer', ...ENERGY_LABELS]),
    entry(ORIGIN.steerNoEnergy, ['live/steer']),
    entry(ORIGIN.steerRevoked, ['live/steer', ...ENERGY_LABELS], 2),
    entry(ORIGIN.spareHop, hopMays(4)),
    entry(ORIGIN.revokedHop, hopMays(4), 2),
    // C9: an entry with no authority, and authorities C4 does not name, are valid.
    entry(keyOf('origin-room/nothing'), []),
    entry(keyOf('origin-room/elsewhere'), ['live/record', 'x.custom/auth_1']),
  ];
  for (const [label, cls] of hops) list.push(entry(keyOf(label), hopMays(cls)));
  return sortEntries(list);
}

/** A signed room descriptor (rules checked only by the verifier; signed whatever it holds). */
export function roomOf(fields: RoomFields, secret: Uint8Array | null): Uint8Array {
  return seal('WRD1', encodeRoom(fields), secret);
}

/** A signed key log head. */
export function keyLogOf(fields: KeyLogFields, secret: Uint8Array | null): Uint8Array {
  return seal('WKL1', encodeKeyLog(fields), secret);
}

export const ORIGIN_ROOM_FIELDS: RoomFields = {
  authority: ORIGIN.authority.pub,
  origin: ORIGIN.origin.pub,
  name: 'WAI conformance room',
};

export const SOLO_ROOM_FIELDS: RoomFields = {
  authority: SOLO.authority.pub,
  origin: new Uint8Array(32),
  name: 'WAI conformance room without origin',
};

/** The room with an origin, its head listing every hop of `hops` (label → class). */
export function originEnv(hops: ReadonlyMap<string, number>): Env {
  const room = roomOf(ORIGIN_ROOM_FIELDS, ORIGIN.authority.secret);
  const keyLogFields: KeyLogFields = {
    origin: ORIGIN.origin.pub,
    seq: 7n,
    prev: sha256Text('wai-conformance:origin-room/head-6'),
    entries: originEntries(hops),
  };
  return {
    kind: 'origin',
    roomFields: ORIGIN_ROOM_FIELDS,
    room,
    roomId: digestOfBytes(room),
    keyLogFields,
    keyLog: keyLogOf(keyLogFields, ORIGIN.origin.secret),
    authority: ORIGIN.authority,
    steer: ORIGIN.steer,
  };
}

/** The room with no origin: its authority signs everything. */
export function soloEnv(): Env {
  const room = roomOf(SOLO_ROOM_FIELDS, SOLO.authority.secret);
  return {
    kind: 'solo',
    roomFields: SOLO_ROOM_FIELDS,
    room,
    roomId: digestOfBytes(room),
    keyLogFields: null,
    keyLog: null,
    authority: SOLO.authority,
    steer: SOLO.authority,
  };
}

// ---------------------------------------------------------------------------------------------
// Scenarios.

/** A hop of a pathway and the records it signs, one per period of {@link PERIODS}. */
export interface HopSpec {
  /** The key's label; its key is `keyOf(label)` unless `key` is given. */
  readonly label: string;
  readonly key?: KeyPair;
  /** 1 edge, 2 interior; default 1 for a pathway's first hop and 2 after. */
  readonly place?: number;
  /** The class of every record it signs (0: the unmetered marker). */
  readonly class: number;
  /** µJ per period (by k); 0 for the unmetered marker. */
  readonly joules: bigint | ((k: number) => bigint);
  /** Media bytes out per period (kind 1, direction 2); default 0. */
  readonly bytes?: bigint | ((k: number) => bigint);
  /** µs of delivery per layer class 0 to 7 per period; default all 0. */
  readonly subscriber_us?: readonly bigint[];
  /** Periods (k) it signs no record for. */
  readonly skip?: readonly number[];
  /** Records cut at half periods (still tiling). */
  readonly split?: boolean;
}

export interface PathwaySpec {
  readonly id: string;
  readonly base?: number;
  readonly host?: string;
  readonly params?: readonly CloneParam[];
  readonly top_tier?: number;
  readonly latency_ms?: number;
  readonly capacity?: number;
  readonly min_share_ppm?: number;
  readonly hops: readonly HopSpec[];
}

export interface PolicySpec {
  readonly overrides?: Partial<Omit<PolicyFields, 'pathways' | 'room' | 'signer'>>;
  readonly pathways: readonly PathwaySpec[];
  /** The policy's signer; the room's steering key (or the solo room's authority) by default. */
  readonly signer?: KeyPair;
}

/** The facts an accepted scenario is about, stated by hand and asserted of the verifier. */
export interface AcceptFacts {
  readonly reason: ReasonName;
  readonly priority: readonly string[];
  /** Each pathway's status name, by id (every pathway). */
  readonly status: Readonly<Record<string, string>>;
  readonly ttl?: number;
  /** Limits where they matter, by id. */
  readonly limits?: Readonly<
    Record<string, { latency: boolean; quality: boolean; capacity: boolean }>
  >;
  /** Figures where they matter, by id: class, J and D as decimal strings. */
  readonly figures?: Readonly<Record<string, { class: number; joules: string; delivery: string }>>;
  /** The report the decision states (C8 shape), where the request matters. */
  readonly report?: {
    readonly pathway: number | null;
    readonly throughput: string | null;
    readonly buffer: string | null;
  };
  /** The manifest's `PATHWAY-CLONES` member, stated by hand, where the policy has clones. */
  readonly clones?: string;
  /** Whether the session's draw lands in a band: the band's pathway id, or null. */
  readonly band?: string | null;
}

export interface Scenario {
  readonly name: string;
  readonly note: string;
  readonly env: 'origin' | 'solo';
  readonly policy: PolicySpec;
  readonly t?: bigint;
  readonly protocol: Protocol;
  /** The steering request the report is read from; `null`: a request that carries none. */
  readonly request: SteeringRequest | null;
  readonly loads?: readonly number[];
  /** Search the seeded session sequence for a draw in this pathway's band (null: in none). */
  readonly band?: string | null;
  /** The label of the session sequence (scenarios that share a client share it). */
  readonly sessionSeed?: string;
  readonly decisionSigner?: KeyPair;
  readonly expect: AcceptFacts;
}

/** The base policy fields every scenario starts from. */
export const BASE_POLICY: Omit<PolicyFields, 'pathways' | 'room' | 'signer'> = {
  period_us: P,
  window_us: W,
  lag_us: L,
  basis: 1,
  floor: 1,
  latency_ceiling_ms: 150,
  min_buffer_ms: 6000,
  hysteresis_ppm: 100_000,
  ttl_s: 300,
  min_ttl_s: 15,
  flags: 0,
  initial: 0,
  tiers: [500_000n, 1_500_000n, 4_000_000n, 8_000_000n],
  server_uri: 'https://steer.example.com/v1/steer?room=conf&fmt=json',
  reload_uri: 'https://steer.example.com/v1/steer?room=conf',
  decision_uri: 'https://steer.example.com/v1/decisions/',
};

export function hopKey(h: HopSpec): KeyPair {
  return h.key ?? keyOf(h.label);
}

/** The policy fields of a scenario in a room. */
export function policyFieldsOf(spec: PolicySpec, env: Env): PolicyFields {
  return {
    ...BASE_POLICY,
    ...spec.overrides,
    room: env.roomId,
    signer: (spec.signer ?? env.steer).pub,
    pathways: spec.pathways.map((p) => ({
      id: p.id,
      base: p.base ?? NOT_A_CLONE,
      host: p.host ?? '',
      params: p.params ?? [],
      top_tier: p.top_tier ?? 3,
      latency_ms: p.latency_ms ?? 40,
      capacity: p.capacity ?? NO_CAPACITY_LIMIT,
      min_share_ppm: p.min_share_ppm ?? 0,
      hops: p.hops.map((h, j) => ({ key: hopKey(h).pub, place: h.place ?? (j === 0 ? 1 : 2) })),
    })),
  };
}

const at = (v: bigint | ((k: number) => bigint) | undefined, k: number): bigint =>
  v === undefined ? 0n : typeof v === 'bigint' ? v : v(k);

/** The records a hop signs: its spans and fields, before signing. */
export function hopRecordsOf(h: HopSpec, roomId: Uint8Array): HopRecordFields[] {
  const out: HopRecordFields[] = [];
  for (const k of PERIODS) {
    if (h.skip?.includes(k)) continue;
    const start = T0 + BigInt(k) * P;
    const joules = h.class === 0 ? 0n : at(h.joules, k);
    const bytes = at(h.bytes, k);
    const spans: [bigint, bigint, bigint][] = h.split
      ? [
          [start, start + P / 2n, 2n],
          [start + P / 2n, start + P, 2n],
        ]
      : [[start, start + P, 1n]];
    for (const [s, e, div] of spans) {
      if (joules % div !== 0n || bytes % div !== 0n) throw new Error(`${h.label}: odd split`);
      out.push({
        room: roomId,
        hop: hopKey(h).pub,
        start: s,
        end: e,
        sessions: 12,
        class: h.class,
        joules: joules / div,
        subscriber_us: (h.subscriber_us ?? [0n, 0n, 0n, 0n, 0n, 0n, 0n, 0n]).map((us) => us / div),
        // A media track in and out, and an entry of another kind: only kind 1 out is delivery.
        tracks: [
          { track: 1, kind: 1, direction: 1, bytes: bytes / div + 1000n },
          { track: 1, kind: 1, direction: 2, bytes: bytes / div },
          { track: 9, kind: 2, direction: 2, bytes: 4096n },
        ],
      });
    }
  }
  return out;
}

/** A signed per-hop record (signed whatever it holds: rules are the verifier's). */
export function hopRecordOf(fields: HopRecordFields, secret: Uint8Array | null): Uint8Array {
  return seal('WMH1', encodeHopRecord(fields), secret);
}

/** A decision as a server made it, with everything a variant needs to remake it. */
export interface Built {
  readonly scenario: Scenario;
  readonly env: Env;
  readonly policyFields: PolicyFields;
  readonly policySigner: KeyPair;
  readonly policy: Uint8Array;
  readonly policyDigest: Uint8Array;
  /** Every record the hops signed (the store), by C9 digest (hex). */
  readonly blobs: ReadonlyMap<string, Uint8Array>;
  /** Each record's fields and the key that signed it, by digest (hex). */
  readonly signed: ReadonlyMap<string, { fields: HopRecordFields; key: KeyPair }>;
  readonly evidence: Evidence;
  readonly input: AssembleInput;
  readonly report: Report;
  readonly decisionSigner: KeyPair;
  readonly decisionFields: DecisionFields;
  readonly decision: Uint8Array;
  readonly decisionDigest: Uint8Array;
  readonly manifest: string;
}

const NO_REPORT: Report = { pathway: null, throughput: null, buffer: null };

/** The session of a scenario: the first of its seeded sequence whose draw lands as asked. */
function sessionOf(s: Scenario, fields: PolicyFields, digest: Uint8Array): Uint8Array {
  const seed = s.sessionSeed ?? s.name;
  for (let i = 0; i < 100_000; i++) {
    const session = sha256Text(`wai-conformance:session:${seed}:${i}`).slice(0, 16);
    if (s.band === undefined) return session;
    const draw = drawOf(digest, session);
    if (draw !== drawByHand(digest, session))
      throw new Error(`${s.name}: drawOf disagrees with §6.3`);
    const band = bandOf(fields, draw) ?? null;
    if (band !== bandByHand(fields, draw)) throw new Error(`${s.name}: bandOf disagrees with §6.3`);
    const want = s.band === null ? null : fields.pathways.findIndex((p) => p.id === s.band);
    if (want === -1) throw new Error(`${s.name}: no pathway ${s.band}`);
    if (band === want) return session;
  }
  throw new Error(`${s.name}: no session found`);
}

/** Builds a scenario the way a server decides: store, selection, assembly, signature, manifest. */
export function build(s: Scenario, env: Env): Built {
  const policyFields = policyFieldsOf(s.policy, env);
  const policySigner = s.policy.signer ?? env.steer;
  const policy = seal('WSP1', encodePolicy(policyFields), policySigner.secret);
  const policyDigest = digestOfBytes(policy);
  const store = new MemoryEvidenceStore();
  const blobs = new Map<string, Uint8Array>();
  const signed = new Map<string, { fields: HopRecordFields; key: KeyPair }>();
  for (const p of s.policy.pathways) {
    for (const h of p.hops) {
      for (const fields of hopRecordsOf(h, env.roomId)) {
        const blob = hopRecordOf(fields, hopKey(h).secret);
        const digest = digestOfBytes(blob);
        store.add(fields, digest);
        blobs.set(toHex(digest), blob);
        signed.set(toHex(digest), { fields, key: hopKey(h) });
      }
    }
  }
  const t = s.t ?? T;
  const evidence = selectEvidence(policyFields, windowAt(policyFields, t), store);
  const report =
    s.request === null
      ? NO_REPORT
      : readReport(
          s.request,
          policyFields.pathways.map((p) => p.id),
        );
  const session = sessionOf(s, policyFields, policyDigest);
  const decisionSigner = s.decisionSigner ?? env.steer;
  const input: AssembleInput = {
    roomId: env.roomId,
    signer: decisionSigner.pub,
    policy: policyFields,
    policyDigest,
    t,
    session,
    protocol: s.protocol,
    report,
    evidence,
    loads: s.loads ?? policyFields.pathways.map(() => 0),
  };
  const decisionFields = assembleDecision(input);
  const decision = seal('WSD1', encodeDecision(decisionFields), decisionSigner.secret);
  const decisionDigest = digestOfBytes(decision);
  const manifest = writeManifest(policyFields, decisionFields, decisionDigest);
  return {
    scenario: s,
    env,
    policyFields,
    policySigner,
    policy,
    policyDigest,
    blobs,
    signed,
    evidence,
    input,
    report,
    decisionSigner,
    decisionFields,
    decision,
    decisionDigest,
    manifest,
  };
}

// ---------------------------------------------------------------------------------------------
// What a verifier is given.

export interface Parts {
  readonly room: Uint8Array;
  readonly keyLog: Uint8Array | null;
  readonly policy: Uint8Array;
  readonly decision: Uint8Array;
  readonly records: readonly Uint8Array[];
  readonly manifest: string | Uint8Array | null;
  /** The policy fields the HLS tag and DASH element are written from. */
  readonly tagPolicy: PolicyFields;
}

/** The records a decision names, from `blobs`, in ascending order of digest (a set). */
export function namedBlobs(
  fields: Pick<DecisionFields, 'pathways'>,
  blobs: ReadonlyMap<string, Uint8Array>,
): Uint8Array[] {
  const digests = fields.pathways.flatMap((p) => p.evidence.map((d) => toHex(d)));
  return [...new Set(digests)]
    .sort()
    .map((d) => blobs.get(d))
    .filter((b): b is Uint8Array => b !== undefined);
}

export function partsOf(b: Built): Parts {
  return {
    room: b.env.room,
    keyLog: b.env.keyLog,
    policy: b.policy,
    decision: b.decision,
    records: namedBlobs(b.decisionFields, b.blobs),
    manifest: b.manifest,
    tagPolicy: b.policyFields,
  };
}

/** How {@link redecide} remakes a decision. */
export interface Redecide {
  /** The evidence the server assembles from (its named records and stated figures). */
  readonly evidence?: (e: Evidence) => Evidence;
  /** The policy the decision names: its fields (for the rule) and its bytes. */
  readonly policy?: { readonly fields?: PolicyFields; readonly bytes: Uint8Array };
  /** Fields edited after assembly. */
  readonly fields?: (f: DecisionFields) => DecisionFields;
  /** The body edited after encoding. */
  readonly body?: (body: Uint8Array) => Uint8Array;
  /** The signer: a key, or a public key with no secret (64 zero bytes of signature). */
  readonly signer?: KeyPair | { readonly pub: Uint8Array; readonly secret: null };
  /** Records added to those the verifier can be given. */
  readonly blobs?: readonly Uint8Array[];
}

/**
 * A decision remade from the scenario's inputs with one thing changed, signed again, with the
 * manifest written from it (none when it cannot be written) and the records it names.
 */
export function redecide(b: Built, o: Redecide): Parts {
  const evidence = o.evidence === undefined ? b.evidence : o.evidence(b.evidence);
  const policyBytes = o.policy?.bytes ?? b.policy;
  const policyFields = o.policy?.fields ?? b.policyFields;
  const policyDigest = o.policy === undefined ? b.policyDigest : digestOfBytes(policyBytes);
  const signer = o.signer ?? b.decisionSigner;
  let fields = assembleDecision({
    ...b.input,
    policy: policyFields,
    policyDigest,
    evidence,
    signer: signer.pub,
  });
  if (o.fields !== undefined) fields = o.fields(fields);
  let body = encodeDecision(fields);
  if (o.body !== undefined) body = o.body(body);
  const decision = seal('WSD1', body, signer.secret);
  const blobs = new Map(b.blobs);
  for (const blob of o.blobs ?? []) blobs.set(blobDigest(blob)!, blob);
  let manifest: string | null;
  try {
    manifest = writeManifest(policyFields, fields, digestOfBytes(decision));
  } catch {
    manifest = null;
  }
  return {
    room: b.env.room,
    keyLog: b.env.keyLog,
    policy: policyBytes,
    decision,
    records: namedBlobs(fields, blobs),
    manifest,
    tagPolicy: policyFields,
  };
}

/** The evidence with the record named at (pathway i, place j) replaced by `blob`'s. */
export function renaming(
  i: number,
  j: number,
  blob: Uint8Array,
  fields: HopRecordFields,
): (e: Evidence) => Evidence {
  return (e) => ({
    window: e.window,
    pathways: e.pathways.map((p, pi) => {
      if (pi !== i) return p;
      const named: EvidenceRecord[] = p.named.slice();
      if (named[j] === undefined) throw new Error(`no record ${j} named under pathway ${i}`);
      const digest = blobDigest(blob);
      if (digest === undefined) throw new Error('a blob that answers to no digest');
      named[j] = { record: fields, digest: hexBytes(digest) };
      return { ...p, named };
    }),
  });
}

/** The evidence with pathway i's named records given by `f`. */
export function renamingAll(
  i: number,
  f: (named: readonly EvidenceRecord[]) => EvidenceRecord[],
): (e: Evidence) => Evidence {
  return (e) => ({
    window: e.window,
    pathways: e.pathways.map((p, pi) => (pi === i ? { ...p, named: f(p.named) } : p)),
  });
}

/** The evidence with pathway i's stated figure replaced. */
export function restating(
  i: number,
  figure: { status: number; class: number; joules: bigint; delivery: bigint },
): (e: Evidence) => Evidence {
  return (e) => ({
    window: e.window,
    pathways: e.pathways.map((p, pi) => (pi === i ? { ...p, ...figure } : p)),
  });
}

export function hexBytes(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

/** The record named at (pathway i, place j) of a built decision, with its signing key. */
export function namedAt(
  b: Built,
  i: number,
  j: number,
): { fields: HopRecordFields; key: KeyPair; blob: Uint8Array; digest: string } {
  const digest = toHex(b.decisionFields.pathways[i]!.evidence[j]!);
  const s = b.signed.get(digest);
  const blob = b.blobs.get(digest);
  if (s === undefined || blob === undefined)
    throw new Error(`${b.scenario.name}: no record ${i}/${j}`);
  return { ...s, blob, digest };
}

/** The record of a built scenario by hop label and period k. */
export function recordOf(
  b: Built,
  label: string,
  k: number,
): { fields: HopRecordFields; key: KeyPair; blob: Uint8Array; digest: string } {
  const start = T0 + BigInt(k) * P;
  for (const [digest, s] of b.signed) {
    if (s.key.label === label && s.fields.start === start) {
      return { ...s, blob: b.blobs.get(digest)!, digest };
    }
  }
  throw new Error(`${b.scenario.name}: no record of ${label} at ${k}`);
}
