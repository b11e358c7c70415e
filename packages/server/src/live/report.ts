/**
 * Site reports of live capacity (`POST /capacity`): the CATS draft's Global Available Slots (GAS,
 * the concurrent sessions a site is willing and able to serve), with its soft-state expiry and,
 * optionally, the site's computing time and network delay, signed by an edge hop of the pathway
 * it is about.
 *
 * A report is a compact JWS (RFC 7515 §7.1) with `alg` `EdDSA` (RFC 8037 §3.1) whose protected
 * header's `kid` is the hop's Ed25519 key as 64 lowercase hexadecimal digits, the key as it stands
 * in the policy. Its payload is a JSON object:
 *
 * ```json
 * {"room":"<64 hex>","pathway":"<id>","gas":120,"computing_ms":8,"network_ms":14,
 *  "t":"<µs>","expires":"<µs>","window_us":"<µs>"}
 * ```
 *
 * `gas`, `computing_ms` and `network_ms` are u32 JSON integers (the last two optional, together or
 * not at all useful: §6.1's `latency_ms` is their sum when both are given); `t` (the report's
 * instant), `expires` (its soft-state expiry) and `window_us` (the span the figures were measured
 * over) are u64s on the room clock, written as decimal strings as companion C8 writes every u64.
 *
 * The JWS is verified with `jose`; the key's entry in the key log must grant `live/hop` and not be
 * revoked (companion C4, C5.4's order of checks). The payload is read strictly (`json.ts`): a
 * member given twice is refused (`malformed_report`), and `expires` is at most
 * `live.max_expiry` after `t` (`expiry_too_far`), so that no report holds for good.
 */

import { readStrictJson } from '@wai-steering/config-text';
import { checkHopAuthorised, type RoomContext } from '@wai-steering/verifier';
import { type Policy, toHex } from '@wai-steering/wire';
import { base64url, compactVerify, decodeProtectedHeader, importJWK, type JWK } from 'jose';

/** What `importJWK` gives: a WebCrypto key (Node 20 has the global at run time). */
type KeyLike = Awaited<ReturnType<typeof importJWK>>;

/** A report as taken: which pathway and hop it is about, and its figures. */
export interface CapacityReport {
  /** The pathway's index in the policy in force. */
  readonly pathway: number;
  /** The hop's key, lowercase hexadecimal. */
  readonly hop: string;
  readonly gas: number;
  readonly computingMs: number | null;
  readonly networkMs: number | null;
  /** Room clock µs. */
  readonly t: bigint;
  readonly expires: bigint;
  readonly windowUs: bigint;
}

/** Why a report is refused: a server refusal (not a companion C7 code), and a sentence. */
export interface ReportRefusal {
  readonly reason:
    | 'malformed_report'
    | 'wrong_room'
    | 'unknown_pathway'
    | 'unknown_hop'
    | 'not_edge_hop'
    | 'bad_signature'
    | 'hop_not_authorised'
    | 'hop_revoked'
    | 'expired'
    | 'expiry_too_far'
    | 'outside_horizon';
  readonly message: string;
}

export type ReportResult =
  | { readonly ok: true; readonly report: CapacityReport }
  | { readonly ok: false; readonly refusal: ReportRefusal };

/** What a report is checked against. */
export interface ReportContext {
  readonly room: RoomContext;
  readonly policy: Policy;
  /** The room clock now, µs. */
  readonly now: bigint;
  /** How far ahead of the room clock a report's `t` may be (µs): clocks differ a little. */
  readonly maxAheadUs: bigint;
  /**
   * How far after its `t` a report's `expires` may be (µs, `live.max_expiry`): soft state that a
   * site cannot make hold for good (`expires` 2^64 − 1, say).
   */
  readonly maxExpiryUs: bigint;
  /**
   * A report another instance took already (read from the shared store): its expiry passing is
   * no refusal (it then counts as GAS 0), nor is its `t` ahead of this instance's clock.
   */
  readonly held?: boolean;
}

