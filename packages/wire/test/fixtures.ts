// Builders of valid records of each kind, signed with deterministic keys, and an independent
// layout of each record written from the spec's tables (energy-steering §3.1, §3.2, §7.1;
// companion C3, C4, C5.1), so that tests can place every field without asking the codec.

import { createHash } from 'node:crypto';
import { ed25519 } from '@noble/curves/ed25519.js';
import { sha256 as nobleSha256 } from '@noble/hashes/sha2.js';
import { describe, expect, it } from 'vitest';
import {
  type CryptoBackend,
  type DecisionFields,
  digestOf,
  encodeDecision,
  encodeHopRecord,
  encodeKeyLog,
  encodePolicy,
  encodeRoom,
  type HopRecordFields,
  isRefusal,
  type KeyLogFields,
  type Magic,
  NO_CAPACITY_LIMIT,
  NOT_A_CLONE,
  nobleBackend,
  type PolicyFields,
  type PolicyPathway,
  type Reason,
  type Refusal,
  type Result,
  type RoomFields,
  readDecision,
  readHopRecord,
  readKeyLog,
  readPolicy,
  readRoom,
  type Signed,
  type SignOptions,
  signDecision,
  signHopRecord,
  signingMessage,
  signKeyLog,
  signPolicy,
  signRoom,
} from '../src/index.js';
import { nodeBackend } from '../src/node.js';

// ---------------------------------------------------------------------------------------------
// Keys

/** A deterministic secret key: 32 bytes, byte i = (seed × 37 + i × 11) mod 256. */
export function secretKey(seed: number): Uint8Array {
  const sk = new Uint8Array(32);
  for (let i = 0; i < 32; i++) sk[i] = (seed * 37 + i * 11 + 1) & 0xff;
  return sk;
}

export interface KeyPair {
  readonly secret: Uint8Array;
  readonly public: Uint8Array;
}

/** The key pair of {@link secretKey}`(seed)`; the public key by `nobleBackend.publicKey`. */
export function keyPair(seed: number): KeyPair {
  const secret = secretKey(seed);
  return { secret, public: nobleBackend.publicKey(secret) };
}

/** The fixtures' keys, by role. */
export const KEYS = {
  authority: keyPair(1),
  origin: keyPair(2),
  steer: keyPair(3),
  hopA1: keyPair(10),
  hopA2: keyPair(11),
  hopB1: keyPair(12),
  hopC1: keyPair(13),
  hopD1: keyPair(14),
  hopD2: keyPair(15),
} as const;

/** The encoding of the identity point (y = 1): a key of small order (C2 step 2: `bad_key`). */
export function smallOrderKey(): Uint8Array {
  const k = new Uint8Array(32);
  k[0] = 1;
  return k;
}

/** `n` bytes of `fill`. */
export function bytesOf(n: number, fill: number): Uint8Array {
  return new Uint8Array(n).fill(fill);
}

/** A 32-byte stand-in digest, distinct for each `seed`. */
export function fakeDigest(seed: number): Uint8Array {
  const d = new Uint8Array(32);
  for (let i = 0; i < 32; i++) d[i] = (seed * 53 + i * 7 + 3) & 0xff;
  return d;
}

/** A string of `n` copies of `c`. */
export function repeat(c: string, n: number): string {
  return c.repeat(n);
}

// ---------------------------------------------------------------------------------------------
// Valid records

/** A room descriptor naming an origin. */
export function roomFields(overrides: Partial<RoomFields> = {}): RoomFields {
  return {
    authority: KEYS.authority.public,
    origin: KEYS.origin.public,
    name: 'Main stage - Friday 21:00 (live)',
    ...overrides,
  };
}

/** A room descriptor naming no origin (32 zero bytes). */
export function roomWithoutOriginFields(overrides: Partial<RoomFields> = {}): RoomFields {
  return roomFields({ origin: new Uint8Array(32), name: 'side room', ...overrides });
}

export function signedRoom(fields: RoomFields = roomFields()): Uint8Array {
  return signRoom(fields, KEYS.authority.secret);
}

