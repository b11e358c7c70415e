/**
 * Verification from the network alone: given a steering URL (whose manifest names its decision
 * in `science.transaction.wai-decision`, §8.4), a decision URI, or the bytes of a manifest a
 * player received, fetch the decision, then from the decision URI's origin the policy
 * (`/policies/<hex>`), the room's descriptor and key log head (`/rooms/<room>/descriptor`,
 * `/rooms/<room>/key-log`) and every record the decision names (`/records/<hex>`), and verify
 * (§9.1) with the manifest when there is one.
 *
 * Portable: the global `fetch` (or one given), no Node module. A verifier that knows the room it
 * trusts pins its id: the descriptor is then fetched by that id and must have it, so that a
 * decision is never verified against a room the server chose.
 */

import { readStrictJson } from '@wai-steering/config-text';
import {
  type CryptoBackend,
  parseHex,
  readDecision,
  readRoom,
  roomIdOf,
  toHex,
} from '@wai-steering/wire';
import type { VerifierCache } from './cache.js';
import type { Outcome } from './outcome.js';
import { verifyDecision } from './verify.js';

/** The part of a `fetch` response read here. */
export interface FetchResponse {
  readonly ok: boolean;
  readonly status: number;
  readonly headers: { get(name: string): string | null };
  arrayBuffer(): Promise<ArrayBuffer>;
}

/** A `fetch` (WHATWG): the global one by default. */
export type FetchFunction = (
  url: string,
  init: { redirect: 'follow'; signal?: unknown; headers: Record<string, string> },
) => Promise<FetchResponse>;

/** Options of {@link fetchAndVerify}. */
export interface FetchAndVerifyOptions {
  /** The fetch to use; the global `fetch` by default. */
  readonly fetch?: FetchFunction;
  readonly backend?: CryptoBackend;
  readonly cache?: VerifierCache;
  /**
   * The id of the room trusted (64 hexadecimal digits, or its 32 bytes): the descriptor is
   * fetched by it and must have it ({@link RoomPinError} otherwise), and a decision of another
   * room is refused (§9.1 step 1). Without it, the room the decision names is fetched.
   */
  readonly roomId?: string | Uint8Array;
  /** Per request, ms (default 10 000). */
  readonly timeoutMs?: number;
  /** Requests in flight at once when fetching records (default 8). */
  readonly concurrency?: number;
}

/** What to verify: a steering URL or decision URI, or a manifest's bytes (`base` resolves it). */
export type VerifySource = string | { readonly manifest: Uint8Array; readonly base?: string };

/** What was fetched, what was trusted, and the outcome. */
export interface NetworkVerification {
  /** Companion C8's outcome. */
  readonly outcome: Outcome;
  /** The decision URI verified. */
  readonly decisionUri: string;
  /** The decision's bytes as fetched. */
  readonly decision: Uint8Array;
  /** The manifest's text, when a steering URL or a manifest was given. */
  readonly manifest: string | null;
  /** Named records the server did not have (the outcome is then `record_missing`). */
  readonly missing: readonly string[];
  /** The id of the room verified against (hex): the pinned one, or the one the decision names. */
  readonly roomId: string;
  /** The room's authority key (hex) as the descriptor fetched states it; `null` if it did not read. */
  readonly authority: string | null;
  /** The policy's bytes as fetched (its `basis` names the unit of D, §3.1). */
  readonly policy: Uint8Array;
  /** The records the decision names that the server served (why a pathway has no figure). */
  readonly records: readonly Uint8Array[];
}

/** A fetch that failed: the network, an HTTP status, or a body that is not what was expected. */
export class FetchError extends Error {
  constructor(
    message: string,
    readonly url: string,
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'FetchError';
  }
}

/**
 * The server serves another room than the pinned one: for the pinned room id it served a
 * descriptor of another room, or it has no descriptor of the pinned room and its decision names
 * another (`served`: that room).
 */
export class RoomPinError extends FetchError {
  constructor(
    url: string,
    readonly pinned: string,
    readonly served: string,
    message = `${url}: the descriptor served is of room ${served}, not the pinned room ${pinned}`,
  ) {
    super(message, url);
    this.name = 'RoomPinError';
  }
}

const MEMBER = 'science.transaction.wai-decision';
const WSD1 = [0x57, 0x53, 0x44, 0x31];

