// Properties of the five codecs (fast-check):
//   (a) for arbitrary VALID records of each kind, write then read is the identity, and the bytes
//       written are those of the spec tables (an independent layout, test/fixtures.ts);
//   (b) reading arbitrary bytes, bare or behind each magic and version 1, gives a value or a
//       typed refusal (`isRefusal`, a reason of REASONS), nothing else thrown; what reads
//       re-encodes to its own bytes;
//   (c) mutations of valid records: a byte changed, inserted or deleted gives a value or a typed
//       refusal; a record cut short is `truncated` at the field the cut falls in; a record
//       extended is `malformed` at the end of `sig`.
//
// Runs: about 120 000 cases by default (well under a minute on two cores). FUZZ_RUNS sets the
// total for the suite instead (`pnpm fuzz` sets 2 000 000); each property keeps its share.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type Decision,
  type DecisionFields,
  type DecisionPathway,
  encodeDecision,
  encodeHopRecord,
  encodeKeyLog,
  encodePolicy,
  encodeRoom,
  type HopRecordFields,
  isRefusal,
  type KeyLogEntry,
  type KeyLogFields,
  type Magic,
  type PolicyFields,
  type PolicyPathway,
  REASONS,
  type Result,
  type RoomFields,
  readDecision,
  readHopRecord,
  readKeyLog,
  readPolicy,
  readRoom,
  type Signed,
  signDecision,
  signHopRecord,
  signKeyLog,
  signPolicy,
  signRoom,
  type TrackEntry,
  verifyDecisionSignature,
  verifyHopRecord,
  verifyKeyLogSignature,
  verifyPolicySignature,
  verifyRoomSignature,
} from '../src/index.js';
import { nodeBackend } from '../src/node.js';
import {
  cutAt,
  decisionLayout,
  fieldsOf,
  hopLayout,
  KEYS,
  keyLogLayout,
  layoutBytes,
  policyLayout,
  roomLayout,
  type Segment,
  withSig,
  withSigSegment,
} from './fixtures.js';

// ---------------------------------------------------------------------------------------------
// Runs

/** Each property's share of the default total, in cases. */
const DEFAULT_RUNS = {
  roundTrip: 3_000, // × 5 kinds
  signed: 40, // × 5 kinds, real signatures, both backends
  noise: 6_000, // × 5 readers × 2 (bare, behind the header)
  cut: 3_000, // × 5 kinds
  extend: 1_000, // × 5 kinds
  mutate: 6_000, // × 5 kinds
  splice: 2_000, // × 5 kinds
} as const;
const DEFAULT_TOTAL =
  5 *
  (DEFAULT_RUNS.roundTrip +
    DEFAULT_RUNS.signed +
    2 * DEFAULT_RUNS.noise +
    DEFAULT_RUNS.cut +
    DEFAULT_RUNS.extend +
    DEFAULT_RUNS.mutate +
    DEFAULT_RUNS.splice);
const FUZZ_RUNS = Number(process.env.FUZZ_RUNS ?? DEFAULT_TOTAL);
const SCALE = Number.isFinite(FUZZ_RUNS) && FUZZ_RUNS > 0 ? FUZZ_RUNS / DEFAULT_TOTAL : 1;
function runs(kind: keyof typeof DEFAULT_RUNS): number {
  return Math.max(1, Math.round(DEFAULT_RUNS[kind] * SCALE));
}
/** A test's timeout, grown with the runs. */
const TIMEOUT = Math.max(120_000, Math.ceil(120_000 * SCALE));

// ---------------------------------------------------------------------------------------------
// Characters (energy-steering §3.3, C3, C4), written here from the spec

const ALPHA_DIGIT = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const UNRESERVED = `${ALPHA_DIGIT}-._~`;
const URI_CHARS = `${UNRESERVED}:/?[]@!$&'()*+,;=`;
const ID_CHARS = `${ALPHA_DIGIT}._-`;
const HOST_CHARS = `${ALPHA_DIGIT}-.`;
const AUTHORITY_CHARS = `${ALPHA_DIGIT}/_-.`;
const HEX = '0123456789abcdefABCDEF';