/** The room id of {@link roomFields}: SHA-256 of the signed descriptor's bytes before `sig`. */
export function roomId(): Uint8Array {
  if (cachedRoomId === undefined) {
    const bytes = signedRoom();
    cachedRoomId = nobleBackend.sha256(bytes.subarray(0, bytes.length - 64));
  }
  return cachedRoomId.slice();
}
let cachedRoomId: Uint8Array | undefined;

/** A key log head with three entries in ascending order of key. */
export function keyLogFields(overrides: Partial<KeyLogFields> = {}): KeyLogFields {
  const entries = [
    { key: KEYS.authority.public, status: 1, may_sign: ['energy/OnChipCounter', 'live/room'] },
    {
      key: KEYS.steer.public,
      status: 1,
      may_sign: ['energy/Estimator', 'energy/OnChipCounter', 'live/steer'],
    },
    { key: KEYS.hopA1.public, status: 2, may_sign: ['live/hop'] },
  ].sort((a, b) => compareKeys(a.key, b.key));
  return {
    origin: KEYS.origin.public,
    seq: 3n,
    prev: fakeDigest(99),
    entries,
    ...overrides,
  };
}

/** Bytewise order of two keys, written here (not the package's `compareBytes`). */
export function compareKeys(a: Uint8Array, b: Uint8Array): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    if (a[i] !== b[i]) return a[i]! - b[i]!;
  }
  return a.length - b.length;
}

export function signedKeyLog(fields: KeyLogFields = keyLogFields()): Uint8Array {
  return signKeyLog(fields, KEYS.origin.secret);
}

/**
 * A policy of four pathways: two of the content description, a clone of the first with a host
 * and params, and a clone of that clone with params only.
 */
export function policyFields(overrides: Partial<PolicyFields> = {}): PolicyFields {
  const pathways: PolicyPathway[] = [
    {
      id: 'cdn-a',
      base: NOT_A_CLONE,
      host: '',
      params: [],
      top_tier: 2,
      latency_ms: 40,
      capacity: NO_CAPACITY_LIMIT,
      min_share_ppm: 100_000,
      hops: [
        { key: KEYS.hopA1.public, place: 1 },
        { key: KEYS.hopA2.public, place: 2 },
      ],
    },
    {
      id: 'CDN_B.eu',
      base: NOT_A_CLONE,
      host: '',
      params: [],
      top_tier: 1,
      latency_ms: 75,
      capacity: 5000,
      min_share_ppm: 0,
      hops: [{ key: KEYS.hopB1.public, place: 1 }],
    },
    {
      id: 'cdn-a-clone',
      base: 0,
      host: 'edge-2.cdn.example.com',
      params: [
        { name: 'region', value: 'eu%2Dwest' },
        { name: 'token', value: '' },
      ],
      top_tier: 2,
      latency_ms: 55,
      capacity: 1000,
      min_share_ppm: 50_000,
      hops: [{ key: KEYS.hopC1.public, place: 1 }],
    },
    {
      id: 'clone-of-clone',
      base: 2,
      host: '',
      params: [{ name: 'p', value: 'v~1' }],
      top_tier: 0,
      latency_ms: 90,
      capacity: 0,
      min_share_ppm: 0,
      hops: [
        { key: KEYS.hopD2.public, place: 2 },
        { key: KEYS.hopD1.public, place: 1 },
      ],
    },
  ];
  return {
    room: roomId(),
    signer: KEYS.steer.public,
    period_us: 2_000_000n,
    window_us: 10_000_000n,
    lag_us: 500_000n,
    basis: 1,
    floor: 1,
    latency_ceiling_ms: 80,
    min_buffer_ms: 6000,
    hysteresis_ppm: 50_000,
    ttl_s: 300,
    min_ttl_s: 10,
    flags: 1,
    initial: 1,
    tiers: [400_000n, 1_200_000n, 3_000_000n],
    server_uri: 'https://steer.example.com/v1/steer?room=main&x=%2F',
    reload_uri: 'https://steer.example.com/v1/steer;reload',
    decision_uri: 'https://steer.example.com/v1/decisions/',
    pathways,
    ...overrides,
  };
}

