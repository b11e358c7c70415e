/**
 * Fetching what a verifier needs from the server that served a steering URL or a decision URI,
 * for the page: the steering manifest (for a steering URL), the decision, then from the decision
 * URI's origin the policy, the room descriptor, its key log head and every record named.
 */
import { readDecision, toHex } from '@wai-steering/wire';

/** What was fetched, as bytes. */
export interface Fetched {
  readonly decisionUri: string;
  readonly manifest: Uint8Array | null;
  readonly decision: Uint8Array;
  readonly policy: Uint8Array;
  readonly room: Uint8Array;
  readonly keyLog: Uint8Array | null;
  readonly records: Uint8Array[];
  /** Named records the server did not have. */
  readonly missing: string[];
}

/** A fetch that failed: the network, an HTTP status, or a body that is not what was expected. */
export class FetchError extends Error {
  constructor(
    message: string,
    readonly url: string,
  ) {
    super(message);
    this.name = 'FetchError';
  }
}

const MEMBER = 'science.transaction.wai-decision';

async function get(url: string, allow404 = false): Promise<Uint8Array | null> {
  let res: Response;
  try {
    res = await fetch(url, { redirect: 'follow', signal: AbortSignal.timeout(10_000) });
  } catch (e) {
    throw new FetchError(`GET ${url}: ${(e as Error).message}`, url);
  }
  if (allow404 && res.status === 404) return null;
  if (!res.ok) throw new FetchError(`GET ${url}: HTTP ${res.status}`, url);
  return new Uint8Array(await res.arrayBuffer());
}

function isDecision(b: Uint8Array): boolean {
  return b.length >= 4 && b[0] === 0x57 && b[1] === 0x53 && b[2] === 0x44 && b[3] === 0x31;
}

/** Fetches the inputs of §9.1 for a steering URL or a decision URI. */
export async function fetchInputs(
  url: string,
  onProgress?: (text: string) => void,
): Promise<Fetched> {
  let first: URL;
  try {
    first = new URL(url);
  } catch {
    throw new FetchError(`not an absolute URL: ${url}`, url);
  }
  onProgress?.('fetching…');
  const got = (await get(first.href))!;
  let decisionUri = first.href;
  let decision = got;
  let manifest: Uint8Array | null = null;
  if (!isDecision(got)) {
    manifest = got;
    let parsed: unknown;
    try {
      parsed = JSON.parse(new TextDecoder().decode(got));
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
    if (typeof member !== 'string') throw new FetchError(`the manifest has no "${MEMBER}"`, url);
    decisionUri = new URL(member, first).href;
    decision = (await get(decisionUri))!;
  }
  const origin = new URL(decisionUri).origin;
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
      `${decisionUri}: the decision is too short to name its room and policy`,
      decisionUri,
    );
  }
  onProgress?.(`fetching the policy, the room and ${named.length} records…`);
  const [policy, room, keyLog] = await Promise.all([
    get(`${origin}/policies/${policyHex}`),
    get(`${origin}/rooms/${roomHex}/descriptor`),
    get(`${origin}/rooms/${roomHex}/key-log`, true),
  ]);
  const hexes = [...new Set(named.map(toHex))];
  const records: Uint8Array[] = [];
  const missing: string[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < hexes.length) {
      const hex = hexes[next++]!;
      const r = await get(`${origin}/records/${hex}`, true);
      if (r === null) missing.push(hex);
      else records.push(r);
    }
  };
  await Promise.all(Array.from({ length: Math.min(8, hexes.length) }, () => worker()));
  return {
    decisionUri,
    manifest,
    decision,
    policy: policy!,
    room: room!,
    keyLog,
    records,
    missing,
  };
}