/** The code and address of a network failure (`ECONNREFUSED 127.0.0.1:9`), when it has them. */
function causeOf(e: unknown): string | undefined {
  const cause = (e as { cause?: unknown } | null)?.cause as
    | { code?: unknown; address?: unknown; port?: unknown; message?: unknown }
    | undefined;
  if (cause === undefined || cause === null) return undefined;
  if (typeof cause.code === 'string') {
    const at =
      typeof cause.address === 'string'
        ? ` ${cause.address}${typeof cause.port === 'number' ? `:${cause.port}` : ''}`
        : '';
    return `${cause.code}${at}`;
  }
  return typeof cause.message === 'string' ? cause.message : undefined;
}

function defaultFetch(): FetchFunction {
  const f = (globalThis as { fetch?: FetchFunction }).fetch;
  if (f === undefined) throw new TypeError('fetchAndVerify: no global fetch; pass options.fetch');
  return f;
}

function timeoutSignal(ms: number): unknown {
  const A = (globalThis as { AbortSignal?: { timeout?: (ms: number) => unknown } }).AbortSignal;
  return A?.timeout?.(ms);
}

async function get(
  url: string,
  o: FetchAndVerifyOptions,
  allow404 = false,
): Promise<{ bytes: Uint8Array; type: string } | null> {
  const f = o.fetch ?? defaultFetch();
  let res: FetchResponse;
  try {
    const signal = timeoutSignal(o.timeoutMs ?? 10_000);
    res = await f(url, {
      redirect: 'follow',
      ...(signal === undefined ? {} : { signal }),
      headers: { accept: '*/*' },
    });
  } catch (e) {
    const cause = causeOf(e);
    const message = `GET ${url}: ${(e as Error).message}${cause === undefined ? '' : ` (${cause})`}`;
    throw new FetchError(message, url, undefined, { cause: e });
  }
  if (allow404 && res.status === 404) {
    await res.arrayBuffer().catch(() => undefined);
    return null;
  }
  if (!res.ok) {
    await res.arrayBuffer().catch(() => undefined);
    throw new FetchError(`GET ${url}: HTTP ${res.status}`, url, res.status);
  }
  const bytes = new Uint8Array(await res.arrayBuffer());
  return { bytes, type: res.headers.get('content-type') ?? '' };
}

function isDecision(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && WSD1.every((b, i) => bytes[i] === b);
}

function pinOf(roomId: string | Uint8Array | undefined): string | undefined {
  if (roomId === undefined) return undefined;
  if (roomId instanceof Uint8Array) {
    if (roomId.length !== 32) throw new TypeError('fetchAndVerify: a room id is 32 bytes');
    return toHex(roomId);
  }
  const bytes = typeof roomId === 'string' ? parseHex(roomId) : undefined;
  if (bytes === undefined || bytes.length !== 32) {
    throw new TypeError('fetchAndVerify: a room id is 64 hexadecimal digits');
  }
  return toHex(bytes);
}

/** The decision URI a manifest names, resolved against `base`. */
function decisionUriOf(manifest: string, base: string | undefined, where: string): string {
  // Strictly: a manifest naming a member twice tells a player one decision and this another.
  const read = readStrictJson(manifest);
  if (!read.ok) {
    throw new FetchError(
      read.problem.startsWith('not JSON')
        ? `${where}: neither a decision (WSD1) nor a steering manifest (JSON)`
        : `${where}: a steering manifest that does not read: ${read.problem}`,
      where,
    );
  }
  const parsed = read.value;
  const member =
    typeof parsed === 'object' && parsed !== null
      ? (parsed as Record<string, unknown>)[MEMBER]
      : undefined;
  if (typeof member !== 'string') {
    throw new FetchError(`${where}: the manifest has no "${MEMBER}" member`, where);
  }
  try {
    return new URL(member, base).href;
  } catch {
    throw new FetchError(`the manifest's "${MEMBER}" is not a URI: ${member}`, where);
  }
}

/**
 * Fetches everything a verifier needs from the server that served the decision, verifies, and
 * returns companion C8's outcome with what was fetched and trusted. Throws a {@link FetchError}
 * when something cannot be fetched (a record the server does not have is not an error: the
 * outcome then says `record_missing`), a {@link RoomPinError} when the descriptor served for a
 * pinned room id is of another room, and a `TypeError` for a malformed pin.
 */
