/**
 * Verification from the network alone (`wai-steer verify --url`): given a steering URL (whose
 * manifest names its decision in `science.transaction.wai-decision`, §8.4) or a decision URI,
 * fetch the decision, then from the decision URI's origin the policy (`/policies/<hex>`), the
 * room's descriptor and key log head (`/rooms/<room>/descriptor`, `/rooms/<room>/key-log`) and
 * every record the decision names (`/records/<hex>`), and verify (§9.1) with the manifest when one
 * was fetched.
 */
import { type Outcome, type VerifierCache, verifyDecision } from '@wai-steering/verifier';
import { type CryptoBackend, readDecision, readRoom, roomIdOf, toHex } from '@wai-steering/wire';

/** Options of {@link fetchAndVerify}. */
export interface FetchAndVerifyOptions {
  /** The fetch to use; the global `fetch` by default. */
  readonly fetch?: typeof fetch;
  readonly backend?: CryptoBackend;
  readonly cache?: VerifierCache;
  /** Per request, ms (default 10 000). */
  readonly timeoutMs?: number;
  /** Requests in flight at once when fetching records (default 8). */
  readonly concurrency?: number;
  /**
   * The room the verification trusts: a decision of another room, or a descriptor that is not
   * this room's, is a {@link FetchError} (never a verification against the room the server chose).
   */
  readonly roomId?: Uint8Array;
}

/** What was fetched and the outcome. */
export interface FetchedVerification {
  readonly outcome: Outcome;
  /** The decision URI verified. */
  readonly decisionUri: string;
  /** The manifest, when the URL given was a steering URL. */
  readonly manifest: string | null;
  /** Named records the server did not have (the outcome is then `record_missing`). */
  readonly missing: readonly string[];
  /** The room id trusted (hex): the decision's, or the one pinned. */
  readonly room: string;
  /** The room descriptor's authority (hex), when the descriptor reads. */
  readonly authority: string | null;
}

/** A fetch that failed: the network, an HTTP status, or a body that is not what was expected. */
export class FetchError extends Error {
  constructor(
    message: string,
    readonly url: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'FetchError';
  }
}

const MEMBER = 'science.transaction.wai-decision';
const WSD1 = [0x57, 0x53, 0x44, 0x31];

async function get(
  url: string,
  o: FetchAndVerifyOptions,
  allow404 = false,
): Promise<{ bytes: Uint8Array; type: string } | null> {
  const f = o.fetch ?? fetch;
  let res: Response;
  try {
    res = await f(url, {
      redirect: 'follow',
      signal: AbortSignal.timeout(o.timeoutMs ?? 10_000),
      headers: { accept: '*/*' },
    });
  } catch (e) {
    throw new FetchError(`GET ${url}: ${(e as Error).message}`, url);
  }
  if (allow404 && res.status === 404) {
    await res.arrayBuffer().catch(() => undefined);
    return null;
  }
  if (!res.ok) {
    throw new FetchError(`GET ${url}: HTTP ${res.status}`, url, res.status);
  }
  const bytes = new Uint8Array(await res.arrayBuffer());
  return { bytes, type: res.headers.get('content-type') ?? '' };
}

function isDecision(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && WSD1.every((b, i) => bytes[i] === b);
}

/**
 * Fetches everything a verifier needs from the server that served `url`, verifies, and returns
 * the companion C8 outcome with what was fetched. Throws a {@link FetchError} when something
 * cannot be fetched (a record the server does not have is not an error: the outcome then says
 * `record_missing`).
 */
export async function fetchAndVerifyDetailed(
  url: string,
  options: FetchAndVerifyOptions = {},
): Promise<FetchedVerification> {
  let first: URL;
  try {
    first = new URL(url);
  } catch {
    throw new FetchError(`not an absolute URL: ${url}`, url);
  }
  const got = (await get(first.href, options))!;
  let decisionUri: string;
  let decision: Uint8Array;
  let manifest: string | null = null;
  let manifestBytes: Uint8Array | null = null;
  if (isDecision(got.bytes)) {
    decisionUri = first.href;
    decision = got.bytes;
  } else {
    manifestBytes = got.bytes;
    manifest = new TextDecoder('utf-8', { fatal: false }).decode(got.bytes);
    let parsed: unknown;
    try {
      parsed = JSON.parse(manifest);
    } catch {
      throw new FetchError(
        `GET ${url}: neither a decision (WSD1) nor a steering manifest (JSON)`,
        url,
      );
    }
    const member =
      typeof parsed === 'object' && parsed !== null
        ? (parsed as Record<string, unknown>)[MEMBER]
        : undefined;
    if (typeof member !== 'string') {
      throw new FetchError(`GET ${url}: the manifest has no "${MEMBER}" member`, url);
    }
    try {
      decisionUri = new URL(member, first).href;
    } catch {
      throw new FetchError(`the manifest's "${MEMBER}" is not a URI: ${member}`, url);
    }
    decision = (await get(decisionUri, options))!.bytes;
  }
  const origin = new URL(decisionUri).origin;

  // The room, the policy and the named digests, from the decision (its raw offsets when it does
  // not read, so that the verifier reports why, §7.1: room at 5, policy at 69).
  const read = readDecision(decision);
  let roomHex: string;
  let policyHex: string;
  let named: Uint8Array[] = [];
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
  if (options.roomId !== undefined && roomHex !== toHex(options.roomId)) {
    throw new FetchError(
      `${decisionUri}: the decision is of the room ${roomHex}, not the room ${toHex(options.roomId)} given`,
      decisionUri,
    );
  }
  const [policy, room, keyLog] = await Promise.all([
    get(`${origin}/policies/${policyHex}`, options),
    get(`${origin}/rooms/${roomHex}/descriptor`, options),
    get(`${origin}/rooms/${roomHex}/key-log`, options, true),
  ]);
  const descriptor = readRoom(room!.bytes);
  const authority = descriptor.ok ? toHex(descriptor.value.authority) : null;
  if (options.roomId !== undefined) {
    const id = descriptor.ok ? toHex(roomIdOf(descriptor.value, options.backend)) : null;
    if (id !== roomHex) {
      throw new FetchError(
        `${origin}/rooms/${roomHex}/descriptor: not the descriptor of the room ${roomHex}`,
        `${origin}/rooms/${roomHex}/descriptor`,
      );
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
  return { outcome, decisionUri, manifest, missing, room: roomHex, authority };
}

/**
 * Fetches and verifies the decision of a steering URL or a decision URI (see
 * {@link fetchAndVerifyDetailed}); the companion C8 outcome.
 */
export async function fetchAndVerify(
  url: string,
  options: FetchAndVerifyOptions = {},
): Promise<Outcome> {
  return (await fetchAndVerifyDetailed(url, options)).outcome;
}
