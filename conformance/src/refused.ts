/**
 * The refused vectors: each the control of one defect relative to a valid base vector (signed
 * again where the defect needs it, so that only that defect fires), with its reason and place
 * stated by hand (companion C7, C9).
 *
 * The base of most is `accept/one-class-three-pathways`: pathways alpha (0), bravo (1) and
 * charlie (2), each with an edge hop and an interior hop, each naming six records: the edge
 * hop's for the periods k = −3, −2, −1 (places 0 to 2), then the interior hop's (places 3 to 5).
 */
import type { EvidenceRecord } from '@wai-steering/evidence';
import type { Place, Reason } from '@wai-steering/wire';
import {
  encodeHopRecord,
  encodePolicy,
  encodeRoom,
  type HopRecordFields,
  type KeyLogEntry,
  type KeyLogFields,
  nobleBackend,
  type PolicyFields,
  STATUS,
  toHex,
} from '@wai-steering/wire';
import { ED25519_L } from '@wai-steering/wire/internal';
import {
  BAND_UNMETERED,
  BEFORE_FIRST_WINDOW,
  BEYOND_U128,
  CLONES,
  HOLD,
  HUGE,
  ONE_CLASS,
  PER_SECOND,
  SOLO_ROOM,
  STALE,
  TWO_CLASSES,
  UNMETERED,
} from './accepted.js';
import { IDENTITY_POINT, type KeyPair, keyOf } from './keys.js';
import {
  type Built,
  concat,
  type Env,
  flip,
  hexBytes,
  keyLogOf,
  namedAt,
  ORIGIN,
  ORIGIN_ROOM_FIELDS,
  P,
  type Parts,
  partsOf,
  patch,
  recordOf,
  redecide,
  renaming,
  renamingAll,
  restating,
  roomOf,
  type Scenario,
  SOLO,
  seal,
} from './world.js';

export interface Where {
  readonly at: Place;
  readonly pathway?: number;
  readonly record?: number;
}

/** What a refused vector is built from. */
export interface Context {
  /** The room a scenario is built in: the room with an origin and a head listing its hops, or the room without origin. */
  env(s: Scenario): Env;
  readonly solo: Env;
  /** A scenario built in its own room (memoised). */
  built(s: Scenario): Built;
  /** A scenario built in another room (the room's bytes changed, so its id). */
  builtIn(s: Scenario, env: Env): Built;
}

export interface RefusedCase {
  readonly name: string;
  readonly note: string;
  readonly reason: Reason;
  readonly where: Where;
  readonly make: (ctx: Context) => Parts;
}

const room: Where = { at: 'room' };
const policy: Where = { at: 'policy' };
const decision: Where = { at: 'decision' };
const output: Where = { at: 'output' };
const manifest: Where = { at: 'manifest' };
const evidence = (pathway: number, record: number): Where => ({ at: 'evidence', pathway, record });
const pathwayAt = (pathway: number): Where => ({ at: 'pathway', pathway });

const NO_SECRET = (pub: Uint8Array) => ({ pub, secret: null }) as const;

// ---- helpers ------------------------------------------------------------------------------

/** The base decision with other parts given. */
function base(ctx: Context, over: Partial<Parts> = {}): Parts {
  return { ...partsOf(ctx.built(ONE_CLASS)), ...over };
}

/** The base scenario built in the origin room with other room bytes. */
function inRoom(ctx: Context, roomBytes: Uint8Array): Parts {
  const env: Env = { ...ctx.env(ONE_CLASS), room: roomBytes, roomId: digestOfRoom(roomBytes) };
  return partsOf(ctx.builtIn(ONE_CLASS, env));
}

function digestOfRoom(bytes: Uint8Array): Uint8Array {
  // The body is everything but the last 64 bytes for every room variant built here.
  return sha(bytes.subarray(0, bytes.length - 64));
}

const sha = (b: Uint8Array): Uint8Array => nobleBackend.sha256(b);

/** The base with another key log head. */
function withHead(ctx: Context, fields: KeyLogFields, secret: Uint8Array | null): Parts {
  return base(ctx, { keyLog: keyLogOf(fields, secret) });
}

function headFields(ctx: Context, s: Scenario = ONE_CLASS): KeyLogFields {
  return ctx.env(s).keyLogFields!;
}

function entriesWith(
  ctx: Context,
  key: Uint8Array,
  edit: (e: KeyLogEntry) => KeyLogEntry | null,
  s: Scenario = ONE_CLASS,
): KeyLogEntry[] {
  const out: KeyLogEntry[] = [];
  for (const e of headFields(ctx, s).entries) {
    if (toHex(e.key) === toHex(key)) {
      const edited = edit(e);
      if (edited !== null) out.push(edited);
    } else {
      out.push(e);
    }
  }
  return out;
}

/** The base decision, made under a policy with `edit` applied, signed by `signer`. */
function policyVariant(
  b: Built,
  edit: (p: PolicyFields) => PolicyFields,
  signer: KeyPair | { pub: Uint8Array; secret: null } = b.policySigner,
  body: (bytes: Uint8Array) => Uint8Array = (x) => x,
): Parts {
  const fields = { ...edit(b.policyFields), signer: signer.pub };
  const bytes = seal('WSP1', body(encodePolicy(fields)), signer.secret);
  return redecide(b, { policy: { bytes } });
}

/** The base decision naming, at (pathway i, place j), a record edited from the one named there. */
function recordVariant(
  b: Built,
  i: number,
  j: number,
  edit: (f: HopRecordFields) => HopRecordFields,
  o: { key?: KeyPair | null; body?: (body: Uint8Array) => Uint8Array } = {},
): Parts {
  const named = namedAt(b, i, j);
  const fields = edit(named.fields);
  const bodyBytes = (o.body ?? ((x) => x))(encodeHopRecord(fields));
  const secret = o.key === null ? null : (o.key ?? named.key).secret;
  const blob = seal('WMH1', bodyBytes, secret);
  return redecide(b, { evidence: renaming(i, j, blob, fields), blobs: [blob] });
}

/** The given records with the blob named at (i, j) replaced by `blob` (no renaming). */
function givenWith(b: Built, i: number, j: number, blob: Uint8Array | null): Parts {
  const named = namedAt(b, i, j).blob;
  const parts = partsOf(b);
  const records = parts.records.flatMap((r) => (r === named ? (blob === null ? [] : [blob]) : [r]));
  return { ...parts, records };
}

/** A record's bytes with its signature's S replaced by S + L (still below 2^256). */
function withUnreducedS(bytes: Uint8Array): Uint8Array {
  const at = bytes.length - 32;
  let n = 0n;
  for (let i = 31; i >= 0; i--) n = (n << 8n) | BigInt(bytes[at + i]!);
  n += ED25519_L; // L, the order of the base point (companion C2 step 4)
  const out = bytes.slice();
  for (let i = 0; i < 32; i++) {
    out[at + i] = Number(n & 0xffn);
    n >>= 8n;
  }
  if (n !== 0n) throw new Error('S + L does not fit 32 bytes');
  return out;
}

/**
 * A public key encoded with y ≥ p: y0 + p for the least y0 ≥ 2 whose canonical encoding is a
 * point of large order (a signature check by it gets past C2 steps 1 and 2).
 */