export function signedPolicy(fields: PolicyFields = policyFields()): Uint8Array {
  return signPolicy(fields, KEYS.steer.secret);
}

/** A decision of three pathways: one with a figure, one unmetered, one stale. */
export function decisionFields(overrides: Partial<DecisionFields> = {}): DecisionFields {
  return {
    room: roomId(),
    signer: KEYS.steer.public,
    policy: fakeDigest(1),
    t: 1_767_225_600_123_456n,
    session: bytesOf(16, 0xab),
    draw: 123_456,
    protocol: 1,
    report: { present: 7, pathway: 1, throughput: 5_000_000n, buffer: 12_000n },
    pathways: [
      {
        load: 17,
        limits: 7,
        status: 0,
        class: 4,
        joules: (1n << 100n) + 5n,
        delivery: 987_654_321n,
        evidence: [fakeDigest(10), fakeDigest(11)],
      },
      {
        load: 0,
        limits: 3,
        status: 1,
        class: 0,
        joules: 0n,
        delivery: 0n,
        evidence: [fakeDigest(12)],
      },
      { load: 4, limits: 0, status: 3, class: 0, joules: 0n, delivery: 0n, evidence: [] },
    ],
    ttl: 300,
    reason: 5,
    priority: [2, 0, 1],
    ...overrides,
  };
}

export function signedDecision(fields: DecisionFields = decisionFields()): Uint8Array {
  return signDecision(fields, KEYS.steer.secret);
}

/** A metered per-hop record with three track entries. */
export function hopRecordFields(overrides: Partial<HopRecordFields> = {}): HopRecordFields {
  return {
    room: roomId(),
    hop: KEYS.hopA1.public,
    start: 1_767_225_600_000_000n,
    end: 1_767_225_602_000_000n,
    sessions: 12,
    class: 4,
    joules: 123_456_789n,
    subscriber_us: [0n, 1n, 2_000_000n, 3n, 0n, 0n, 0n, 0xffff_ffff_ffff_ffffn],
    tracks: [
      { track: 1, kind: 1, direction: 1, bytes: 1_000_000n },
      { track: 1, kind: 1, direction: 2, bytes: 24_000_000n },
      { track: 0xffff_ffff, kind: 2, direction: 2, bytes: 0n },
    ],
    ...overrides,
  };
}

export function signedHopRecord(
  fields: HopRecordFields = hopRecordFields(),
  secret: Uint8Array = KEYS.hopA1.secret,
): Uint8Array {
  return signHopRecord(fields, secret);
}

// ---------------------------------------------------------------------------------------------
// Raw bytes: records that need not be valid

/** `body` followed by a 64-byte `sig` (zeros unless given). */
export function withSig(body: Uint8Array, sig: Uint8Array = new Uint8Array(64)): Uint8Array {
  const out = new Uint8Array(body.length + sig.length);
  out.set(body);
  out.set(sig, body.length);
  return out;
}

/** The bytes of a record of `magic` (encoded without any check), then a 64-byte `sig`. */
export const raw = {
  policy: (p: PolicyFields, sig?: Uint8Array) => withSig(encodePolicy(p), sig),
  decision: (d: DecisionFields, sig?: Uint8Array) => withSig(encodeDecision(d), sig),
  room: (r: RoomFields, sig?: Uint8Array) => withSig(encodeRoom(r), sig),
  keyLog: (l: KeyLogFields, sig?: Uint8Array) => withSig(encodeKeyLog(l), sig),
  hop: (h: HopRecordFields, sig?: Uint8Array) => withSig(encodeHopRecord(h), sig),
} as const;

/** The reader of each magic. */
export const READERS: Readonly<Record<Magic, (bytes: Uint8Array) => Result<unknown>>> = {
  WSP1: readPolicy,
  WSD1: readDecision,
  WRD1: readRoom,
  WKL1: readKeyLog,
  WMH1: readHopRecord,
};

export const MAGICS: readonly Magic[] = ['WSP1', 'WSD1', 'WRD1', 'WKL1', 'WMH1'];

