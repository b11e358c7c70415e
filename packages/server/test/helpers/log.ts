// The decision log in the tests: a signer, the integrator's loop without its timer, and a reader
// that verifies what a server serves under `/log/` with `@wai-steering/tlog` alone.
import {
  type Checkpoint,
  ed25519Signer,
  encodeEntry,
  leafHash,
  openCheckpoint,
  readEntry,
  SIGNATURE_TYPE,
  type Tile,
  TileHashReader,
  type VerifierKey,
  verifierKey,
  verifyInclusion,
  verifyTlogProof,
} from '@wai-steering/tlog';
import { nodeBackend } from '@wai-steering/wire/node';
import { type LogSigning, planIntegration } from '../../src/log/plan.js';
import type { SteeringStore, StoredCheckpoint } from '../../src/store/store.js';

/** The tests' log key and origin. */
export const TEST_ORIGIN = 'log.test.example/log';
export const TEST_LOG_SECRET = new Uint8Array(32).fill(5);

export function testSigning(origin = TEST_ORIGIN): LogSigning & { readonly key: VerifierKey } {
  const signer = ed25519Signer(origin, TEST_LOG_SECRET, nodeBackend);
  return { origin, signer, backend: nodeBackend, key: signer.verifierKey };
}

/**
 * Integrates everything pending, as the integrator's run does (without its lease): the
 * checkpoints signed, in order.
 */
export async function integrateAll(
  store: SteeringStore,
  signing: LogSigning = testSigning(),
  options: { maxEntries?: number; issued?: () => bigint } = {},
): Promise<StoredCheckpoint[]> {
  const signed: StoredCheckpoint[] = [];
  for (let i = 0; i < 10_000; i++) {
    const issued = options.issued?.() ?? BigInt(Date.now()) * 1000n;
    const done = await store.integrateLog((input) => planIntegration(input, signing, issued), {
      maxEntries: options.maxEntries ?? 100_000,
      maxDelayMs: 2000,
    });
    if (done === undefined) return signed;
    if (done.checkpoint !== undefined) signed.push(done.checkpoint);
    if (!done.more && done.checkpoint !== undefined) return signed;
  }
  throw new Error('integrateAll: the log never settled');
}

/** The log's vkey from the steering key's public key, as a verifier would make it. */
export function logKeyOf(origin: string, publicKey: Uint8Array): VerifierKey {
  return verifierKey(origin, SIGNATURE_TYPE.ed25519, publicKey, nodeBackend);
}

/** A log read from a server's `/log/` with `@wai-steering/tlog`: every step checked. */
export interface ServedLog {
  readonly text: string;
  readonly checkpoint: Checkpoint;
  /** Its tree read from the served tiles (each checked against the root). */
  readonly reader: TileHashReader;
  /** The served tiles fetched, by path. */
  readonly fetched: Map<string, Uint8Array>;
}

/** GET `<base>/log/<path>`: the bytes, `undefined` on 404, a throw on anything else. */
export async function fetchLogFile(base: string, path: string): Promise<Uint8Array | undefined> {
  const res = await fetch(`${base}/log/${path}`);
  if (res.status === 404) {
    await res.arrayBuffer();
    return undefined;
  }
  if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
  return new Uint8Array(await res.arrayBuffer());
}

/** The served checkpoint, opened with the log's key, and a tile reader of its tree. */
export async function readServedLog(
  base: string,
  origin: string,
  key: VerifierKey,
  witnessKeys: readonly VerifierKey[] = [],
): Promise<ServedLog> {
  const res = await fetch(`${base}/log/checkpoint`);
  if (res.status !== 200) throw new Error(`GET /log/checkpoint: ${res.status}`);
  const text = await res.text();
  const opened = openCheckpoint(text, {
    origin,
    logKeys: [key],
    witnessKeys,
    backend: nodeBackend,
  });
  if (!opened.ok)
    throw new Error(`the served checkpoint does not verify: ${opened.refusal.message}`);
  const fetched = new Map<string, Uint8Array>();
  const reader = new TileHashReader(
    { size: opened.value.checkpoint.size, root: opened.value.checkpoint.root },
    async (_tile: Tile, path: string) => {
      const bytes = await fetchLogFile(base, path);
      if (bytes !== undefined) fetched.set(path, bytes);
      return bytes;
    },
    { backend: nodeBackend },
  );
  return { text, checkpoint: opened.value.checkpoint, reader, fetched };
}

/** Every entry of a served log, read from its bundles (each checked against the tiles). */
export async function servedEntries(log: ServedLog): Promise<{ t: bigint; digest: string }[]> {
  const out: { t: bigint; digest: string }[] = [];
  const bundles = (log.checkpoint.size + 255n) / 256n;
  for (let i = 0n; i < bundles; i++) {
    for (const e of await log.reader.entries(i)) {
      const read = readEntry(e);
      if (!read.ok) throw new Error(read.refusal.message);
      out.push({ t: read.value.t, digest: Buffer.from(read.value.digest).toString('hex') });
    }
  }
  return out;
}

/**
 * Waits for `what` to hold, asking every 20 ms, at most `ceilingMs` (a bound on a busy machine,
 * never a wait of its own: it returns as soon as the condition holds).
 */
export async function until(
  what: () => Promise<boolean> | boolean,
  ceilingMs = 60_000,
  why = 'the condition',
): Promise<void> {
  const deadline = Date.now() + ceilingMs;
  for (;;) {
    if (await what()) return;
    if (Date.now() > deadline) throw new Error(`${why} did not hold within ${ceilingMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * The served log checked against the decisions a test saw served: each is in it exactly once,
 * its inclusion proof computed from the served tiles verifies, and so does the one
 * `/log/proof/<digest>` gives (tlog-proof, with the log's key). The entries, in the log's order.
 */
export async function checkServedLog(
  base: string,
  origin: string,
  key: VerifierKey,
  digests: readonly string[],
): Promise<{ log: ServedLog; entries: { t: bigint; digest: string }[] }> {
  const log = await readServedLog(base, origin, key);
  const entries = await servedEntries(log);
  const at = new Map<string, number>();
  entries.forEach((e, i) => {
    if (at.has(e.digest)) throw new Error(`${e.digest} is in the log twice`);
    at.set(e.digest, i);
  });
  for (const digest of digests) {
    const index = at.get(digest);
    if (index === undefined)
      throw new Error(`${digest} is not in the log of size ${log.checkpoint.size}`);
    const e = entries[index]!;
    const entry = encodeEntry({ t: e.t, digest: Buffer.from(e.digest, 'hex') });
    const inclusion = await log.reader.inclusionProof(BigInt(index));
    const refused = verifyInclusion({
      leafHash: leafHash(entry),
      index: BigInt(index),
      size: log.checkpoint.size,
      proof: inclusion,
      root: log.checkpoint.root,
    });
    if (refused !== undefined) throw new Error(`${digest}: ${refused.message}`);
    const res = await fetch(`${base}/log/proof/${digest}`);
    if (res.status !== 200) throw new Error(`/log/proof/${digest}: ${res.status}`);
    const proof = verifyTlogProof(await res.text(), { entry, origin, logKeys: [key] });
    if (!proof.ok) throw new Error(`/log/proof/${digest}: ${proof.refusal.message}`);
    if (proof.value.index !== BigInt(index))
      throw new Error(`/log/proof/${digest}: index ${proof.value.index}, not ${index}`);
  }
  return { log, entries };
}
