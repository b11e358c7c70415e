/**
 * What the refused vectors share: the shape of a case, the places of C7, and the helpers that
 * build a vector's parts from a valid base.
 */
import type { Place, Reason } from '@wai-steering/wire';
import {
  encodeHopRecord,
  encodePolicy,
  type HopRecordFields,
  type KeyLogEntry,
  type KeyLogFields,
  nobleBackend,
  type PolicyFields,
  toHex,
} from '@wai-steering/wire';
import { ED25519_L } from '@wai-steering/wire/internal';
import { ONE_CLASS, SOLO_ROOM } from '../accepted.js';
import type { KeyPair } from '../keys.js';
import {
  type Built,
  type Env,
  keyLogOf,
  namedAt,
  type Parts,
  partsOf,
  redecide,
  renaming,
  type Scenario,
  seal,
} from '../world.js';

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

export const room: Where = { at: 'room' };
export const policy: Where = { at: 'policy' };
export const decision: Where = { at: 'decision' };
export const output: Where = { at: 'output' };
export const manifest: Where = { at: 'manifest' };
export const evidence = (pathway: number, record: number): Where => ({
  at: 'evidence',
  pathway,
  record,
});
export const pathwayAt = (pathway: number): Where => ({ at: 'pathway', pathway });

export const NO_SECRET = (pub: Uint8Array) => ({ pub, secret: null }) as const;

// ---- helpers ------------------------------------------------------------------------------

/** The base decision with other parts given. */
export function base(ctx: Context, over: Partial<Parts> = {}): Parts {
  return { ...partsOf(ctx.built(ONE_CLASS)), ...over };
}

/** The base scenario built in the origin room with other room bytes. */
export function inRoom(ctx: Context, roomBytes: Uint8Array): Parts {
  const env: Env = { ...ctx.env(ONE_CLASS), room: roomBytes, roomId: digestOfRoom(roomBytes) };
  return partsOf(ctx.builtIn(ONE_CLASS, env));
}

export function digestOfRoom(bytes: Uint8Array): Uint8Array {
  // The body is everything but the last 64 bytes for every room variant built here.
  return sha(bytes.subarray(0, bytes.length - 64));
}

export const sha = (b: Uint8Array): Uint8Array => nobleBackend.sha256(b);

/** The base with another key log head. */
export function withHead(ctx: Context, fields: KeyLogFields, secret: Uint8Array | null): Parts {
  return base(ctx, { keyLog: keyLogOf(fields, secret) });
}

export function headFields(ctx: Context, s: Scenario = ONE_CLASS): KeyLogFields {
  return ctx.env(s).keyLogFields!;
}

export function entriesWith(
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
export function policyVariant(
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
export function recordVariant(
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
export function givenWith(b: Built, i: number, j: number, blob: Uint8Array | null): Parts {
  const named = namedAt(b, i, j).blob;
  const parts = partsOf(b);
  const records = parts.records.flatMap((r) => (r === named ? (blob === null ? [] : [blob]) : [r]));
  return { ...parts, records };
}

/** A record's bytes with its signature's S replaced by S + L (still below 2^256). */
export function withUnreducedS(bytes: Uint8Array): Uint8Array {
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

export const sigOffset = (bytes: Uint8Array): number => bytes.length - 64;

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