/** A copy of `fields` with pathway `i` changed by `patch`. */
export function withPathway(
  p: PolicyFields,
  i: number,
  patch: Partial<PolicyPathway>,
): PolicyFields {
  return {
    ...p,
    pathways: p.pathways.map((pw, j) => (j === i ? { ...pw, ...patch } : pw)),
  };
}

// ---------------------------------------------------------------------------------------------
// Assertions

/** Asserts that `result` is a refusal with exactly `reason` at `field` (and `offset`, if given). */
export function expectRefused(
  result: Result<unknown>,
  reason: Reason,
  field?: string,
  offset?: number,
): void {
  if (result.ok) expect.fail(`expected ${reason}${field ? ` at ${field}` : ''}, but it read`);
  expect(result.refusal.reason).toBe(reason);
  if (field !== undefined) expect(result.refusal.where.field).toBe(field);
  if (offset !== undefined) expect(result.refusal.where.offset).toBe(offset);
}

/** Asserts that `result` read, and returns its value. */
export function expectRead<T>(result: Result<T>): T {
  if (!result.ok) expect.fail(`expected a value, but refused: ${result.refusal.message}`);
  return result.value;
}

// ---------------------------------------------------------------------------------------------
// The layout of each record, written from the spec's tables: named segments with their bytes.
// Field names follow the codec's convention (`pathways[0].hops[1].key`); a length-prefixed
// field is two segments of one name (its length, then its bytes).

export interface Segment {
  readonly name: string;
  readonly offset: number;
  readonly bytes: Uint8Array;
}

class SpecWriter {
  readonly segments: Segment[] = [];
  private offset = 0;

  private push(name: string, bytes: Uint8Array): this {
    this.segments.push({ name, offset: this.offset, bytes });
    this.offset += bytes.length;
    return this;
  }

  le(name: string, v: bigint | number, size: number): this {
    let n = BigInt(v);
    const b = new Uint8Array(size);
    for (let i = 0; i < size; i++) {
      b[i] = Number(n & 0xffn);
      n >>= 8n;
    }
    return this.push(name, b);
  }

  bytes(name: string, b: Uint8Array): this {
    return this.push(name, b.slice());
  }

  ascii(name: string, s: string): this {
    return this.push(
      name,
      Uint8Array.from(s, (c) => c.charCodeAt(0)),
    );
  }

  /** A length of `lengthSize` bytes, then the string's bytes, both named `name`. */
  prefixed(name: string, s: string, lengthSize: 1 | 2): this {
    return this.le(name, s.length, lengthSize).ascii(name, s);
  }

  header(magic: Magic): this {
    return this.ascii('magic', magic).le('version', 1, 1);
  }
}

/** §3.1, §3.2. */
export function policyLayout(p: PolicyFields): Segment[] {
  const w = new SpecWriter().header('WSP1');
  w.bytes('room', p.room).bytes('signer', p.signer);
  w.le('period_us', p.period_us, 8).le('window_us', p.window_us, 8).le('lag_us', p.lag_us, 8);
  w.le('basis', p.basis, 1).le('floor', p.floor, 1);
  w.le('latency_ceiling_ms', p.latency_ceiling_ms, 4).le('min_buffer_ms', p.min_buffer_ms, 4);
  w.le('hysteresis_ppm', p.hysteresis_ppm, 4).le('ttl_s', p.ttl_s, 4);
  w.le('min_ttl_s', p.min_ttl_s, 4).le('flags', p.flags, 1).le('initial', p.initial, 1);
  w.le('tiers', p.tiers.length, 1);
  p.tiers.forEach((t, i) => {
    w.le(`tiers[${i}]`, t, 8);
  });
  w.prefixed('server_uri', p.server_uri, 2);
  w.prefixed('reload_uri', p.reload_uri, 2);
  w.prefixed('decision_uri', p.decision_uri, 2);
  w.le('pathways', p.pathways.length, 1);
  p.pathways.forEach((pw, i) => {
    const at = `pathways[${i}]`;
    w.prefixed(`${at}.id`, pw.id, 1).le(`${at}.base`, pw.base, 1);
    w.prefixed(`${at}.host`, pw.host, 1).le(`${at}.params`, pw.params.length, 1);
    pw.params.forEach((param, j) => {
      w.prefixed(`${at}.params[${j}].name`, param.name, 1);
      w.prefixed(`${at}.params[${j}].value`, param.value, 1);
    });
    w.le(`${at}.top_tier`, pw.top_tier, 1).le(`${at}.latency_ms`, pw.latency_ms, 4);
    w.le(`${at}.capacity`, pw.capacity, 4).le(`${at}.min_share_ppm`, pw.min_share_ppm, 4);
    w.le(`${at}.hops`, pw.hops.length, 1);
    pw.hops.forEach((hop, j) => {
      w.bytes(`${at}.hops[${j}].key`, hop.key).le(`${at}.hops[${j}].place`, hop.place, 1);
    });
  });
  return w.segments;
}