export function nonCanonicalKey(): Uint8Array {
  const P25519 = (1n << 255n) - 19n;
  const enc = (y: bigint): Uint8Array => {
    const out = new Uint8Array(32);
    for (let i = 0; i < 32; i++) {
      out[i] = Number(y & 0xffn);
      y >>= 8n;
    }
    return out;
  };
  const message = new Uint8Array(1);
  const sig = new Uint8Array(64);
  for (let y0 = 2n; y0 < 19n; y0++) {
    if (nobleBackend.verify(enc(y0), message, sig) === 'bad_signature') return enc(y0 + P25519);
  }
  throw new Error('no y0 below 19 gives a point of large order');
}

const sigOffset = (bytes: Uint8Array): number => bytes.length - 64;

// ---- the cases ----------------------------------------------------------------------------

export const REFUSED: readonly RefusedCase[] = [
  // ==== §9.1 step 1, C6: the room ====
  {
    name: 'refuse/room/truncated-3-bytes',
    note: 'A descriptor of 3 bytes: truncated, whatever they hold (C9).',
    reason: 'truncated',
    where: room,
    make: (ctx) => base(ctx, { room: new TextEncoder().encode('WRD') }),
  },
  {
    name: 'refuse/room/truncated',
    note: 'The descriptor cut inside its origin.',
    reason: 'truncated',
    where: room,
    make: (ctx) => base(ctx, { room: ctx.env(ONE_CLASS).room.slice(0, 50) }),
  },
  {
    name: 'refuse/room/malformed-magic',
    note: "A descriptor whose magic is a key log's.",
    reason: 'malformed',
    where: room,
    make: (ctx) =>
      base(ctx, {
        room: concat(new TextEncoder().encode('WKL1'), ctx.env(ONE_CLASS).room.slice(4)),
      }),
  },
  {
    name: 'refuse/room/malformed-trailing-byte',
    note: 'One byte after the signature.',
    reason: 'malformed',
    where: room,
    make: (ctx) => base(ctx, { room: concat(ctx.env(ONE_CLASS).room, new Uint8Array([0])) }),
  },
  {
    name: 'refuse/room/unknown-version',
    note: 'Version 2, signed by the authority; everything else made for that room id.',
    reason: 'unknown_version',
    where: room,
    make: (ctx) =>
      inRoom(
        ctx,
        seal('WRD1', patch(encodeRoom(ORIGIN_ROOM_FIELDS), 4, 2), ORIGIN.authority.secret),
      ),
  },
  {
    name: 'refuse/room/invalid-name',
    note: 'An empty name, signed by the authority; everything else made for that room id.',
    reason: 'room_invalid',
    where: room,
    make: (ctx) =>
      inRoom(ctx, roomOf({ ...ORIGIN_ROOM_FIELDS, name: '' }, ORIGIN.authority.secret)),
  },
  {
    name: 'refuse/room/invalid-name-control-character',
    note: 'A name with DEL (0x7F), not printable.',
    reason: 'room_invalid',
    where: room,
    make: (ctx) =>
      inRoom(
        ctx,
        roomOf(
          { ...ORIGIN_ROOM_FIELDS, name: 'WAI conformance room\u007f' },
          ORIGIN.authority.secret,
        ),
      ),
  },
  {
    name: 'refuse/room/bad-key-authority',
    note: 'The authority is the identity point (0x01 then 31 zero bytes), of small order.',
    reason: 'bad_key',
    where: room,
    make: (ctx) => inRoom(ctx, roomOf({ ...ORIGIN_ROOM_FIELDS, authority: IDENTITY_POINT }, null)),
  },
  {
    name: 'refuse/room/invalid-name-65-bytes',
    note: 'A name of 65 bytes (at most 64).',
    reason: 'room_invalid',
    where: room,
    make: (ctx) =>
      inRoom(ctx, roomOf({ ...ORIGIN_ROOM_FIELDS, name: 'n'.repeat(65) }, ORIGIN.authority.secret)),
  },
  {
    name: 'refuse/room/bad-signature',
    note: "One bit of the descriptor's signature flipped.",
    reason: 'bad_signature',
    where: room,
    make: (ctx) =>
      base(ctx, { room: flip(ctx.env(ONE_CLASS).room, sigOffset(ctx.env(ONE_CLASS).room) + 40) }),
  },
  {
    name: 'refuse/room/key-log-missing',
    note: 'The room names an origin and no head is given.',
    reason: 'key_log_missing',
    where: room,
    make: (ctx) => base(ctx, { keyLog: null }),
  },
  {
    name: 'refuse/room/key-log-truncated',
    note: 'The head cut inside its entries.',
    reason: 'truncated',
    where: room,
    make: (ctx) => base(ctx, { keyLog: ctx.env(ONE_CLASS).keyLog!.slice(0, 120) }),
  },
  {
    name: 'refuse/room/key-log-malformed',
    note: "A head whose magic is a policy's.",
    reason: 'malformed',
    where: room,
    make: (ctx) =>
      base(ctx, {
        keyLog: concat(new TextEncoder().encode('WSP1'), ctx.env(ONE_CLASS).keyLog!.slice(4)),
      }),
  },
  {
    name: 'refuse/room/key-log-unknown-version',
    note: 'A head of version 2, signed by the origin.',
    reason: 'unknown_version',
    where: room,
    make: (ctx) => {
      const body = keyLogOf(headFields(ctx), null);
      return base(ctx, {
        keyLog: seal('WKL1', patch(body.subarray(0, body.length - 64), 4, 2), ORIGIN.origin.secret),
      });
    },
  },
  {
    name: 'refuse/room/key-log-invalid-order',
    note: 'Entries not in ascending order of key (reversed), signed by the origin.',
    reason: 'key_log_invalid',
    where: room,
    make: (ctx) =>
      withHead(
        ctx,
        { ...headFields(ctx), entries: headFields(ctx).entries.slice().reverse() },
        ORIGIN.origin.secret,
      ),
  },
  {
    name: 'refuse/room/key-log-invalid-prev',
    note: 'seq 0 with a previous head named.',
    reason: 'key_log_invalid',
    where: room,
    make: (ctx) => withHead(ctx, { ...headFields(ctx), seq: 0n }, ORIGIN.origin.secret),
  },
  {
    name: 'refuse/room/key-log-invalid-status',
    note: 'An entry of status 3.',
    reason: 'key_log_invalid',
    where: room,
    make: (ctx) =>
      withHead(
        ctx,
        {
          ...headFields(ctx),
          entries: entriesWith(ctx, ORIGIN.steer.pub, (e) => ({ ...e, status: 3 })),
        },
        ORIGIN.origin.secret,
      ),
  },
  {
    name: 'refuse/room/key-log-invalid-may-sign-order',
    note: "The steering key's authorities not in ascending order.",
    reason: 'key_log_invalid',
    where: room,
    make: (ctx) =>
      withHead(
        ctx,
        {
          ...headFields(ctx),
          entries: entriesWith(ctx, ORIGIN.steer.pub, (e) => ({
            ...e,
            may_sign: e.may_sign.slice().reverse(),
          })),
        },
        ORIGIN.origin.secret,
      ),
  },
  {
    name: 'refuse/room/key-log-bad-key',
    note: "The head's origin is the identity point: its signature is checked with its own origin first (C9).",
    reason: 'bad_key',
    where: room,
    make: (ctx) => withHead(ctx, { ...headFields(ctx), origin: IDENTITY_POINT }, null),
  },
  {
    name: 'refuse/room/key-log-bad-signature',
    note: "One bit of the head's signature flipped.",
    reason: 'bad_signature',
    where: room,
    make: (ctx) =>
      base(ctx, {
        keyLog: flip(ctx.env(ONE_CLASS).keyLog!, sigOffset(ctx.env(ONE_CLASS).keyLog!) + 40),
      }),
  },
  {
    name: 'refuse/room/key-log-mismatch',
    note: 'A head, well signed, of another origin.',
    reason: 'key_log_mismatch',
    where: room,
    make: (ctx) =>
      withHead(
        ctx,
        { ...headFields(ctx), origin: ORIGIN.otherOrigin.pub },
        ORIGIN.otherOrigin.secret,
      ),
  },
  {
    name: 'refuse/room/authority-not-listed',
    note: 'The head does not list the authority.',
    reason: 'authority_not_listed',
    where: room,
    make: (ctx) =>
      withHead(
        ctx,
        { ...headFields(ctx), entries: entriesWith(ctx, ORIGIN.authority.pub, () => null) },
        ORIGIN.origin.secret,
      ),
  },
  {
    name: 'refuse/room/authority-revoked-without-live-room',
    note: 'The authority listed revoked and without live/room: not listed (C9), not revoked.',
    reason: 'authority_not_listed',
    where: room,
    make: (ctx) =>
      withHead(
        ctx,
        {
          ...headFields(ctx),
          entries: entriesWith(ctx, ORIGIN.authority.pub, (e) => ({
            ...e,
            status: 2,
            may_sign: e.may_sign.filter((m) => m !== 'live/room'),
          })),
        },
        ORIGIN.origin.secret,
      ),
  },
  {
    name: 'refuse/room/authority-revoked',
    note: 'The authority listed with live/room, revoked.',
    reason: 'authority_revoked',
    where: room,
    make: (ctx) =>
      withHead(
        ctx,
        {
          ...headFields(ctx),
          entries: entriesWith(ctx, ORIGIN.authority.pub, (e) => ({ ...e, status: 2 })),
        },
        ORIGIN.origin.secret,
      ),
  },

  // ==== §9.1 step 2: the policy ====
  {
    name: 'refuse/policy/truncated',
    note: 'The policy cut inside its signature.',
    reason: 'truncated',
    where: policy,
    make: (ctx) => {
      const b = ctx.built(ONE_CLASS);
      return base(ctx, { policy: b.policy.slice(0, b.policy.length - 1) });
    },
  },
  {
    name: 'refuse/policy/truncated-count',
    note: 'A policy whose pathway count declares more pathways than its bytes hold.',
    reason: 'truncated',
    where: policy,
    make: (ctx) => {
      const b = ctx.built(ONE_CLASS);
      // The pathway count follows the three URIs.
      const p = b.policyFields;
      const at =
        4 +
        1 +
        32 +
        32 +
        24 +
        2 +
        20 +
        2 +
        1 +
        8 * p.tiers.length +
        6 +
        p.server_uri.length +
        p.reload_uri.length +
        p.decision_uri.length;
      if (b.policy[at] !== p.pathways.length)
        throw new Error('the pathway count is not where expected');
      return policyVariant(
        b,
        (x) => x,
        b.policySigner,
        (body) => patch(body, at, 200),
      );
    },
  },
  {
    name: 'refuse/policy/malformed-trailing-byte',
    note: 'One byte after the signature.',
    reason: 'malformed',
    where: policy,
    make: (ctx) => base(ctx, { policy: concat(ctx.built(ONE_CLASS).policy, new Uint8Array([0])) }),
  },
  {
    name: 'refuse/policy/malformed-magic',
    note: "A policy under a decision's magic, signed; the decision names it.",
    reason: 'malformed',
    where: policy,
    make: (ctx) => {
      const b = ctx.built(ONE_CLASS);
      return policyVariant(
        b,
        (x) => x,
        b.policySigner,
        (body) => concat(new TextEncoder().encode('WSD1'), body.slice(4)),
      );
    },
  },
  {
    name: 'refuse/policy/unknown-version',
    note: 'Version 2, signed; the decision names it.',
    reason: 'unknown_version',
    where: policy,
    make: (ctx) => {
      const b = ctx.built(ONE_CLASS);
      return policyVariant(
        b,
        (x) => x,
        b.policySigner,
        (body) => patch(body, 4, 2),
      );
    },
  },
  {
    name: 'refuse/policy/invalid-hysteresis',
    note: 'hysteresis_ppm 1 000 001, signed; the decision names it.',
    reason: 'policy_invalid',
    where: policy,
    make: (ctx) =>
      policyVariant(ctx.built(ONE_CLASS), (p) => ({ ...p, hysteresis_ppm: 1_000_001 })),
  },
  {
    name: 'refuse/policy/invalid-window',
    note: 'window_us 25 s, not a multiple of the 10 s period.',
    reason: 'policy_invalid',
    where: policy,
    make: (ctx) => policyVariant(ctx.built(ONE_CLASS), (p) => ({ ...p, window_us: 25_000_000n })),
  },
  {
    name: 'refuse/policy/invalid-hop-in-two-pathways',
    note: "charlie's interior hop is alpha's: a hop belongs to one pathway.",
    reason: 'policy_invalid',
    where: policy,
    make: (ctx) =>
      policyVariant(ctx.built(ONE_CLASS), (p) => ({
        ...p,
        pathways: p.pathways.map((pw, i) =>
          i === 2
            ? { ...pw, hops: [pw.hops[0]!, { key: p.pathways[0]!.hops[1]!.key, place: 2 }] }
            : pw,
        ),
      })),
  },
  {
    name: 'refuse/policy/invalid-uri-fragment',
    note: 'A decision_uri with "#".',
    reason: 'policy_invalid',
    where: policy,
    make: (ctx) =>
      policyVariant(ctx.built(ONE_CLASS), (p) => ({
        ...p,
        decision_uri: 'https://steer.example.com/v1/decisions#',
      })),
  },
  {
    name: 'refuse/policy/invalid-pathway-id',
    note: 'A pathway ID with a character outside A–Z a–z 0–9 . - _.',
    reason: 'policy_invalid',
    where: policy,
    make: (ctx) =>
      policyVariant(ctx.built(ONE_CLASS), (p) => ({
        ...p,
        pathways: p.pathways.map((pw, i) => (i === 1 ? { ...pw, id: 'bravo!' } : pw)),
      })),
  },
  {
    name: 'refuse/policy/invalid-uri-percent',
    note: 'A reload_uri with a "%" not followed by two hexadecimal digits.',
    reason: 'policy_invalid',
    where: policy,
    make: (ctx) =>
      policyVariant(ctx.built(ONE_CLASS), (p) => ({
        ...p,
        reload_uri: 'https://steer.example.com/v1/steer?room=conf%zz',
      })),
  },
  {
    name: 'refuse/policy/invalid-hop-twice-in-one-pathway',
    note: "alpha's edge hop placed again as its interior hop (C9).",
    reason: 'policy_invalid',
    where: policy,
    make: (ctx) =>
      policyVariant(ctx.built(ONE_CLASS), (p) => ({
        ...p,
        pathways: p.pathways.map((pw, i) =>
          i === 0 ? { ...pw, hops: [pw.hops[0]!, { key: pw.hops[0]!.key, place: 2 }] } : pw,
        ),
      })),
  },
  {
    name: 'refuse/policy/invalid-shares-overflow',
    note: 'min_share_ppm 4294967295 and 2: their sum, computed without overflow, is above 1 000 000 (a u32 sum would wrap to 1).',
    reason: 'policy_invalid',
    where: policy,
    make: (ctx) =>
      policyVariant(ctx.built(ONE_CLASS), (p) => ({
        ...p,
        pathways: p.pathways.map((pw, i) =>
          i < 2 ? { ...pw, min_share_ppm: i === 0 ? 0xffff_ffff : 2 } : pw,
        ),
      })),
  },
  {
    name: 'refuse/policy/invalid-tiers-not-ascending',
    note: 'Tier bitrates 500 000, 1 500 000, 1 500 000, 8 000 000: not strictly ascending.',
    reason: 'policy_invalid',
    where: policy,
    make: (ctx) =>
      policyVariant(ctx.built(ONE_CLASS), (p) => ({
        ...p,
        tiers: [500_000n, 1_500_000n, 1_500_000n, 8_000_000n],
      })),
  },
  {
    name: 'refuse/policy/invalid-flags',
    note: 'flags 2: a bit other than bit 0.',
    reason: 'policy_invalid',
    where: policy,
    make: (ctx) => policyVariant(ctx.built(ONE_CLASS), (p) => ({ ...p, flags: 2 })),
  },
  {
    name: 'refuse/policy/invalid-initial-clone',
    note: 'In the clones scenario, initial names the clone alpha-eu.',
    reason: 'policy_invalid',
    where: policy,
    make: (ctx) => policyVariant(ctx.built(CLONES), (p) => ({ ...p, initial: 2 })),
  },
  {
    name: 'refuse/policy/clone-unknown-later-base',
    note: 'bravo made a clone of charlie, a pathway after it.',
    reason: 'clone_unknown',
    where: policy,
    make: (ctx) =>
      policyVariant(ctx.built(ONE_CLASS), (p) => ({
        ...p,
        pathways: p.pathways.map((pw, i) =>
          i === 1 ? { ...pw, base: 2, host: 'b.cdn.example.com' } : pw,
        ),
      })),
  },
  {
    name: 'refuse/policy/clone-unknown-itself',
    note: 'charlie made a clone of itself.',
    reason: 'clone_unknown',
    where: policy,
    make: (ctx) =>
      policyVariant(ctx.built(ONE_CLASS), (p) => ({
        ...p,
        pathways: p.pathways.map((pw, i) => (i === 2 ? { ...pw, base: 2 } : pw)),
      })),
  },
  {
    name: 'refuse/policy/wrong-room',
    note: "A policy, well signed, for the room without origin's id.",
    reason: 'wrong_room',
    where: policy,
    make: (ctx) => policyVariant(ctx.built(ONE_CLASS), (p) => ({ ...p, room: ctx.solo.roomId })),
  },
  {
    name: 'refuse/policy/bad-key',
    note: "The policy's signer is the identity point.",
    reason: 'bad_key',
    where: policy,
    make: (ctx) => policyVariant(ctx.built(ONE_CLASS), (p) => p, NO_SECRET(IDENTITY_POINT)),
  },
  {
    name: 'refuse/policy/bad-signature',
    note: "One bit of the policy's signature flipped (its digest is unchanged).",
    reason: 'bad_signature',
    where: policy,
    make: (ctx) => {
      const b = ctx.built(ONE_CLASS);
      return base(ctx, { policy: flip(b.policy, sigOffset(b.policy) + 40) });
    },
  },
  {
    name: 'refuse/policy/bad-key-non-canonical',
    note: 'The signer is a point of large order encoded with y ≥ p (companion C2 step 1): bad_key, not bad_signature.',
    reason: 'bad_key',
    where: policy,
    make: (ctx) => policyVariant(ctx.built(ONE_CLASS), (p) => p, NO_SECRET(nonCanonicalKey())),
  },
  {
    name: 'refuse/policy/signer-unlisted',
    note: 'Signed by a key the head does not list.',
    reason: 'signer_not_authorised',
    where: policy,
    make: (ctx) => policyVariant(ctx.built(ONE_CLASS), (p) => p, ORIGIN.unlisted),
  },
  {
    name: 'refuse/policy/signer-without-live-steer',
    note: 'Signed by a hop key: listed, but not the authority and without live/steer.',
    reason: 'signer_not_authorised',
    where: policy,
    make: (ctx) => policyVariant(ctx.built(ONE_CLASS), (p) => p, keyOf('three/alpha/edge')),
  },
  {
    name: 'refuse/policy/signer-revoked',
    note: 'Signed by a steering key whose entry is revoked.',
    reason: 'signer_revoked',
    where: policy,
    make: (ctx) => policyVariant(ctx.built(ONE_CLASS), (p) => p, ORIGIN.steerRevoked),
  },
  {
    name: 'refuse/policy/signer-revoked-without-live-steer',
    note: 'Signed by a revoked hop key (no live/steer): revoked, whatever its may_sign (C9).',
    reason: 'signer_revoked',
    where: policy,
    make: (ctx) => policyVariant(ctx.built(ONE_CLASS), (p) => p, ORIGIN.revokedHop),
  },
  {
    name: 'refuse/policy/room-without-origin-signer-not-authority',
    note: 'A room without origin: only its authority signs, and the policy is signed by another key.',
    reason: 'signer_not_authorised',
    where: policy,
    make: (ctx) => policyVariant(ctx.built(SOLO_ROOM), (p) => p, SOLO.other),
  },

  // ==== §9.1 step 3: the decision ====
  {
    name: 'refuse/decision/truncated',
    note: 'The decision cut inside its signature.',
    reason: 'truncated',
    where: decision,
    make: (ctx) => {
      const b = ctx.built(ONE_CLASS);
      return base(ctx, { decision: b.decision.slice(0, b.decision.length - 1) });
    },
  },
  {
    name: 'refuse/decision/malformed-trailing-byte',
    note: 'One byte after the signature.',
    reason: 'malformed',
    where: decision,
    make: (ctx) =>
      base(ctx, { decision: concat(ctx.built(ONE_CLASS).decision, new Uint8Array([0])) }),
  },
  {
    name: 'refuse/decision/unknown-version',
    note: 'Version 2, signed.',
    reason: 'unknown_version',
    where: decision,
    make: (ctx) => redecide(ctx.built(ONE_CLASS), { body: (body) => patch(body, 4, 2) }),
  },
  {
    name: 'refuse/decision/invalid-priority',
    note: 'A priority naming bravo twice and charlie never.',
    reason: 'decision_invalid',
    where: decision,
    make: (ctx) =>
      redecide(ctx.built(ONE_CLASS), { fields: (f) => ({ ...f, priority: [1, 1, 0] }) }),
  },
  {
    name: 'refuse/decision/invalid-draw',
    note: 'A draw of 1 000 000.',
    reason: 'decision_invalid',
    where: decision,
    make: (ctx) => redecide(ctx.built(ONE_CLASS), { fields: (f) => ({ ...f, draw: 1_000_000 }) }),
  },
  {
    name: 'refuse/decision/invalid-figure-without-joules',
    note: 'A pathway stated with a figure of 0 joules.',
    reason: 'decision_invalid',
    where: decision,
    make: (ctx) =>
      redecide(ctx.built(ONE_CLASS), {
        fields: (f) => ({
          ...f,
          pathways: f.pathways.map((p, i) => (i === 0 ? { ...p, joules: 0n } : p)),
        }),
      }),
  },
  {
    name: 'refuse/decision/invalid-digest-named-twice',
    note: "charlie names alpha's first record again: no digest twice in a decision, across pathways too (C9).",
    reason: 'decision_invalid',
    where: decision,
    make: (ctx) => {
      const b = ctx.built(ONE_CLASS);
      const alpha0 = b.evidence.pathways[0]!.named[0]!;
      return redecide(b, { evidence: renamingAll(2, (n) => [alpha0, ...n.slice(1)]) });
    },
  },
  {
    name: 'refuse/decision/invalid-absent-value-not-zero',
    note: 'The report states no current pathway but its pathway byte is 2.',
    reason: 'decision_invalid',
    where: decision,
    make: (ctx) =>
      redecide(ctx.built(ONE_CLASS), {
        fields: (f) => ({ ...f, report: { ...f.report, pathway: 2 } }),
      }),
  },
  {
    name: 'refuse/decision/invalid-report-pathway',
    note: 'The report states current pathway 3 of a decision of three pathways.',
    reason: 'decision_invalid',
    where: decision,
    make: (ctx) =>
      redecide(ctx.built(ONE_CLASS), {
        fields: (f) => ({
          ...f,
          report: { ...f.report, present: f.report.present | 1, pathway: 3 },
        }),
      }),
  },
  {
    name: 'refuse/decision/wrong-room',
    note: "A decision, well signed, for the room without origin's id.",
    reason: 'wrong_room',
    where: decision,
    make: (ctx) =>
      redecide(ctx.built(ONE_CLASS), { fields: (f) => ({ ...f, room: ctx.solo.roomId }) }),
  },
  {
    name: 'refuse/decision/policy-not-given',
    note: 'The decision names the digest of another policy (the same with ttl_s 600): record_missing at the decision.',
    reason: 'record_missing',
    where: decision,
    make: (ctx) => {
      const b = ctx.built(ONE_CLASS);
      const other = seal(
        'WSP1',
        encodePolicy({ ...b.policyFields, ttl_s: 600 }),
        b.policySigner.secret,
      );
      return { ...redecide(b, { policy: { bytes: other } }), policy: b.policy };
    },
  },
  {
    name: 'refuse/decision/invalid-pathway-count',
    note: "A decision of two pathways under the policy's three (its own rules hold).",
    reason: 'decision_invalid',
    where: decision,
    make: (ctx) =>
      redecide(ctx.built(ONE_CLASS), {
        fields: (f) => ({ ...f, pathways: f.pathways.slice(0, 2), priority: [1, 0] }),
      }),
  },
  {
    name: 'refuse/decision/bad-key',
    note: "The decision's signer is the identity point.",
    reason: 'bad_key',
    where: decision,
    make: (ctx) => redecide(ctx.built(ONE_CLASS), { signer: NO_SECRET(IDENTITY_POINT) }),
  },
  {
    name: 'refuse/decision/bad-signature',
    note: "One bit of the decision's signature flipped.",
    reason: 'bad_signature',
    where: decision,
    make: (ctx) => {
      const b = ctx.built(ONE_CLASS);
      return base(ctx, { decision: flip(b.decision, sigOffset(b.decision) + 40) });
    },
  },
  {
    name: 'refuse/decision/signature-s-not-reduced',
    note: "The decision's signature with S + L in place of S: the same point equation, but S is not below L (C2 step 4).",
    reason: 'bad_signature',
    where: decision,
    make: (ctx) => {
      const b = ctx.built(ONE_CLASS);
      return base(ctx, { decision: withUnreducedS(b.decision) });
    },
  },
  {
    name: 'refuse/decision/t-moved',
    note: 'The decision states t one period later, signed: its window is [T0 − 2P, T0 + P), and the first record it names is outside it.',
    reason: 'evidence_outside_window',
    where: evidence(0, 0),
    make: (ctx) => redecide(ctx.built(ONE_CLASS), { fields: (f) => ({ ...f, t: f.t + P }) }),
  },
  {
    name: 'refuse/decision/signer-without-energy-label',
    note: 'Signed by a steering key with live/steer and no energy/ label, for a decision stating OnChipCounter figures.',
    reason: 'signer_not_authorised',
    where: decision,
    make: (ctx) => redecide(ctx.built(ONE_CLASS), { signer: ORIGIN.steerNoEnergy }),
  },
  {
    name: 'refuse/decision/signer-unlisted',
    note: 'Signed by a key the head does not list.',
    reason: 'signer_not_authorised',
    where: decision,
    make: (ctx) => redecide(ctx.built(ONE_CLASS), { signer: ORIGIN.unlisted }),
  },
  {
    name: 'refuse/decision/signer-hop-key',
    note: 'Signed by a hop key: listed with energy/OnChipCounter, but without live/steer.',
    reason: 'signer_not_authorised',
    where: decision,
    make: (ctx) => redecide(ctx.built(ONE_CLASS), { signer: keyOf('three/alpha/edge') }),
  },
  {
    name: 'refuse/decision/signer-revoked',
    note: 'Signed by a steering key whose entry is revoked.',
    reason: 'signer_revoked',
    where: decision,
    make: (ctx) => redecide(ctx.built(ONE_CLASS), { signer: ORIGIN.steerRevoked }),
  },
  {
    name: 'refuse/decision/authority-without-energy-label',
    note: 'The per-second scenario, whose policy and decision the authority signs, under a head listing the authority with live/room alone: it needs energy/OnChipCounter to state the figures (C9).',
    reason: 'signer_not_authorised',
    where: decision,
    make: (ctx) => ({
      ...partsOf(ctx.built(PER_SECOND)),
      keyLog: keyLogOf(
        {
          ...headFields(ctx, PER_SECOND),
          entries: entriesWith(
            ctx,
            ORIGIN.authority.pub,
            (e) => ({ ...e, may_sign: ['live/room'] }),
            PER_SECOND,
          ),
        },
        ORIGIN.origin.secret,
      ),
    }),
  },
  {
    name: 'refuse/decision/room-without-origin-signer-not-authority',
    note: 'A room without origin: the decision is signed by a key other than its authority.',
    reason: 'signer_not_authorised',
    where: decision,
    make: (ctx) => redecide(ctx.built(SOLO_ROOM), { signer: SOLO.other }),
  },

  // ==== §9.1 step 4: each record named ====
  {
    name: 'refuse/evidence/record-missing',
    note: "bravo's third record is named and not given.",
    reason: 'record_missing',
    where: evidence(1, 2),
    make: (ctx) => givenWith(ctx.built(ONE_CLASS), 1, 2, null),
  },
  {
    name: 'refuse/evidence/record-too-short',
    note: "bravo's fifth record given as its first 150 bytes: too short to reach where its signature would begin, it answers to no digest (C9).",
    reason: 'record_missing',
    where: evidence(1, 4),
    make: (ctx) => {
      const b = ctx.built(ONE_CLASS);
      return givenWith(b, 1, 4, namedAt(b, 1, 4).blob.slice(0, 150));
    },
  },
  {
    name: 'refuse/evidence/truncated-inside-sig',
    note: "alpha's second record given without its last 5 bytes: it answers to its digest (C9), then is truncated.",
    reason: 'truncated',
    where: evidence(0, 1),
    make: (ctx) => {
      const b = ctx.built(ONE_CLASS);
      const blob = namedAt(b, 0, 1).blob;
      return givenWith(b, 0, 1, blob.slice(0, blob.length - 5));
    },
  },
  {
    name: 'refuse/evidence/malformed-trailing-bytes',
    note: "alpha's third record given with 3 bytes after its signature: found by its digest, then malformed.",
    reason: 'malformed',
    where: evidence(0, 2),
    make: (ctx) => {
      const b = ctx.built(ONE_CLASS);
      return givenWith(b, 0, 2, concat(namedAt(b, 0, 2).blob, new Uint8Array([1, 2, 3])));
    },
  },
  {
    name: 'refuse/evidence/malformed-magic',
    note: "bravo's first record with the magic WMHX, signed; the decision names it.",
    reason: 'malformed',
    where: evidence(1, 0),
    make: (ctx) =>
      recordVariant(ctx.built(ONE_CLASS), 1, 0, (f) => f, {
        body: (body) => concat(new TextEncoder().encode('WMHX'), body.slice(4)),
      }),
  },
  {
    name: 'refuse/evidence/unknown-version',
    note: "bravo's fourth record (its interior hop's first) of version 2, signed; the decision names it.",
    reason: 'unknown_version',
    where: evidence(1, 3),
    make: (ctx) =>
      recordVariant(ctx.built(ONE_CLASS), 1, 3, (f) => f, { body: (body) => patch(body, 4, 2) }),
  },
  {
    name: 'refuse/evidence/energy-invalid-class',
    note: "charlie's first record of class 1, not a class.",
    reason: 'energy_invalid',
    where: evidence(2, 0),
    make: (ctx) => recordVariant(ctx.built(ONE_CLASS), 2, 0, (f) => ({ ...f, class: 1 })),
  },
  {
    name: 'refuse/evidence/energy-invalid-unmetered-joules',
    note: "charlie's fifth record: the unmetered marker with 5 µJ.",
    reason: 'energy_invalid',
    where: evidence(2, 4),
    make: (ctx) =>
      recordVariant(ctx.built(ONE_CLASS), 2, 4, (f) => ({ ...f, class: 0, joules: 5n })),
  },
  {
    name: 'refuse/evidence/record-invalid-track-twice',
    note: "alpha's fifth record with its media track out listed twice.",
    reason: 'record_invalid',
    where: evidence(0, 4),
    make: (ctx) =>
      recordVariant(ctx.built(ONE_CLASS), 0, 4, (f) => ({
        ...f,
        tracks: [...f.tracks, f.tracks[1]!],
      })),
  },
  {
    name: 'refuse/evidence/record-invalid-span',
    note: "bravo's sixth record ends where it starts.",
    reason: 'record_invalid',
    where: evidence(1, 5),
    make: (ctx) => recordVariant(ctx.built(ONE_CLASS), 1, 5, (f) => ({ ...f, end: f.start })),
  },
  {
    name: 'refuse/evidence/wrong-room',
    note: "charlie's second record, well signed by its hop, for the room without origin's id.",
    reason: 'wrong_room',
    where: evidence(2, 1),
    make: (ctx) =>
      recordVariant(ctx.built(ONE_CLASS), 2, 1, (f) => ({ ...f, room: ctx.solo.roomId })),
  },
  {
    name: 'refuse/evidence/bad-key',
    note: "alpha's first record signed for the identity point as its hop.",
    reason: 'bad_key',
    where: evidence(0, 0),
    make: (ctx) =>
      recordVariant(ctx.built(ONE_CLASS), 0, 0, (f) => ({ ...f, hop: IDENTITY_POINT }), {
        key: null,
      }),
  },
  {
    name: 'refuse/evidence/bad-signature',
    note: "One bit of bravo's second record's signature flipped (its digest is unchanged).",
    reason: 'bad_signature',
    where: evidence(1, 1),
    make: (ctx) => {
      const b = ctx.built(ONE_CLASS);
      const blob = namedAt(b, 1, 1).blob;
      return givenWith(b, 1, 1, flip(blob, sigOffset(blob) + 40));
    },
  },
  {
    name: 'refuse/evidence/hop-without-energy-label',
    note: "charlie's edge hop, listed for energy/OnChipCounter only, signs its third record as ModelBased.",
    reason: 'hop_not_authorised',
    where: evidence(2, 2),
    make: (ctx) => recordVariant(ctx.built(ONE_CLASS), 2, 2, (f) => ({ ...f, class: 2 })),
  },
  {
    name: 'refuse/evidence/hop-unlisted',
    note: "alpha's fourth record signed by a key the head does not list.",
    reason: 'hop_not_authorised',
    where: evidence(0, 3),
    make: (ctx) =>
      recordVariant(ctx.built(ONE_CLASS), 0, 3, (f) => ({ ...f, hop: ORIGIN.unlisted.pub }), {
        key: ORIGIN.unlisted,
      }),
  },
  {
    name: 'refuse/evidence/hop-without-live-hop',
    note: "alpha's sixth record signed by the steering key: listed, with energy/OnChipCounter, without live/hop.",
    reason: 'hop_not_authorised',
    where: evidence(0, 5),
    make: (ctx) =>
      recordVariant(ctx.built(ONE_CLASS), 0, 5, (f) => ({ ...f, hop: ORIGIN.steer.pub }), {
        key: ORIGIN.steer,
      }),
  },
  {
    name: 'refuse/evidence/hop-revoked',
    note: "The head revokes bravo's edge hop (signed by the origin); everything else as the base.",
    reason: 'hop_revoked',
    where: evidence(1, 0),
    make: (ctx) =>
      withHead(
        ctx,
        {
          ...headFields(ctx),
          entries: entriesWith(ctx, keyOf('three/bravo/edge').pub, (e) => ({ ...e, status: 2 })),
        },
        ORIGIN.origin.secret,
      ),
  },
  {
    name: 'refuse/evidence/hop-revoked-key',
    note: "charlie's sixth record signed by a revoked hop key.",
    reason: 'hop_revoked',
    where: evidence(2, 5),
    make: (ctx) =>
      recordVariant(ctx.built(ONE_CLASS), 2, 5, (f) => ({ ...f, hop: ORIGIN.revokedHop.pub }), {
        key: ORIGIN.revokedHop,
      }),
  },
  {
    name: 'refuse/evidence/hop-revoked-without-live-hop',
    note: "charlie's fourth record signed by the revoked steering key (no live/hop): revoked comes before live/hop (C9).",
    reason: 'hop_revoked',
    where: evidence(2, 3),
    make: (ctx) =>
      recordVariant(ctx.built(ONE_CLASS), 2, 3, (f) => ({ ...f, hop: ORIGIN.steerRevoked.pub }), {
        key: ORIGIN.steerRevoked,
      }),
  },
  {
    name: 'refuse/evidence/signature-s-not-reduced',
    note: "alpha's third record with S + L in place of S (its digest is unchanged).",
    reason: 'bad_signature',
    where: evidence(0, 2),
    make: (ctx) => {
      const b = ctx.built(ONE_CLASS);
      return givenWith(b, 0, 2, withUnreducedS(namedAt(b, 0, 2).blob));
    },
  },
  {
    name: 'refuse/evidence/not-on-pathway',
    note: "alpha's second record replaced by the same span signed by a listed hop of no pathway.",
    reason: 'evidence_not_on_pathway',
    where: evidence(0, 1),
    make: (ctx) =>
      recordVariant(ctx.built(ONE_CLASS), 0, 1, (f) => ({ ...f, hop: ORIGIN.spareHop.pub }), {
        key: ORIGIN.spareHop,
      }),
  },
  {
    name: 'refuse/evidence/not-on-pathway-before-window',
    note: "alpha's first record replaced by one of charlie's edge hop from before the window: not on the pathway is checked first (step 4.4 before 4.5).",
    reason: 'evidence_not_on_pathway',
    where: evidence(0, 0),
    make: (ctx) => {
      const b = ctx.built(ONE_CLASS);
      const other = recordOf(b, 'three/charlie/edge', -4);
      return redecide(b, { evidence: renaming(0, 0, other.blob, other.fields) });
    },
  },
  {
    name: 'refuse/evidence/outside-window-before',
    note: "bravo's first record replaced by its edge hop's record of the period before the window.",
    reason: 'evidence_outside_window',
    where: evidence(1, 0),
    make: (ctx) => {
      const b = ctx.built(ONE_CLASS);
      const early = recordOf(b, 'three/bravo/edge', -4);
      return redecide(b, { evidence: renaming(1, 0, early.blob, early.fields) });
    },
  },
  {
    name: 'refuse/evidence/outside-window-after',
    note: "charlie's third record replaced by its edge hop's record of the period after the window (it ends after b).",
    reason: 'evidence_outside_window',
    where: evidence(2, 2),
    make: (ctx) => {
      const b = ctx.built(ONE_CLASS);
      const late = recordOf(b, 'three/charlie/edge', 0);
      return redecide(b, { evidence: renaming(2, 2, late.blob, late.fields) });
    },
  },
  {
    name: 'refuse/evidence/order-start',
    note: "alpha's first two records named in the wrong order of start: step 4.6, decision_invalid at the record.",
    reason: 'decision_invalid',
    where: evidence(0, 1),
    make: (ctx) =>
      redecide(ctx.built(ONE_CLASS), {
        evidence: renamingAll(0, (n) => [n[1]!, n[0]!, ...n.slice(2)]),
      }),
  },
  {
    name: 'refuse/evidence/order-same-start',
    note: "alpha's second record replaced by a second record of its edge hop for the first period (other joules): a later start is strictly later.",
    reason: 'decision_invalid',
    where: evidence(0, 1),
    make: (ctx) => {
      const b = ctx.built(ONE_CLASS);
      const first = namedAt(b, 0, 0).fields;
      return recordVariant(b, 0, 1, (f) => ({
        ...f,
        start: first.start,
        end: first.end,
        joules: f.joules + 1n,
      }));
    },
  },
  {
    name: 'refuse/evidence/outside-window-b-zero',
    note: 'At t = L + 1 s the window is [0, 0): any record named is outside it (C9).',
    reason: 'evidence_outside_window',
    where: evidence(0, 0),
    make: (ctx) => {
      const b = ctx.built(BEFORE_FIRST_WINDOW);
      const rec = recordOf(b, 'early/alpha/edge', -3);
      return redecide(b, {
        evidence: renamingAll(0, () => [{ record: rec.fields, digest: hexBytes(rec.digest) }]),
      });
    },
  },
  {
    name: 'refuse/evidence/order-hop',
    note: "alpha's interior hop's records named before its edge hop's: step 4.6 at the first edge record.",
    reason: 'decision_invalid',
    where: evidence(0, 3),
    make: (ctx) =>
      redecide(ctx.built(ONE_CLASS), {
        evidence: renamingAll(0, (n) => [...n.slice(3), ...n.slice(0, 3)]),
      }),
  },
  {
    name: 'refuse/evidence/duplicate-digest-first-given-malformed',
    note: "Two given blobs answer to alpha's first digest: a copy with a trailing byte first, then the record. The first given is used (C9): malformed.",
    reason: 'malformed',
    where: evidence(0, 0),
    make: (ctx) => {
      const b = ctx.built(ONE_CLASS);
      const blob = namedAt(b, 0, 0).blob;
      const parts = partsOf(b);
      return { ...parts, records: [concat(blob, new Uint8Array([0])), ...parts.records] };
    },
  },
  {
    name: 'refuse/evidence/room-without-origin-hop-not-authority',
    note: "A room without origin: the records of the other pathway's hop, a key other than the authority, are named.",
    reason: 'hop_not_authorised',
    where: evidence(1, 0),
    make: (ctx) => partsOf(ctx.built(SOLO_WITH_OTHER_RECORDS)),
  },

  // ==== §9.1 step 5: the evidence ====
  {
    name: 'refuse/pathway/evidence-mismatch-joules',
    note: "bravo's J stated one µJ more than its records sum (the rest of the decision made from that statement).",
    reason: 'evidence_mismatch',
    where: pathwayAt(1),
    make: (ctx) => {
      const b = ctx.built(ONE_CLASS);
      const p = b.evidence.pathways[1]!;
      return redecide(b, { evidence: restating(1, { ...p, joules: p.joules + 1n }) });
    },
  },
  {
    name: 'refuse/pathway/evidence-mismatch-class',
    note: "alpha's figure stated as CalibratedInstrument; its records are OnChipCounter.",
    reason: 'evidence_mismatch',
    where: pathwayAt(0),
    make: (ctx) => {
      const b = ctx.built(ONE_CLASS);
      return redecide(b, { evidence: restating(0, { ...b.evidence.pathways[0]!, class: 5 }) });
    },
  },
  {
    name: 'refuse/pathway/evidence-mismatch-stale-as-figure',
    note: "In the stale scenario, alpha (a gap in its edge hop's records) stated with a figure over the records named.",
    reason: 'evidence_mismatch',
    where: pathwayAt(0),
    make: (ctx) =>
      redecide(ctx.built(STALE), {
        evidence: restating(0, {
          status: STATUS.figure,
          class: 4,
          joules: 1_500_000n,
          delivery: 3_000_000n,
        }),
      }),
  },
  {
    name: 'refuse/pathway/sum-beyond-u128',
    note: "In the u128 scenario, alpha's three records of 2^127 µJ named and stated with J wrapped to 2^127: the sum recomputed in full is not it (C9).",
    reason: 'evidence_mismatch',
    where: pathwayAt(0),
    make: (ctx) => {
      const b = ctx.built(BEYOND_U128);
      const named = [-3, -2, -1].map((k) => {
        const r = recordOf(b, 'u128/alpha/edge', k);
        return { record: r.fields, digest: hexBytes(r.digest) };
      });
      return redecide(b, {
        evidence: (e) =>
          restating(0, { status: STATUS.figure, class: 4, joules: HUGE, delivery: 3_000_000n })(
            renamingAll(0, () => named)(e),
          ),
      });
    },
  },
  {
    name: 'refuse/pathway/unmetered-as-zero',
    note: 'In the unmetered scenario, alpha stated with the figure of its metered edge alone (the unmetered hop counted as zero): 0.3 J over 3 MB, which would rank it first.',
    reason: 'unmetered_as_zero',
    where: pathwayAt(0),
    make: (ctx) =>
      redecide(ctx.built(UNMETERED), {
        evidence: restating(0, {
          status: STATUS.figure,
          class: 4,
          joules: 300_000n,
          delivery: 3_000_000n,
        }),
      }),
  },
  {
    name: 'refuse/pathway/unmetered-as-zero-stale',
    note: "As above with alpha's first edge record also left out (stale as well): the unmetered record is tested first (C9).",
    reason: 'unmetered_as_zero',
    where: pathwayAt(0),
    make: (ctx) =>
      redecide(ctx.built(UNMETERED), {
        evidence: (e) =>
          restating(0, { status: STATUS.figure, class: 4, joules: 200_000n, delivery: 2_000_000n })(
            renamingAll(0, (n: readonly EvidenceRecord[]) => n.slice(1))(e),
          ),
      }),
  },
  {
    name: 'refuse/pathway/classes-summed',
    note: 'In the two-classes scenario, alpha (OnChipCounter edge, ModelBased interior) stated with one OnChipCounter figure summing both.',
    reason: 'classes_summed',
    where: pathwayAt(0),
    make: (ctx) =>
      redecide(ctx.built(TWO_CLASSES), {
        evidence: restating(0, {
          status: STATUS.figure,
          class: 4,
          joules: 3_000_000n,
          delivery: 3_000_000n,
        }),
      }),
  },

  // ==== §9.1 step 6: the output ====
  {
    name: 'refuse/output/unknown-preferred',
    note: 'In the unmetered scenario, the unmetered alpha stated first (reason rank) while the rule puts charlie, with a figure, first.',
    reason: 'unknown_preferred',
    where: output,
    make: (ctx) =>
      redecide(ctx.built(UNMETERED), { fields: (f) => ({ ...f, priority: [0, 2, 1] }) }),
  },
  {
    name: 'refuse/output/unknown-preferred-stale',
    note: 'In the stale scenario, the stale alpha stated first while the rule puts delta first.',
    reason: 'unknown_preferred',
    where: output,
    make: (ctx) =>
      redecide(ctx.built(STALE), { fields: (f) => ({ ...f, priority: [0, 3, 2, 1] }) }),
  },
  {
    name: 'refuse/output/priority-swapped',
    note: 'charlie stated before bravo: the stated first has a figure, so decision_mismatch.',
    reason: 'decision_mismatch',
    where: output,
    make: (ctx) =>
      redecide(ctx.built(ONE_CLASS), { fields: (f) => ({ ...f, priority: [2, 1, 0] }) }),
  },
  {
    name: 'refuse/output/wrong-ttl',
    note: 'The TTL stated as min_ttl_s for reason rank.',
    reason: 'decision_mismatch',
    where: output,
    make: (ctx) => redecide(ctx.built(ONE_CLASS), { fields: (f) => ({ ...f, ttl: 15 }) }),
  },
  {
    name: 'refuse/output/wrong-reason',
    note: 'The reason stated as hold, the priority unchanged.',
    reason: 'decision_mismatch',
    where: output,
    make: (ctx) => redecide(ctx.built(ONE_CLASS), { fields: (f) => ({ ...f, reason: 4 }) }),
  },
  {
    name: 'refuse/output/wrong-draw',
    note: 'The draw stated one more than §6.3 gives for the session.',
    reason: 'decision_mismatch',
    where: output,
    make: (ctx) =>
      redecide(ctx.built(ONE_CLASS), { fields: (f) => ({ ...f, draw: (f.draw + 1) % 1_000_000 }) }),
  },
  {
    name: 'refuse/output/wrong-limits',
    note: "alpha's limits stated without the capacity bit.",
    reason: 'decision_mismatch',
    where: output,
    make: (ctx) =>
      redecide(ctx.built(ONE_CLASS), {
        fields: (f) => ({
          ...f,
          pathways: f.pathways.map((p, i) => (i === 0 ? { ...p, limits: 3 } : p)),
        }),
      }),
  },
  {
    name: 'refuse/output/known-first-where-unknown-placed',
    note: "The session charlie's band places, stated ranked with alpha first: the stated first has a figure and the recomputed first (the unmetered charlie) has none, so decision_mismatch, not unknown_preferred.",
    reason: 'decision_mismatch',
    where: output,
    make: (ctx) =>
      redecide(ctx.built(BAND_UNMETERED), {
        fields: (f) => ({ ...f, reason: 5, priority: [0, 1, 2] }),
      }),
  },
  {
    name: 'refuse/output/unknown-first-where-unknown-holds',
    note: 'Every pathway stale and the client on bravo held: stated ranked with alpha first. Neither first has a figure: decision_mismatch.',
    reason: 'decision_mismatch',
    where: output,
    make: (ctx) =>
      redecide(ctx.built(BEFORE_FIRST_WINDOW), {
        fields: (f) => ({ ...f, reason: 5, priority: [0, 1] }),
      }),
  },

  // ==== §9.1 step 7: the manifest ====
  {
    name: 'refuse/manifest/trailing-newline',
    note: 'The manifest served with a line terminator (C9).',
    reason: 'manifest_mismatch',
    where: manifest,
    make: (ctx) => base(ctx, { manifest: `${ctx.built(ONE_CLASS).manifest}\n` }),
  },
  {
    name: 'refuse/manifest/uppercase-hex',
    note: "The decision's digest in uppercase hexadecimal (C9).",
    reason: 'manifest_mismatch',
    where: manifest,
    make: (ctx) => {
      const b = ctx.built(ONE_CLASS);
      const hex = toHex(b.decisionDigest);
      return base(ctx, { manifest: b.manifest.replace(hex, hex.toUpperCase()) });
    },
  },
  {
    name: 'refuse/manifest/white-space',
    note: 'The same JSON with a space after each comma.',
    reason: 'manifest_mismatch',
    where: manifest,
    make: (ctx) => base(ctx, { manifest: ctx.built(ONE_CLASS).manifest.replaceAll(',"', ', "') }),
  },
  {
    name: 'refuse/manifest/other-decision',
    note: "The manifest of another decision (the hysteresis scenario's) served with this one.",
    reason: 'manifest_mismatch',
    where: manifest,
    make: (ctx) => base(ctx, { manifest: ctx.built(HOLD_FOR_MANIFEST).manifest }),
  },
];

/** The room without origin, where the other pathway's hop (not the authority) signed records. */
export const SOLO_WITH_OTHER_RECORDS: Scenario = {
  ...SOLO_ROOM,
  name: 'refuse/evidence/room-without-origin-hop-not-authority',
  policy: {
    pathways: SOLO_ROOM.policy.pathways.map((p, i) =>
      i === 1 ? { ...p, hops: p.hops.map(({ skip: _skip, ...h }) => h) } : p,
    ),
  },
};

const HOLD_FOR_MANIFEST = HOLD;

/** Scenarios only the refused vectors build (their hops go into the head too). */
export const REFUSAL_SCENARIOS: readonly Scenario[] = [SOLO_WITH_OTHER_RECORDS];