const charOf = (chars: string) => fc.constantFrom(...chars.split(''));
const pctEncoding = fc.tuple(charOf(HEX), charOf(HEX)).map(([a, b]) => `%${a}${b}`);
/** Tokens of RFC 3986 characters or percent-encodings, joined to at most `max` bytes. */
function encodedText(chars: string, min: number, max: number, maxTokens: number) {
  const token = fc.oneof(
    { weight: 6, arbitrary: charOf(chars) },
    { weight: 1, arbitrary: pctEncoding },
  );
  return fc.array(token, { minLength: min, maxLength: maxTokens }).map((tokens) => {
    let s = '';
    for (const t of tokens) {
      if (s.length + t.length > max) break;
      s += t;
    }
    return s;
  });
}
const plainText = (chars: string, min: number, max: number) =>
  fc.string({ unit: charOf(chars), minLength: min, maxLength: max });

const u8 = fc.integer({ min: 0, max: 0xff });
const u32 = fc.integer({ min: 0, max: 0xffff_ffff });
const U64_MAX = (1n << 64n) - 1n;
const U128_MAX = (1n << 128n) - 1n;
const u64 = fc.bigInt({ min: 0n, max: U64_MAX });
const u128 = fc.bigInt({ min: 0n, max: U128_MAX });
const bytes = (n: number) => fc.uint8Array({ minLength: n, maxLength: n });
const sig64 = bytes(64);

/** Bytewise order of two one-byte-per-character strings. */
const byBytes = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** A 32-byte key made unique by its last two bytes. */
function tagged(key: Uint8Array, a: number, b: number): Uint8Array {
  const k = key.slice();
  k[30] = a;
  k[31] = b;
  return k;
}

// ---------------------------------------------------------------------------------------------
// Valid records, by construction

const uri = fc.oneof(
  { weight: 16, arbitrary: encodedText(URI_CHARS, 1, 2048, 24) },
  { weight: 1, arbitrary: encodedText(URI_CHARS, 1, 2048, 800) },
);

const cloneParams = fc
  .uniqueArray(encodedText(UNRESERVED, 1, 64, 24), { maxLength: 4, comparator: 'IsStrictlyEqual' })
  .chain((names) =>
    fc.tuple(
      fc.constant([...names].sort(byBytes)),
      fc.array(
        fc.oneof(
          { weight: 5, arbitrary: encodedText(UNRESERVED, 0, 255, 12) },
          { weight: 1, arbitrary: encodedText(UNRESERVED, 0, 255, 120) },
        ),
        { minLength: names.length, maxLength: names.length },
      ),
    ),
  )
  .map(([names, values]) => names.map((name, i) => ({ name, value: values[i]! })));

const pathwayDraft = fc.record({
  base: fc.option(fc.nat(), { nil: undefined }),
  host: fc.oneof(
    { weight: 8, arbitrary: plainText(HOST_CHARS, 0, 16) },
    { weight: 1, arbitrary: plainText(HOST_CHARS, 0, 255) },
  ),
  params: cloneParams,
  top_tier: fc.nat(),
  latency_ms: u32,
  capacity: u32,
  share: fc.nat(),
  hops: fc.array(fc.tuple(bytes(32), fc.constantFrom(1, 2)), { minLength: 1, maxLength: 4 }),
  edge: fc.nat(),
});