/** §7.1. */
export function decisionLayout(d: DecisionFields): Segment[] {
  const w = new SpecWriter().header('WSD1');
  w.bytes('room', d.room).bytes('signer', d.signer).bytes('policy', d.policy);
  w.le('t', d.t, 8).bytes('session', d.session).le('draw', d.draw, 4);
  w.le('protocol', d.protocol, 1);
  w.le('report.present', d.report.present, 1).le('report.pathway', d.report.pathway, 1);
  w.le('report.throughput', d.report.throughput, 8).le('report.buffer', d.report.buffer, 8);
  w.le('pathways', d.pathways.length, 1);
  d.pathways.forEach((pw, i) => {
    const at = `pathways[${i}]`;
    w.le(`${at}.load`, pw.load, 4).le(`${at}.limits`, pw.limits, 1);
    w.le(`${at}.status`, pw.status, 1).le(`${at}.class`, pw.class, 1);
    w.le(`${at}.joules`, pw.joules, 16).le(`${at}.delivery`, pw.delivery, 16);
    w.le(`${at}.evidence`, pw.evidence.length, 1);
    pw.evidence.forEach((digest, j) => {
      w.bytes(`${at}.evidence[${j}]`, digest);
    });
  });
  w.le('ttl', d.ttl, 4).le('reason', d.reason, 1).le('priority', d.priority.length, 1);
  d.priority.forEach((index, i) => {
    w.le(`priority[${i}]`, index, 1);
  });
  return w.segments;
}

/** C3. */
export function roomLayout(r: RoomFields): Segment[] {
  const w = new SpecWriter().header('WRD1');
  w.bytes('authority', r.authority).bytes('origin', r.origin).prefixed('name', r.name, 1);
  return w.segments;
}

/** C4. */
export function keyLogLayout(l: KeyLogFields): Segment[] {
  const w = new SpecWriter().header('WKL1');
  w.bytes('origin', l.origin).le('seq', l.seq, 8).bytes('prev', l.prev);
  w.le('entries', l.entries.length, 2);
  l.entries.forEach((e, i) => {
    const at = `entries[${i}]`;
    w.bytes(`${at}.key`, e.key).le(`${at}.status`, e.status, 1);
    w.le(`${at}.may_sign`, e.may_sign.length, 1);
    e.may_sign.forEach((a, j) => {
      w.prefixed(`${at}.may_sign[${j}]`, a, 1);
    });
  });
  return w.segments;
}

/** C5.1. */
export function hopLayout(h: HopRecordFields): Segment[] {
  const w = new SpecWriter().header('WMH1');
  w.bytes('room', h.room).bytes('hop', h.hop).le('start', h.start, 8).le('end', h.end, 8);
  w.le('sessions', h.sessions, 4).le('class', h.class, 1).le('joules', h.joules, 16);
  h.subscriber_us.forEach((us, i) => {
    w.le(`subscriber_us[${i}]`, us, 8);
  });
  w.le('tracks', h.tracks.length, 1);
  h.tracks.forEach((t, i) => {
    const at = `tracks[${i}]`;
    w.le(`${at}.track`, t.track, 4).le(`${at}.kind`, t.kind, 1);
    w.le(`${at}.direction`, t.direction, 1).le(`${at}.bytes`, t.bytes, 8);
  });
  return w.segments;
}

