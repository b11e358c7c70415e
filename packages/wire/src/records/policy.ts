import { type ByteReader, ByteWriter } from '../internal/bytes.js';
import {
  compareText,
  firstRepeat,
  isCloneHost,
  isParamText,
  isPathwayId,
  isPolicyUri,
} from '../internal/chars.js';
import { readRecord, recordSigner, type Signed, signatureVerifier } from '../internal/record.js';
import type { Refusal, Result } from '../refusal.js';

/** §3.2: `base` of a pathway of the content description (not a clone). */
export const NOT_A_CLONE = 255;
/** §3.2: `capacity` of a pathway with no limit. */
export const NO_CAPACITY_LIMIT = 0xffff_ffff;

/** §3.2: a hop of a pathway: its key and its place (1 edge, 2 interior). */
export interface PolicyHop {
  readonly key: Uint8Array;
  readonly place: number;
}

/** §3.2: a clone's `PARAMS` entry, name and value as stored (percent-encoded). */
export interface CloneParam {
  readonly name: string;
  readonly value: string;
}

/** §3.2: a pathway entry. */
export interface PolicyPathway {
  readonly id: string;
  /** 255 ({@link NOT_A_CLONE}) for a pathway of the content description, else the cloned index. */
  readonly base: number;
  readonly host: string;
  readonly params: readonly CloneParam[];
  readonly top_tier: number;
  readonly latency_ms: number;
  readonly capacity: number;
  readonly min_share_ppm: number;
  readonly hops: readonly PolicyHop[];
}

/** §3.1: the steering policy `WSP1`, every field but `magic`, `version` and `sig`. */
export interface PolicyFields {
  readonly room: Uint8Array;
  readonly signer: Uint8Array;
  readonly period_us: bigint;
  readonly window_us: bigint;
  readonly lag_us: bigint;
  readonly basis: number;
  readonly floor: number;
  readonly latency_ceiling_ms: number;
  readonly min_buffer_ms: number;
  readonly hysteresis_ppm: number;
  readonly ttl_s: number;
  readonly min_ttl_s: number;
  readonly flags: number;
  readonly initial: number;
  /** Each tier's bitrate in bits per second, tier 0 first. */
  readonly tiers: readonly bigint[];
  readonly server_uri: string;
  readonly reload_uri: string;
  readonly decision_uri: string;
  readonly pathways: readonly PolicyPathway[];
}

/** A policy as read: its fields, `sig` and the bytes before `sig`. */
export type Policy = Signed<PolicyFields>;

function readFields(r: ByteReader): PolicyFields {
  const room = r.take(32, 'room');
  const signer = r.take(32, 'signer');
  const period_us = r.u64('period_us');
  const window_us = r.u64('window_us');
  const lag_us = r.u64('lag_us');
  const basis = r.u8('basis');
  const floor = r.u8('floor');
  const latency_ceiling_ms = r.u32('latency_ceiling_ms');
  const min_buffer_ms = r.u32('min_buffer_ms');
  const hysteresis_ppm = r.u32('hysteresis_ppm');
  const ttl_s = r.u32('ttl_s');
  const min_ttl_s = r.u32('min_ttl_s');
  const flags = r.u8('flags');
  const initial = r.u8('initial');
  const n = r.u8('tiers');
  const tiers: bigint[] = [];
  for (let i = 0; i < n; i++) tiers.push(r.u64(`tiers[${i}]`));
  const server_uri = r.text(r.u16('server_uri'), 'server_uri');
  const reload_uri = r.text(r.u16('reload_uri'), 'reload_uri');
  const decision_uri = r.text(r.u16('decision_uri'), 'decision_uri');
  const count = r.u8('pathways');
  const pathways: PolicyPathway[] = [];
  for (let i = 0; i < count; i++) {
    const at = `pathways[${i}]`;
    const id = r.text(r.u8(`${at}.id`), `${at}.id`);
    const base = r.u8(`${at}.base`);
    const host = r.text(r.u8(`${at}.host`), `${at}.host`);
    const k = r.u8(`${at}.params`);
    const params: CloneParam[] = [];
    for (let j = 0; j < k; j++) {
      const name = r.text(r.u8(`${at}.params[${j}].name`), `${at}.params[${j}].name`);
      const value = r.text(r.u8(`${at}.params[${j}].value`), `${at}.params[${j}].value`);
      params.push({ name, value });
    }
    const top_tier = r.u8(`${at}.top_tier`);
    const latency_ms = r.u32(`${at}.latency_ms`);
    const capacity = r.u32(`${at}.capacity`);
    const min_share_ppm = r.u32(`${at}.min_share_ppm`);
    const h = r.u8(`${at}.hops`);
    const hops: PolicyHop[] = [];
    for (let j = 0; j < h; j++) {
      const key = r.take(32, `${at}.hops[${j}].key`);
      const place = r.u8(`${at}.hops[${j}].place`);
      hops.push({ key, place });
    }
    pathways.push({
      id,
      base,
      host,
      params,
      top_tier,
      latency_ms,
      capacity,
      min_share_ppm,
      hops,
    });
  }
  return {
    room,
    signer,
    period_us,
    window_us,
    lag_us,
    basis,
    floor,
    latency_ceiling_ms,
    min_buffer_ms,
    hysteresis_ppm,
    ttl_s,
    min_ttl_s,
    flags,
    initial,
    tiers,
    server_uri,
    reload_uri,
    decision_uri,
    pathways,
  };
}