const policyArb: fc.Arbitrary<PolicyFields> = fc
  .record({
    room: bytes(32),
    signer: bytes(32),
    period_us: fc.bigInt({ min: 1n, max: U64_MAX }),
    windowFactor: u64,
    lag_us: u64,
    basis: fc.constantFrom(1, 2),
    floor: fc.nat(),
    latency_ceiling_ms: u32,
    min_buffer_ms: u32,
    hysteresis_ppm: fc.integer({ min: 0, max: 1_000_000 }),
    ttl_s: fc.integer({ min: 1, max: 0xffff_ffff }),
    minTtl: fc.nat(),
    flags: fc.constantFrom(0, 1),
    initial: fc.nat(),
    tiers: fc.uniqueArray(fc.bigInt({ min: 1n, max: U64_MAX }), {
      minLength: 1,
      maxLength: 8,
      comparator: 'IsStrictlyEqual',
    }),
    server_uri: uri,
    reload_uri: uri,
    decision_uri: uri,
    shape: fc
      .oneof(
        { weight: 8, arbitrary: fc.integer({ min: 1, max: 5 }) },
        { weight: 1, arbitrary: fc.integer({ min: 1, max: 32 }) },
      )
      .chain((m) =>
        fc.tuple(
          fc.uniqueArray(
            fc.oneof(
              { weight: 8, arbitrary: plainText(ID_CHARS, 1, 8) },
              plainText(ID_CHARS, 1, 64),
            ),
            { minLength: m, maxLength: m },
          ),
          fc.array(pathwayDraft, { minLength: m, maxLength: m }),
        ),
      ),
  })
  .map((g): PolicyFields => {
    const tiers = [...g.tiers].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const n = tiers.length;
    const [ids, drafts] = g.shape;
    const m = ids.length;
    const budget = Math.floor(1_000_000 / m);
    const pathways: PolicyPathway[] = ids.map((id, i) => {
      const d = drafts[i]!;
      const clone = i > 0 && d.base !== undefined;
      const edge = d.edge % d.hops.length;
      return {
        id,
        base: clone ? d.base! % i : 255,
        host: clone ? d.host : '',
        params: clone ? d.params : [],
        top_tier: d.top_tier % n,
        latency_ms: d.latency_ms,
        capacity: d.capacity,
        min_share_ppm: d.share % (budget + 1),
        hops: d.hops.map(([key, place], j) => ({
          key: tagged(key, i, j),
          place: j === edge ? 1 : place,
        })),
      };
    });
    const plain = pathways.flatMap((pw, i) => (pw.base === 255 ? [i] : []));
    const maxFactor = U64_MAX / g.period_us; // ≥ 1
    return {
      room: g.room,
      signer: g.signer,
      period_us: g.period_us,
      window_us: g.period_us * (1n + (g.windowFactor % maxFactor)),
      lag_us: g.lag_us,
      basis: g.basis,
      floor: g.floor % n,
      latency_ceiling_ms: g.latency_ceiling_ms,
      min_buffer_ms: g.min_buffer_ms,
      hysteresis_ppm: g.hysteresis_ppm,
      ttl_s: g.ttl_s,
      min_ttl_s: 1 + (g.minTtl % g.ttl_s),
      flags: g.flags,
      initial: plain[g.initial % plain.length]!,
      tiers,
      server_uri: g.server_uri,
      reload_uri: g.reload_uri,
      decision_uri: g.decision_uri,
      pathways,
    };
  });

const decisionPathwayDraft = fc.record({
  load: u32,
  limits: fc.integer({ min: 0, max: 7 }),
  status: fc.integer({ min: 0, max: 4 }),
  class: fc.integer({ min: 2, max: 5 }),
  joules: fc.bigInt({ min: 1n, max: U128_MAX }),
  delivery: fc.bigInt({ min: 1n, max: U128_MAX }),
  evidence: fc.array(bytes(32), { maxLength: 4 }),
});

const decisionArb: fc.Arbitrary<DecisionFields> = fc
  .record({
    room: bytes(32),
    signer: bytes(32),
    policy: bytes(32),
    t: u64,
    session: bytes(16),
    draw: fc.integer({ min: 0, max: 999_999 }),
    protocol: fc.constantFrom(1, 2),
    present: fc.integer({ min: 0, max: 7 }),
    pathway: fc.nat(),
    throughput: u64,
    buffer: u64,
    drafts: fc.oneof(
      { weight: 6, arbitrary: fc.array(decisionPathwayDraft, { maxLength: 6 }) },
      { weight: 1, arbitrary: fc.array(decisionPathwayDraft, { maxLength: 32 }) },
    ),
    ttl: fc.integer({ min: 1, max: 0xffff_ffff }),
    reason: fc.integer({ min: 1, max: 6 }),
    shuffle: fc.array(fc.nat(), { minLength: 32, maxLength: 32 }),
  })
  .map((g): DecisionFields => {
    const m = g.drafts.length;
    const pathways: DecisionPathway[] = g.drafts.map((d, i) => {
      const figure = d.status === 0;
      return {
        load: d.load,
        limits: d.limits,
        status: d.status,
        class: figure ? d.class : 0,
        joules: figure ? d.joules : 0n,
        delivery: figure ? d.delivery : 0n,
        evidence: d.evidence.map((e, j) => tagged(e, i, j)),
      };
    });
    // A permutation of 0 … m − 1 (Fisher–Yates on the drawn numbers).
    const priority = Array.from({ length: m }, (_, i) => i);
    for (let i = m - 1; i > 0; i--) {
      const j = g.shuffle[i]! % (i + 1);
      [priority[i], priority[j]] = [priority[j]!, priority[i]!];
    }
    const present = m === 0 ? g.present & 6 : g.present;
    return {
      room: g.room,
      signer: g.signer,
      policy: g.policy,
      t: g.t,
      session: g.session,
      draw: g.draw,
      protocol: g.protocol,
      report: {
        present,
        pathway: present & 1 ? g.pathway % m : 0,
        throughput: present & 2 ? g.throughput : 0n,
        buffer: present & 4 ? g.buffer : 0n,
      },
      pathways,
      ttl: g.ttl,
      reason: g.reason,
      priority,
    };
  });