/** A compact JWS is at most this long: a report is a few hundred bytes. */
export const MAX_REPORT_BYTES = 4096;

const U32_MAX = 0xffff_ffff;
const U64_MAX = (1n << 64n) - 1n;
const HEX64 = /^[0-9a-f]{64}$/;
const DECIMAL = /^(0|[1-9][0-9]{0,19})$/;

function refuse(reason: ReportRefusal['reason'], message: string): ReportResult {
  return { ok: false, refusal: { reason, message } };
}

function u64Of(v: unknown): bigint | undefined {
  if (typeof v !== 'string' || !DECIMAL.test(v)) return undefined;
  const n = BigInt(v);
  return n <= U64_MAX ? n : undefined;
}

function u32Of(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= U32_MAX ? v : undefined;
}

const KNOWN = new Set([
  'room',
  'pathway',
  'gas',
  'computing_ms',
  'network_ms',
  't',
  'expires',
  'window_us',
]);

/** Imported keys by hex: a site reports often, and importing a key costs more than verifying. */
const keys = new Map<string, Promise<KeyLike>>();

function keyOf(hex: string, raw: Uint8Array): Promise<KeyLike> {
  let key = keys.get(hex);
  if (key === undefined) {
    const jwk: JWK = { kty: 'OKP', crv: 'Ed25519', x: base64url.encode(raw) };
    key = importJWK(jwk, 'EdDSA');
    if (keys.size >= 4096) keys.clear();
    keys.set(hex, key);
  }
  return key;
}

/**
 * Reads and verifies a site report. The hop named by `kid` must be an edge hop of the pathway the
 * payload names, in the policy in force; the room must be the server's; the report must not have
 * expired already, nor be dated further ahead than `maxAheadUs`.
 */