/** §3.3: `clone_unknown`, then every rule of `policy_invalid`. */
function checkRules(p: PolicyFields, r: ByteReader): void {
  // §3.3, C9: `clone_unknown` is checked before `policy_invalid`.
  p.pathways.forEach((pw, i) => {
    if (pw.base !== NOT_A_CLONE && pw.base >= i) {
      throw r.rule('clone_unknown', `pathways[${i}].base`, 'a clone of a pathway not before it');
    }
  });
  const invalid = (field: string, detail: string): Refusal =>
    r.rule('policy_invalid', field, detail);
  if (p.period_us === 0n) throw invalid('period_us', 'period_us is 0');
  if (p.window_us === 0n || p.window_us % p.period_us !== 0n) {
    throw invalid('window_us', 'window_us is not a multiple of period_us above 0');
  }
  if (p.basis !== 1 && p.basis !== 2) throw invalid('basis', 'basis is not 1 or 2');
  if (p.min_ttl_s < 1 || p.min_ttl_s > p.ttl_s) {
    throw invalid('min_ttl_s', 'min_ttl_s is not from 1 to ttl_s');
  }
  if (p.hysteresis_ppm > 1_000_000) throw invalid('hysteresis_ppm', 'above 1 000 000');
  if (p.flags > 1) throw invalid('flags', 'a bit other than bit 0 is set');
  const n = p.tiers.length;
  if (n < 1 || n > 8) throw invalid('tiers', 'not 1 to 8 tiers');
  p.tiers.forEach((rate, i) => {
    if (rate === 0n) throw invalid(`tiers[${i}]`, 'a bitrate of 0');
    if (i > 0 && rate <= p.tiers[i - 1]!) throw invalid(`tiers[${i}]`, 'bitrates not ascending');
  });
  if (p.floor >= n) throw invalid('floor', 'floor is not a tier');
  for (const field of ['server_uri', 'reload_uri', 'decision_uri'] as const) {
    if (!isPolicyUri(p[field])) throw invalid(field, 'not 1 to 2048 bytes of RFC 3986 characters');
  }
  const m = p.pathways.length;
  if (m < 1 || m > 32) throw invalid('pathways', 'not 1 to 32 pathways');
  const ids = new Set<string>();
  const keys: Uint8Array[] = [];
  const keyFields: string[] = [];
  let shares = 0;
  p.pathways.forEach((pw, i) => {
    const at = `pathways[${i}]`;
    if (!isPathwayId(pw.id)) throw invalid(`${at}.id`, 'not a pathway ID');
    if (ids.has(pw.id)) throw invalid(`${at}.id`, 'a pathway ID named twice');
    ids.add(pw.id);
    if (pw.base === NOT_A_CLONE) {
      if (pw.host.length !== 0)
        throw invalid(`${at}.host`, 'a pathway that is not a clone has a host');
      if (pw.params.length !== 0) {
        throw invalid(`${at}.params`, 'a pathway that is not a clone has params');
      }
    } else {
      if (!isCloneHost(pw.host)) throw invalid(`${at}.host`, 'not a host');
      pw.params.forEach((param, j) => {
        const pat = `${at}.params[${j}]`;
        if (param.name.length < 1 || param.name.length > 64 || !isParamText(param.name)) {
          throw invalid(`${pat}.name`, 'not a param name');
        }
        if (!isParamText(param.value)) throw invalid(`${pat}.value`, 'not a param value');
        if (j > 0 && compareText(pw.params[j - 1]!.name, param.name) >= 0) {
          throw invalid(`${pat}.name`, 'param names not in ascending order');
        }
      });
    }
    if (pw.top_tier >= n) throw invalid(`${at}.top_tier`, 'top_tier is not a tier');
    if (pw.hops.length < 1) throw invalid(`${at}.hops`, 'a pathway with no hop');
    let edge = false;
    pw.hops.forEach((hop, j) => {
      if (hop.place !== 1 && hop.place !== 2) throw invalid(`${at}.hops[${j}].place`, 'not 1 or 2');
      if (hop.place === 1) edge = true;
      keys.push(hop.key);
      keyFields.push(`${at}.hops[${j}].key`);
    });
    if (!edge) throw invalid(`${at}.hops`, 'a pathway with no edge hop');
    shares += pw.min_share_ppm;
  });
  // No hop key appears twice in the policy, in one pathway or in two.
  const repeat = firstRepeat(keys);
  if (repeat >= 0) throw invalid(keyFields[repeat]!, 'a hop key named twice');
  const init = p.pathways[p.initial];
  if (init === undefined || init.base !== NOT_A_CLONE) {
    throw invalid('initial', 'initial is not a pathway that is not a clone');
  }
  if (shares > 1_000_000) throw invalid('pathways', 'min_share_ppm sums above 1 000 000');
}