const roomArb: fc.Arbitrary<RoomFields> = fc.record({
  authority: bytes(32),
  origin: fc.oneof(fc.constant(new Uint8Array(32)), bytes(32)),
  name: fc.string({
    unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
    minLength: 1,
    maxLength: 64,
  }),
});

const keyLogArb: fc.Arbitrary<KeyLogFields> = fc
  .record({
    origin: bytes(32),
    seq: fc.oneof(fc.constant(0n), u64),
    prev: bytes(32),
    entries: fc.oneof(
      {
        weight: 6,
        arbitrary: fc.array(
          fc.tuple(
            bytes(32),
            fc.constantFrom(1, 2),
            fc.uniqueArray(plainText(AUTHORITY_CHARS, 1, 20), { maxLength: 5 }),
          ),
          { maxLength: 5 },
        ),
      },
      {
        weight: 1,
        arbitrary: fc.array(
          fc.tuple(
            bytes(32),
            fc.constantFrom(1, 2),
            fc.uniqueArray(plainText(AUTHORITY_CHARS, 1, 64), { maxLength: 20 }),
          ),
          { maxLength: 40 },
        ),
      },
    ),
  })
  .map((g): KeyLogFields => {
    const prev = g.prev.slice();
    if (g.seq === 0n) prev.fill(0);
    else if (prev.every((b) => b === 0)) prev[0] = 1;
    const seen = new Set<string>();
    const entries: KeyLogEntry[] = [];
    for (const [key, status, may] of g.entries) {
      const id = Array.from(key).join(',');
      if (seen.has(id)) continue;
      seen.add(id);
      entries.push({ key, status, may_sign: [...may].sort(byBytes) });
    }
    entries.sort((a, b) => {
      for (let i = 0; i < 32; i++) if (a.key[i] !== b.key[i]) return a.key[i]! - b.key[i]!;
      return 0;
    });
    return { origin: g.origin, seq: g.seq, prev, entries };
  });

const hopArb: fc.Arbitrary<HopRecordFields> = fc
  .record({
    room: bytes(32),
    hop: bytes(32),
    start: fc.bigInt({ min: 0n, max: U64_MAX - 1n }),
    span: u64,
    sessions: u32,
    class: fc.constantFrom(0, 2, 3, 4, 5),
    joules: u128,
    subscriber_us: fc.array(u64, { minLength: 8, maxLength: 8 }),
    tracks: fc.oneof(
      {
        weight: 6,
        arbitrary: fc.array(
          fc.record({
            track: u32,
            kind: fc.constantFrom(1, 2),
            direction: fc.constantFrom(1, 2),
            bytes: u64,
          }),
          { maxLength: 8 },
        ),
      },
      {
        weight: 1,
        arbitrary: fc.array(
          fc.record({
            track: fc.integer({ min: 0, max: 40 }),
            kind: fc.constantFrom(1, 2),
            direction: fc.constantFrom(1, 2),
            bytes: u64,
          }),
          { maxLength: 80 },
        ),
      },
    ),
  })
  .map((g): HopRecordFields => {
    const seen = new Set<string>();
    const tracks: TrackEntry[] = g.tracks.filter((t) => {
      const id = `${t.track}/${t.direction}`;
      if (seen.has(id)) return false;
      seen.add(id);
      return true;
    });
    return {
      room: g.room,
      hop: g.hop,
      start: g.start,
      end: g.start + 1n + (g.span % (U64_MAX - g.start)),
      sessions: g.sessions,
      class: g.class,
      joules: g.class === 0 ? 0n : g.joules,
      subscriber_us: g.subscriber_us,
      tracks,
    };
  });