export async function verifyCapacityReport(jws: string, ctx: ReportContext): Promise<ReportResult> {
  if (typeof jws !== 'string') throw new TypeError('verifyCapacityReport: the report is a string');
  const text = jws.trim();
  if (text.length === 0 || text.length > MAX_REPORT_BYTES || text.split('.').length !== 3) {
    return refuse('malformed_report', 'a report is one compact JWS: three base64url parts');
  }
  let header: ReturnType<typeof decodeProtectedHeader>;
  try {
    header = decodeProtectedHeader(text);
  } catch {
    return refuse('malformed_report', 'the JWS protected header does not read');
  }
  if (header.alg !== 'EdDSA') {
    return refuse('malformed_report', 'the JWS alg must be "EdDSA" (RFC 8037)');
  }
  const kid = header.kid;
  if (typeof kid !== 'string' || !HEX64.test(kid)) {
    return refuse('malformed_report', 'the JWS kid must be the hop key as 64 lowercase hex digits');
  }
  // The hop: its key as it stands in the policy in force.
  let hopPathway = -1;
  let hopPlace = 0;
  let raw: Uint8Array | undefined;
  ctx.policy.pathways.forEach((p, i) => {
    for (const h of p.hops) {
      if (toHex(h.key) === kid) {
        hopPathway = i;
        hopPlace = h.place;
        raw = h.key;
      }
    }
  });
  if (raw === undefined) {
    return refuse('unknown_hop', `the key ${kid} is not a hop of the policy in force`);
  }
  let payloadBytes: Uint8Array;
  try {
    const key = await keyOf(kid, raw);
    ({ payload: payloadBytes } = await compactVerify(text, key, { algorithms: ['EdDSA'] }));
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (code === 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED') {
      return refuse('bad_signature', `the JWS signature does not verify with the key ${kid}`);
    }
    return refuse('malformed_report', `the JWS does not verify (${code ?? 'unreadable'})`);
  }
  let payloadText: string;
  try {
    payloadText = new TextDecoder('utf-8', { fatal: true }).decode(payloadBytes);
  } catch {
    return refuse('malformed_report', 'the payload is not UTF-8 text');
  }
  // A name given twice ("gas" twice) is refused, not read with its last value (`json.ts`).
  const read = readStrictJson(payloadText);
  if (!read.ok) return refuse('malformed_report', `the payload: ${read.problem}`);
  const payload = read.value;
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
    return refuse('malformed_report', 'the payload is not a JSON object');
  }
  const o = payload as Record<string, unknown>;
  for (const k of Object.keys(o)) {
    if (!KNOWN.has(k)) return refuse('malformed_report', `the payload has an unknown field "${k}"`);
  }
  if (typeof o.room !== 'string' || !HEX64.test(o.room)) {
    return refuse('malformed_report', 'room: expected the room id as 64 lowercase hex digits');
  }
  if (o.room !== toHex(ctx.room.roomId)) {
    return refuse('wrong_room', `the report is of room ${o.room}, not ${toHex(ctx.room.roomId)}`);
  }
  const pathway = ctx.policy.pathways.findIndex((p) => p.id === o.pathway);
  if (pathway < 0) {
    return refuse('unknown_pathway', `pathway: ${JSON.stringify(o.pathway)} is not a pathway ID`);
  }
  if (pathway !== hopPathway) {
    return refuse(
      'unknown_hop',
      `the key ${kid} is a hop of ${ctx.policy.pathways[hopPathway]!.id}, not of ${String(o.pathway)}`,
    );
  }
  if (hopPlace !== 1) {
    return refuse('not_edge_hop', `the key ${kid} is an interior hop; only edge hops report`);
  }
  const gas = u32Of(o.gas);
  if (gas === undefined) return refuse('malformed_report', 'gas: expected a u32 integer');
  const computingMs = o.computing_ms === undefined ? null : u32Of(o.computing_ms);
  const networkMs = o.network_ms === undefined ? null : u32Of(o.network_ms);
  if (computingMs === undefined) {
    return refuse('malformed_report', 'computing_ms: expected a u32 integer');
  }
  if (networkMs === undefined)
    return refuse('malformed_report', 'network_ms: expected a u32 integer');
  const t = u64Of(o.t);
  const expires = u64Of(o.expires);
  const windowUs = u64Of(o.window_us);
  if (t === undefined)
    return refuse('malformed_report', 't: expected room clock µs as a decimal string');
  if (expires === undefined) {
    return refuse('malformed_report', 'expires: expected room clock µs as a decimal string');
  }
  if (windowUs === undefined || windowUs === 0n) {
    return refuse('malformed_report', 'window_us: expected µs above 0 as a decimal string');
  }
  if (expires <= t) return refuse('malformed_report', 'expires: must be after t');
  if (expires - t > ctx.maxExpiryUs) {
    return refuse(
      'expiry_too_far',
      `expires is ${expires - t} µs after t; this server takes at most ${ctx.maxExpiryUs} µs (live.max_expiry)`,
    );
  }
  // C5.4's order: listed, not revoked, `live/hop` (class 0: no `energy/` label is needed).
  const badHop = checkHopAuthorised(ctx.room, { hop: raw, class: 0 });
  if (badHop !== undefined) {
    const reason = badHop.reason === 'hop_revoked' ? 'hop_revoked' : 'hop_not_authorised';
    return refuse(
      reason,
      reason === 'hop_revoked'
        ? `the key log revokes ${kid}`
        : `the key log does not grant ${kid} live/hop`,
    );
  }
  // A report another instance took is judged against the clock when it counts (CATS's age-out).
  if (ctx.held !== true) {
    if (expires <= ctx.now) return refuse('expired', 'the report expired before it arrived');
    if (t > ctx.now + ctx.maxAheadUs) {
      return refuse('outside_horizon', "the report's t is ahead of the room clock");
    }
  }
  return {
    ok: true,
    report: { pathway, hop: kid, gas, computingMs, networkMs, t, expires, windowUs },
  };
}