/** §3.3: reads a policy and checks its rules (not its room or signature). */
export function readPolicy(bytes: Uint8Array): Result<Policy> {
  return readRecord(bytes, 'WSP1', readFields, checkRules);
}

/** §3.1: the bytes of a policy before `sig`. Writes exactly what it is given. */
export function encodePolicy(p: PolicyFields): Uint8Array {
  const w = new ByteWriter(512);
  w.text('WSP1', 'magic').u8(1, 'version');
  w.raw(p.room, 'room', 32).raw(p.signer, 'signer', 32);
  w.u64(p.period_us, 'period_us').u64(p.window_us, 'window_us').u64(p.lag_us, 'lag_us');
  w.u8(p.basis, 'basis').u8(p.floor, 'floor');
  w.u32(p.latency_ceiling_ms, 'latency_ceiling_ms').u32(p.min_buffer_ms, 'min_buffer_ms');
  w.u32(p.hysteresis_ppm, 'hysteresis_ppm').u32(p.ttl_s, 'ttl_s').u32(p.min_ttl_s, 'min_ttl_s');
  w.u8(p.flags, 'flags').u8(p.initial, 'initial');
  w.u8(p.tiers.length, 'tiers');
  for (const rate of p.tiers) w.u64(rate, 'tiers');
  w.lengthText(p.server_uri, 2, 'server_uri');
  w.lengthText(p.reload_uri, 2, 'reload_uri');
  w.lengthText(p.decision_uri, 2, 'decision_uri');
  w.u8(p.pathways.length, 'pathways');
  for (const pw of p.pathways) {
    w.lengthText(pw.id, 1, 'id').u8(pw.base, 'base').lengthText(pw.host, 1, 'host');
    w.u8(pw.params.length, 'params');
    for (const param of pw.params) {
      w.lengthText(param.name, 1, 'param name').lengthText(param.value, 1, 'param value');
    }
    w.u8(pw.top_tier, 'top_tier').u32(pw.latency_ms, 'latency_ms');
    w.u32(pw.capacity, 'capacity').u32(pw.min_share_ppm, 'min_share_ppm');
    w.u8(pw.hops.length, 'hops');
    for (const hop of pw.hops) w.raw(hop.key, 'hop key', 32).u8(hop.place, 'place');
  }
  return w.finish();
}

/**
 * §3.4: the signed policy's bytes, signed by `secretKey`, whose public key must be `signer`.
 * Its rules are checked first (the refusal is thrown) unless `check` is false.
 */
export const signPolicy = recordSigner(
  'WSP1',
  encodePolicy,
  readPolicy,
  (p: PolicyFields) => p.signer,
);

/** §3.4: strict verification of a policy's signature by its `signer` (`bad_key`, `bad_signature`). */
export const verifyPolicySignature = signatureVerifier('WSP1', (p: Policy) => p.signer);