// ---------------------------------------------------------------------------------------------
// The kinds

interface Kind<F> {
  readonly magic: Magic;
  readonly arb: fc.Arbitrary<F>;
  readonly encode: (f: F) => Uint8Array;
  readonly read: (b: Uint8Array) => Result<Signed<F>>;
  readonly layout: (f: F) => Segment[];
  /** Sets the signer's key (to sign with a known secret). */
  readonly withSigner: (f: F, key: Uint8Array) => F;
  readonly sign: (
    f: F,
    secret: Uint8Array,
    options?: { backend?: typeof nodeBackend },
  ) => Uint8Array;
  readonly verify: (v: Signed<F>, backend?: typeof nodeBackend) => unknown;
}

const KINDS = [
  {
    magic: 'WSP1',
    arb: policyArb,
    encode: encodePolicy,
    read: readPolicy,
    layout: policyLayout,
    withSigner: (f, signer) => ({ ...f, signer }),
    sign: signPolicy,
    verify: verifyPolicySignature,
  } satisfies Kind<PolicyFields>,
  {
    magic: 'WSD1',
    arb: decisionArb,
    encode: encodeDecision,
    read: readDecision,
    layout: decisionLayout,
    withSigner: (f, signer) => ({ ...f, signer }),
    sign: signDecision,
    verify: verifyDecisionSignature,
  } satisfies Kind<DecisionFields>,
  {
    magic: 'WRD1',
    arb: roomArb,
    encode: encodeRoom,
    read: readRoom,
    layout: roomLayout,
    withSigner: (f, authority) => ({ ...f, authority }),
    sign: signRoom,
    verify: verifyRoomSignature,
  } satisfies Kind<RoomFields>,
  {
    magic: 'WKL1',
    arb: keyLogArb,
    encode: encodeKeyLog,
    read: readKeyLog,
    layout: keyLogLayout,
    withSigner: (f, origin) => ({ ...f, origin }),
    sign: signKeyLog,
    verify: verifyKeyLogSignature,
  } satisfies Kind<KeyLogFields>,
  {
    magic: 'WMH1',
    arb: hopArb,
    encode: encodeHopRecord,
    read: readHopRecord,
    layout: hopLayout,
    withSigner: (f, hop) => ({ ...f, hop }),
    sign: signHopRecord,
    verify: (v: Signed<HopRecordFields>, backend?: typeof nodeBackend) =>
      verifyHopRecord(v, v.room, backend),
  } satisfies Kind<HopRecordFields>,
] as const;

// ---------------------------------------------------------------------------------------------
// Checks

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Structural equality of records' fields: objects, arrays, bytes, bigints, numbers, strings. */
function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a instanceof Uint8Array || b instanceof Uint8Array) {
    return a instanceof Uint8Array && b instanceof Uint8Array && sameBytes(a, b);
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => deepEqual(x, b[i]));
  }
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  const ka = Object.keys(a).sort();
  const kb = Object.keys(b).sort();
  if (!deepEqual(ka, kb)) return false;
  return ka.every((k) =>
    deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]),
  );
}

function check(condition: boolean, message: string): asserts condition {
  if (!condition) throw new Error(message);
}

/**
 * What any read must give: `{ ok: true, value }`, or `{ ok: false, refusal }` with a typed
 * refusal of a known reason. A value must re-encode to exactly the bytes it was read from.
 */
