// The decision log in the tests: a signer, the integrator's loop without its timer, and a reader
// that verifies what a server serves under `/log/` with `@wai-steering/tlog` alone.
import {
  type Checkpoint,
  ed25519Signer,
  openCheckpoint,
  readEntry,
  SIGNATURE_TYPE,
  type Tile,
  TileHashReader,
  tilePath,
  type VerifierKey,
  verifierKey,
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

export { tilePath };