export async function fetchAndVerify(
  source: VerifySource,
  options: FetchAndVerifyOptions = {},
): Promise<NetworkVerification> {
  const pinned = pinOf(options.roomId);
  let decisionUri: string;
  let decision: Uint8Array;
  let manifestBytes: Uint8Array | null = null;
  if (typeof source === 'string') {
    let first: URL;
    try {
      first = new URL(source);
    } catch {
      throw new FetchError(`not an absolute URL: ${source}`, source);
    }
    const got = (await get(first.href, options))!;
    if (isDecision(got.bytes)) {
      decisionUri = first.href;
      decision = got.bytes;
    } else {
      manifestBytes = got.bytes;
      decisionUri = decisionUriOf(decode(got.bytes), first.href, `GET ${source}`);
      decision = (await get(decisionUri, options))!.bytes;
    }
  } else {
    if (!(source?.manifest instanceof Uint8Array)) {
      throw new TypeError('fetchAndVerify: a source is a URL or { manifest: Uint8Array }');
    }
    manifestBytes = source.manifest;
    decisionUri = decisionUriOf(decode(source.manifest), source.base, 'the manifest');
    decision = (await get(decisionUri, options))!.bytes;
  }
  const origin = new URL(decisionUri).origin;

  // The room, the policy and the named digests, from the decision (its raw offsets when it does
  // not read, so that the verifier reports why, §7.1: room at 5, policy at 69).
  const read = readDecision(decision);
  let named: Uint8Array[] = [];
  let roomHex: string;
  let policyHex: string;
  if (read.ok) {
    roomHex = toHex(read.value.room);
    policyHex = toHex(read.value.policy);
    named = read.value.pathways.flatMap((p) => p.evidence);
  } else if (decision.length >= 101) {
    roomHex = toHex(decision.subarray(5, 37));
    policyHex = toHex(decision.subarray(69, 101));
  } else {
    throw new FetchError(
      `${decisionUri}: the decision is too short to name its room and policy (${read.refusal.reason})`,
      decisionUri,
    );
  }
  const trusted = pinned ?? roomHex;
  const descriptorUrl = `${origin}/rooms/${trusted}/descriptor`;
  // A decision of another room than the pinned one: a server without the pinned room's
  // descriptor serves that other room, which is said as such rather than as a 404.
  const elsewhere = pinned !== undefined && pinned !== roomHex;
  const [policy, room, keyLog] = await Promise.all([
    get(`${origin}/policies/${policyHex}`, options),
    get(descriptorUrl, options, elsewhere),
    get(`${origin}/rooms/${trusted}/key-log`, options, true),
  ]);
  if (room === null) {
    throw new RoomPinError(
      descriptorUrl,
      pinned!,
      roomHex,
      `this server serves room ${roomHex}, not ${pinned}: its decision is of room ${roomHex}, and it has no room ${pinned} (GET ${descriptorUrl}: HTTP 404)`,
    );
  }
  const roomRead = readRoom(room!.bytes);
  const authority = roomRead.ok ? toHex(roomRead.value.authority) : null;
  if (pinned !== undefined) {
    // The id is over the descriptor's bytes before its signature (C1): a descriptor that does not
    // read has no id to compare, and is refused by the verifier at step 1 below.
    const served = roomRead.ok ? toHex(roomIdOf(roomRead.value, options.backend)) : undefined;
    if (served !== undefined && served !== pinned) {
      throw new RoomPinError(descriptorUrl, pinned, served);
    }
  }
  const records: Uint8Array[] = [];
  const missing: string[] = [];
  const hexes = [...new Set(named.map(toHex))];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < hexes.length) {
      const hex = hexes[next++]!;
      const r = await get(`${origin}/records/${hex}`, options, true);
      if (r === null) missing.push(hex);
      else records.push(r.bytes);
    }
  };
  await Promise.all(
    Array.from({ length: Math.min(options.concurrency ?? 8, hexes.length) }, () => worker()),
  );
  const outcome = verifyDecision(
    {
      room: room!.bytes,
      keyLog: keyLog === null ? null : keyLog.bytes,
      policy: policy!.bytes,
      decision,
      records,
      // The manifest's exact bytes (§9.1 step 7 compares bytes).
      ...(manifestBytes === null ? {} : { manifest: manifestBytes }),
    },
    {
      ...(options.backend === undefined ? {} : { backend: options.backend }),
      ...(options.cache === undefined ? {} : { cache: options.cache }),
    },
  );
  return {
    outcome,
    decisionUri,
    decision,
    manifest: manifestBytes === null ? null : decode(manifestBytes),
    missing,
    roomId: trusted,
    authority,
    policy: policy!.bytes,
    records,
  };
}

function decode(bytes: Uint8Array): string {
  return new TextDecoder('utf-8', { fatal: false }).decode(bytes);
}