function checkOutcome<F>(kind: Kind<F>, input: Uint8Array): Result<Signed<F>> {
  let r: Result<Signed<F>>;
  try {
    r = kind.read(input);
  } catch (e) {
    throw new Error(`${kind.magic}: the reader threw instead of refusing: ${String(e)}`);
  }
  const keys = Object.keys(r).sort().join();
  if (r.ok) {
    check(keys === 'ok,value', `${kind.magic}: a result of keys ${keys}`);
    const body = kind.encode(fieldsOf(r.value));
    check(
      sameBytes(withSig(body, r.value.sig), input),
      `${kind.magic}: a value that re-encodes otherwise`,
    );
    check(sameBytes(r.value.body, body), `${kind.magic}: a body that is not the bytes before sig`);
  } else {
    check(r.ok === false && keys === 'ok,refusal', `${kind.magic}: a result of keys ${keys}`);
    check(isRefusal(r.refusal), `${kind.magic}: a refusal that is not a Refusal`);
    check(REASON_SET.has(r.refusal.reason), `${kind.magic}: an unknown reason ${r.refusal.reason}`);
    check(r.refusal.where.magic === kind.magic, `${kind.magic}: a refusal placed in another kind`);
  }
  return r;
}

const REASON_SET: ReadonlySet<string> = new Set(REASONS);

function ascii(s: string): Uint8Array {
  return Uint8Array.from(s, (c) => c.charCodeAt(0));
}

// ---------------------------------------------------------------------------------------------
// Properties

/**
 * The mutation properties (c) start from a pool of valid records drawn once per kind from the
 * same arbitraries (generating a policy costs far more than reading one): the pool's seed is
 * FUZZ_SEED, or random and reported with any failure.
 */
const POOL_SEED = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
const POOL_SIZE = Math.max(50, Math.round(400 * Math.sqrt(SCALE)));

interface Pooled<F> {
  readonly fields: F;
  readonly bytes: Uint8Array;
  /** The layout, `sig` included. */
  readonly layout: Segment[];
}

function poolOf<F>(kind: Kind<F>): Pooled<F>[] {
  return fc
    .sample(fc.tuple(kind.arb, sig64), { numRuns: POOL_SIZE, seed: POOL_SEED })
    .map(([f, sig]) => ({
      fields: f,
      bytes: withSig(kind.encode(f), sig),
      layout: withSigSegment(kind.layout(f)),
    }));
}

/** `fc.assert`, naming the pool's seed when it fails. */
function assertPooled<Ts extends [unknown, ...unknown[]]>(
  property: fc.IProperty<Ts>,
  numRuns: number,
): void {
  try {
    fc.assert(property, { numRuns });
  } catch (e) {
    throw new Error(
      `${String((e as Error).message)}\n(pool: FUZZ_SEED=${POOL_SEED}, ${POOL_SIZE} records)`,
    );
  }
}