/** The bytes of a layout. */
export function layoutBytes(segments: readonly Segment[]): Uint8Array {
  const size = segments.reduce((n, s) => n + s.bytes.length, 0);
  const out = new Uint8Array(size);
  for (const s of segments) out.set(s.bytes, s.offset);
  return out;
}

/** The offset at which a rule on `name` is placed: its last segment (a string's bytes). */
export function offsetOf(segments: readonly Segment[], name: string): number {
  for (let i = segments.length - 1; i >= 0; i--) {
    if (segments[i]!.name === name) return segments[i]!.offset;
  }
  throw new Error(`no field ${name} in the layout`);
}

/** The layout followed by `sig` (64 bytes). */
export function withSigSegment(segments: readonly Segment[]): Segment[] {
  const end = segments.reduce((n, s) => n + s.bytes.length, 0);
  return [...segments, { name: 'sig', offset: end, bytes: new Uint8Array(64) }];
}

/** The field a read of the first `length` bytes stops at: the first segment not wholly there. */
export function cutAt(segments: readonly Segment[], length: number): Segment {
  for (const s of segments) {
    if (s.bytes.length > 0 && s.offset + s.bytes.length > length) return s;
  }
  throw new Error(`no field is cut at ${length}`);
}

// ---------------------------------------------------------------------------------------------
// Round trips, the same for every kind

export interface RoundTripCase<F> {
  readonly magic: Magic;
  /** The C2 domain of the kind, written out: the tag's ASCII bytes and 0x01, in hex. */
  readonly domainHex: string;
  readonly fields: F;
  readonly secret: Uint8Array;
  readonly signerOf: (f: F) => Uint8Array;
  readonly withSigner: (f: F, key: Uint8Array) => F;
  readonly sign: (f: F, secret: Uint8Array, options?: SignOptions) => Uint8Array;
  readonly encode: (f: F) => Uint8Array;
  readonly read: (bytes: Uint8Array) => Result<Signed<F>>;
  readonly layout: (f: F) => Segment[];
  readonly verify: (value: Signed<F>, backend?: CryptoBackend) => Refusal | undefined;
  /** A valid change of a field other than the signer's key. */
  readonly tweak: (f: F) => F;
  /** An invalid record, and the reason its rules give. */
  readonly invalid: { readonly fields: F; readonly reason: Reason };
}

/** The fields of a value as read: everything but `sig` and `body`. */
export function fieldsOf<F>(value: Signed<F>): F {
  const { sig: _sig, body: _body, ...fields } = value;
  return fields as F;
}

function hex(b: Uint8Array): string {
  return Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
}