describe(`codec properties (${DEFAULT_TOTAL} cases by default; FUZZ_RUNS=${FUZZ_RUNS})`, () => {
  for (const kind of KINDS as unknown as readonly Kind<unknown>[]) {
    describe(kind.magic, () => {
      let poolCache: Pooled<unknown>[] | undefined;
      const pool = () => {
        poolCache ??= poolOf(kind);
        return poolCache;
      };
      const pooled = () => fc.nat({ max: POOL_SIZE - 1 }).map((i) => pool()[i]!);

      it(
        '(a) write then read is the identity on valid records; the bytes are the spec layout',
        () => {
          fc.assert(
            fc.property(kind.arb, sig64, (f, sig) => {
              const body = kind.encode(f);
              check(sameBytes(body, layoutBytes(kind.layout(f))), 'the bytes are not the layout');
              const bytes = withSig(body, sig);
              const r = kind.read(bytes);
              if (!r.ok) throw new Error(`a valid record was refused: ${r.refusal.message}`);
              check(deepEqual(fieldsOf(r.value), f), 'the fields read are not those written');
              check(sameBytes(r.value.sig, sig), 'the sig read is not the one written');
              check(sameBytes(kind.encode(fieldsOf(r.value)), body), 'it re-encodes otherwise');
            }),
            { numRuns: runs('roundTrip') },
          );
        },
        TIMEOUT,
      );

      it(
        '(a) signed valid records read and verify with both backends',
        () => {
          fc.assert(
            fc.property(kind.arb, (f0) => {
              const f = kind.withSigner(f0, KEYS.steer.public);
              const bytes = kind.sign(f, KEYS.steer.secret, { backend: nodeBackend });
              const r = kind.read(bytes);
              if (!r.ok) throw new Error(`a signed record was refused: ${r.refusal.message}`);
              check(deepEqual(fieldsOf(r.value), f), 'the fields read are not those signed');
              expect(kind.verify(r.value, nodeBackend)).toBeUndefined();
              expect(kind.verify(r.value)).toBeUndefined();
            }),
            { numRuns: runs('signed') },
          );
        },
        TIMEOUT,
      );

      it(
        '(b) arbitrary bytes give a value or a typed refusal',
        () => {
          fc.assert(
            fc.property(
              fc.oneof(fc.uint8Array({ maxLength: 8 }), fc.uint8Array({ maxLength: 600 })),
              (b) => {
                checkOutcome(kind, b);
              },
            ),
            { numRuns: runs('noise') },
          );
        },
        TIMEOUT,
      );

      it(
        '(b) arbitrary bytes behind the magic and version 1 give a value or a typed refusal',
        () => {
          const header = withSig(ascii(kind.magic), new Uint8Array([1]));
          fc.assert(
            fc.property(
              fc.oneof(
                fc.uint8Array({ maxLength: 300 }),
                fc.uint8Array({ maxLength: 3000 }),
                // Mostly small values: short lengths and counts, so the reader goes deeper.
                fc
                  .array(fc.integer({ min: 0, max: 3 }), { maxLength: 1500 })
                  .map((a) => Uint8Array.from(a)),
              ),
              (b) => {
                const r = checkOutcome(kind, withSig(header, b));
                // Behind a good header, the header is never what is refused.
                if (!r.ok) {
                  check(r.refusal.reason !== 'unknown_version', 'unknown_version behind version 1');
                  check(r.refusal.where.field !== 'magic', 'a good magic refused');
                }
              },
            ),
            { numRuns: runs('noise') },
          );
        },
        TIMEOUT,
      );

      it(
        '(c) a valid record cut short is truncated at the field the cut falls in',
        () => {
          assertPooled(
            fc.property(pooled(), fc.nat(), (rec, at) => {
              const cut = at % rec.bytes.length;
              const r = checkOutcome(kind, rec.bytes.subarray(0, cut));
              const field = cutAt(rec.layout, cut);
              if (r.ok) throw new Error('a cut record read');
              check(r.refusal.reason === 'truncated', `${r.refusal.reason}, not truncated`);
              check(
                r.refusal.where.field === field.name,
                `at ${r.refusal.where.field}, not ${field.name}`,
              );
              check(
                r.refusal.where.offset === field.offset,
                `at ${r.refusal.where.offset}, not ${field.offset}`,
              );
            }),
            runs('cut'),
          );
        },
        TIMEOUT,
      );

      it(
        '(c) a valid record extended is malformed at the end of sig',
        () => {
          assertPooled(
            fc.property(pooled(), fc.uint8Array({ minLength: 1, maxLength: 100 }), (rec, extra) => {
              const r = checkOutcome(kind, withSig(rec.bytes, extra));
              if (r.ok) throw new Error('an extended record read');
              check(r.refusal.reason === 'malformed', `${r.refusal.reason}, not malformed`);
              check(r.refusal.where.field === 'sig', `at ${r.refusal.where.field}, not sig`);
              check(r.refusal.where.offset === rec.bytes.length, 'not at the end of sig');
            }),
            runs('extend'),
          );
        },
        TIMEOUT,
      );

      it(
        '(c) a valid record with one byte changed gives a value or a typed refusal',
        () => {
          assertPooled(
            fc.property(pooled(), fc.nat(), u8, (rec, at, v) => {
              const bytes = rec.bytes;
              const i = at % bytes.length;
              const mutated = bytes.slice();
              mutated[i] = v === bytes[i] ? v ^ 0xff : v;
              const r = checkOutcome(kind, mutated);
              const outcome = r.ok ? 'ok' : r.refusal.reason;
              // A changed byte of sig changes nothing a reader checks.
              if (i >= bytes.length - 64) check(outcome === 'ok', `${outcome} for a changed sig`);
              // A changed magic or version is refused as C1 says.
              if (i < 4) check(outcome === 'malformed', `${outcome} for a changed magic`);
              if (i === 4) check(outcome === 'unknown_version', `${outcome} for a changed version`);
            }),
            runs('mutate'),
          );
        },
        TIMEOUT,
      );

      it(
        '(c) a valid record with bytes inserted or deleted gives a value or a typed refusal',
        () => {
          assertPooled(
            fc.property(
              pooled(),
              fc.nat(),
              fc.nat({ max: 40 }),
              fc.uint8Array({ maxLength: 40 }),
              (rec, at, remove, insert) => {
                const bytes = rec.bytes;
                const i = at % bytes.length;
                const cut = Math.min(remove, bytes.length - i);
                const out = new Uint8Array(bytes.length - cut + insert.length);
                out.set(bytes.subarray(0, i));
                out.set(insert, i);
                out.set(bytes.subarray(i + cut), i + insert.length);
                checkOutcome(kind, out);
              },
            ),
            runs('splice'),
          );
        },
        TIMEOUT,
      );
    });
  }
});

describe('readDecision after a previous decision', () => {
  /** The outcome of a read, comparable: the fields and sig, or the refusal's reason and place. */
  const outcome = (r: ReturnType<typeof readDecision>) =>
    r.ok
      ? { ok: true, fields: r.value }
      : { ok: false, reason: r.refusal.reason, where: r.refusal.where, message: r.refusal.message };

  it('reads what it reads without, whatever the bytes after the previous one', () => {
    fc.assert(
      fc.property(
        decisionArb,
        sig64,
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 1, max: 255 })), { maxLength: 3 }),
        fc.nat(),
        fc.integer({ min: 0, max: 4 }),
        (f, sig, flips, cut, load) => {
          const first = withSig(encodeDecision(f), sig);
          const previous = readDecision(first);
          if (!previous.ok)
            throw new Error(`a valid decision was refused: ${previous.refusal.message}`);
          // The next decision of the window: other loads and limits, the same evidence; then
          // bytes changed anywhere, or cut short.
          const next = encodeDecision({
            ...f,
            pathways: f.pathways.map((p) => ({
              ...p,
              load: (p.load ^ load) >>> 0,
              limits: (p.limits + load) & 7,
            })),
          });
          let bytes = withSig(next, sig);
          for (const [at, x] of flips) bytes[at % bytes.length]! ^= x;
          if (cut % 5 === 0) bytes = bytes.slice(0, cut % (bytes.length + 1));
          // After it at once (it is the decision read last), then alone.
          const after = readDecision(bytes, { previous: previous.value });
          const alone = readDecision(bytes);
          expect(deepEqual(outcome(after), outcome(alone))).toBe(true);
        },
      ),
      { numRuns: runs('noise') },
    );
  });

  it('takes nothing from a decision it did not read', () => {
    const f = fc.sample(
      decisionArb.filter((d) => d.pathways.length > 0),
      { seed: 7, numRuns: 1 },
    )[0]!;
    const bytes = withSig(encodeDecision(f), new Uint8Array(64));
    const forged = { ...(readDecision(bytes) as { ok: true; value: Decision }).value };
    (forged as { pathways: unknown }).pathways = f.pathways.map((p) => ({ ...p, joules: 1n }));
    const after = readDecision(bytes, { previous: forged });
    expect(after.ok && deepEqual(after.value.pathways, f.pathways)).toBe(true);
  });
});

describe('a reader never allocates beyond its input', () => {
  // No duration is asserted: allocating what the claims say would run past the test's timeout.
  it('claims of the largest counts over a few hundred bytes are refused quickly', () => {
    // Each kind's header, then 0xff: every count and length at its largest.
    for (const kind of KINDS as unknown as readonly Kind<unknown>[]) {
      const b = new Uint8Array(300).fill(0xff);
      b.set(ascii(kind.magic));
      b[4] = 1;
      for (let i = 0; i < 2000; i++) {
        const r = checkOutcome(kind, b);
        expect(r.ok ? 'ok' : r.refusal.reason).toBe('truncated');
      }
    }
  });
});