export function describeRoundTrip<F>(c: RoundTripCase<F>): void {
  describe(`${c.magic} round trip`, () => {
    const bytes = c.sign(c.fields, c.secret);
    const body = bytes.subarray(0, bytes.length - 64);

    it('encodes exactly the layout of the spec table', () => {
      expect(hex(c.encode(c.fields))).toBe(hex(layoutBytes(c.layout(c.fields))));
      expect(hex(body)).toBe(hex(layoutBytes(c.layout(c.fields))));
    });

    it('sign then read gives the same fields', () => {
      const value = expectRead(c.read(bytes));
      expect(fieldsOf(value)).toEqual(c.fields);
      expect(hex(value.sig)).toBe(hex(bytes.subarray(bytes.length - 64)));
      expect(hex(value.body)).toBe(hex(body));
    });

    it('read then encode gives the same bytes', () => {
      const value = expectRead(c.read(bytes));
      const again = c.encode(fieldsOf(value));
      expect(hex(again)).toBe(hex(body));
      expect(hex(withSig(again, value.sig))).toBe(hex(bytes));
    });

    it('the read value does not alias the caller’s buffer', () => {
      const copy = bytes.slice();
      const value = expectRead(c.read(copy));
      copy.fill(0);
      expect(hex(value.body)).toBe(hex(body));
    });

    it('its digest is SHA-256 of the bytes before sig (noble hashes and node:crypto)', () => {
      const value = expectRead(c.read(bytes));
      const expected = hex(nobleSha256(body));
      expect(createHash('sha256').update(body).digest('hex')).toBe(expected);
      expect(hex(digestOf(value))).toBe(expected);
      expect(hex(digestOf(value, nobleBackend))).toBe(expected);
      expect(hex(digestOf(value, nodeBackend))).toBe(expected);
    });

    it('signs under its C2 domain (literal tag bytes), verifiable by plain RFC 8032', () => {
      const message = signingMessage(c.magic, body);
      const domain = fromHexString(c.domainHex);
      expect(hex(message)).toBe(hex(domain) + hex(body));
      expect(hex(message.subarray(0, domain.length))).toBe(c.domainHex);
      const sig = bytes.subarray(bytes.length - 64);
      expect(ed25519.verify(sig, concat(domain, body), c.signerOf(c.fields))).toBe(true);
      // Nothing but the domain: the same signature does not verify over the bare body.
      expect(ed25519.verify(sig, body, c.signerOf(c.fields))).toBe(false);
    });

    it('signing is deterministic and the same with both backends', () => {
      expect(hex(c.sign(c.fields, c.secret, { backend: nodeBackend }))).toBe(hex(bytes));
      expect(hex(c.sign(c.fields, c.secret, { backend: nobleBackend }))).toBe(hex(bytes));
    });

    it('verifies with both backends; a flipped sig byte is bad_signature', () => {
      const value = expectRead(c.read(bytes));
      expect(c.verify(value)).toBeUndefined();
      expect(c.verify(value, nobleBackend)).toBeUndefined();
      expect(c.verify(value, nodeBackend)).toBeUndefined();
      for (const at of [0, 31, 32, 40, 63]) {
        const flipped = bytes.slice();
        flipped[bytes.length - 64 + at]! ^= 0x01;
        const v = expectRead(c.read(flipped));
        for (const backend of [nobleBackend, nodeBackend]) {
          const r = c.verify(v, backend);
          expect(r?.reason).toBe('bad_signature');
          expect(isRefusal(r)).toBe(true);
        }
      }
    });

    it('a changed field under the same sig is bad_signature', () => {
      const tweaked = c.tweak(c.fields);
      expect(hex(c.encode(tweaked))).not.toBe(hex(body));
      const v = expectRead(c.read(withSig(c.encode(tweaked), bytes.subarray(bytes.length - 64))));
      expect(c.verify(v, nobleBackend)?.reason).toBe('bad_signature');
      expect(c.verify(v, nodeBackend)?.reason).toBe('bad_signature');
    });

    it('a small-order signing key is bad_key, before the signature', () => {
      const f = c.withSigner(c.fields, smallOrderKey());
      const v = expectRead(c.read(withSig(c.encode(f), bytes.subarray(bytes.length - 64))));
      expect(c.verify(v, nobleBackend)?.reason).toBe('bad_key');
      expect(c.verify(v, nodeBackend)?.reason).toBe('bad_key');
    });

    it('signing checks the rules unless check is false', () => {
      let thrown: unknown;
      try {
        c.sign(c.invalid.fields, c.secret);
      } catch (e) {
        thrown = e;
      }
      expect(isRefusal(thrown)).toBe(true);
      expect((thrown as Refusal).reason).toBe(c.invalid.reason);
      const signed = c.sign(c.invalid.fields, c.secret, { check: false });
      expectRefused(c.read(signed), c.invalid.reason);
    });

    it('signing needs the secret key of the record’s signer (TypeError)', () => {
      expect(() => c.sign(c.fields, secretKey(200))).toThrow(TypeError);
      expect(() => c.sign(c.fields, new Uint8Array(31))).toThrow(TypeError);
      expect(() => c.sign(c.fields, 'secret' as unknown as Uint8Array)).toThrow(TypeError);
    });
  });
}

function fromHexString(s: string): Uint8Array {
  const out = new Uint8Array(s.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(s.slice(2 * i, 2 * i + 2), 16);
  return out;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}
