// The decision log under `/log/` (C2SP tlog-tiles), from a running server on SQLite: what it
// serves verifies with `@wai-steering/tlog` alone, under the origin and the steering key.
import { gunzipSync } from 'node:zlib';
import {
  ed25519Signer,
  openCheckpoint,
  parseTlogProof,
  tilePath,
  verifyConsistency,
} from '@wai-steering/tlog';
import { nodeBackend } from '@wai-steering/wire/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/read.js';
import { setupDemo } from '../../src/demo/setup.js';
import { type RunningServer, startServer } from '../../src/server.js';
import {
  checkServedLog,
  fetchLogFile,
  integrateAll,
  logKeyOf,
  readServedLog,
  until,
} from '../helpers/log.js';
import { freePort, tempDir } from '../helpers/setup.js';

let server: RunningServer;
let origin: string;
let remove: () => void;
let steeringKey: Uint8Array;
let steeringSecret: Uint8Array;
const served: string[] = [];

async function steer(n: number): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const res = await fetch(`${server.url}/steer`);
    expect(res.status).toBe(200);
    const uri = ((await res.json()) as Record<string, string>)['science.transaction.wai-decision']!;
    out.push(uri.slice(-64));
  }
  served.push(...out);
  return out;
}

/** Waits for a checkpoint holding at least `size` entries. */
async function checkpointOf(size: number | bigint): Promise<string> {
  let text = '';
  await until(
    async () => {
      const res = await fetch(`${server.url}/log/checkpoint`);
      text = await res.text();
      return res.status === 200 && BigInt(text.split('\n')[1] ?? '0') >= BigInt(size);
    },
    60_000,
    `a checkpoint of ${size} entries`,
  );
  return text;
}

beforeAll(async () => {
  const t = tempDir('wai-log-routes-');
  remove = t.remove;
  const port = await freePort();
  const setup = setupDemo(t.dir, { port, periodMs: 2000, budgets: false });
  steeringKey = setup.steering.publicKey;
  steeringSecret = setup.steering.secretKey;
  const config = loadConfig(setup.configPath);
  server = await startServer({
    ...config,
    log: { origin: null, interval: 100, maxDelay: 1000, witnesses: [] },
  });
  origin = `127.0.0.1:${port}/log`;
});

afterAll(async () => {
  await server?.close();
  remove?.();
});

describe('the decision log under /log/', () => {
  it('has the public URL as its origin and the steering key as its key', () => {
    expect(server.log.origin).toBe(origin);
    expect(server.log.vkey).toBe(
      `${origin}+${server.log.vkey.split('+')[1]}+${Buffer.concat([Buffer.from([1]), Buffer.from(steeringKey)]).toString('base64')}`,
    );
    expect(server.log.verifierKey).toEqual(logKeyOf(origin, steeringKey));
  });

  it('serves a checkpoint signed by the steering key, every decision in it once, with proofs', async () => {
    const first = await steer(20);
    const text = await checkpointOf(20);
    const res = await fetch(`${server.url}/log/checkpoint`);
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('cache-control')).toBe('public, max-age=1');
    await res.text();
    const key = logKeyOf(origin, steeringKey);
    expect(openCheckpoint(text, { origin, logKeys: [key] }).ok).toBe(true);
    const { entries } = await checkServedLog(server.url, origin, key, first);
    expect(entries.map((e) => e.digest)).toEqual(first);
  });

  it('serves the tiles and bundles as tlog-tiles writes them, immutable, and proves consistency', async () => {
    const key = logKeyOf(origin, steeringKey);
    const before = await readServedLog(server.url, origin, key);
    // Past 256 entries: a full level-0 tile and bundle, and a partial level-1 tile.
    await steer(300);
    await checkpointOf(before.checkpoint.size + 300n);
    const after = await readServedLog(server.url, origin, key);
    expect(after.checkpoint.size).toBeGreaterThanOrEqual(320n);
    const proof = await after.reader.consistencyProof(before.checkpoint.size);
    expect(
      verifyConsistency({
        oldSize: before.checkpoint.size,
        newSize: after.checkpoint.size,
        oldRoot: before.checkpoint.root,
        newRoot: after.checkpoint.root,
        proof,
      }),
    ).toBeUndefined();
    await checkServedLog(server.url, origin, key, served);
    const full = await fetch(`${server.url}/log/tile/0/000`);
    expect(full.status).toBe(200);
    expect(full.headers.get('content-type')).toBe('application/octet-stream');
    expect(full.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(full.headers.get('access-control-allow-origin')).toBe('*');
    expect((await full.arrayBuffer()).byteLength).toBe(8192);
    const level1 = await fetchLogFile(server.url, tilePath({ level: 1, index: 0n, width: 1 }));
    expect(level1?.length).toBe(32);
    // A partial tile of a width the log has passed: the first hashes of the wider one.
    const partial = await fetchLogFile(server.url, 'tile/0/000.p/10');
    expect(
      Buffer.from(partial!).equals(
        Buffer.from(
          (after.fetched.get('tile/0/000') ??
            (await fetchLogFile(server.url, 'tile/0/000')))!.subarray(0, 320),
        ),
      ),
    ).toBe(true);
    // Entry bundles: big-endian u16 lengths, gzipped when the client takes it.
    const plain = await fetchLogFile(server.url, 'tile/entries/000');
    expect(plain?.length).toBe(256 * 42);
    expect(plain![0]).toBe(0);
    expect(plain![1]).toBe(40);
    const gz = await fetch(`${server.url}/log/tile/entries/000`, {
      headers: { 'accept-encoding': 'gzip' },
    });
    expect(gz.headers.get('content-encoding')).toBe('gzip');
    // fetch decompresses what it is told is gzip: the same bytes.
    expect(Buffer.from(await gz.arrayBuffer()).equals(Buffer.from(plain!))).toBe(true);
    const raw = await new Promise<Buffer>((resolve, reject) => {
      import('node:http').then(({ get }) =>
        get(
          `${server.url}/log/tile/entries/000`,
          { headers: { 'accept-encoding': 'gzip' } },
          (r) => {
            const chunks: Buffer[] = [];
            r.on('data', (c) => chunks.push(c));
            r.on('end', () => resolve(Buffer.concat(chunks)));
            r.on('error', reject);
          },
        ).on('error', reject),
      );
    });
    expect(gunzipSync(raw).equals(Buffer.from(plain!))).toBe(true);
  });

  it('answers 404 to a tile it does not have, and to paths tlog-tiles does not write', async () => {
    const size = (await readServedLog(server.url, origin, logKeyOf(origin, steeringKey))).checkpoint
      .size;
    for (const path of [
      'tile/0/x001/000', // beyond the log
      'tile/3/000', // no level-3 tile in a small log
      'tile/0/000.p/0',
      'tile/0/0',
      'tile/00/000',
      'tile/64/000',
      'tile/0/000.p/256',
      'tile/entries/x000/001',
      'tile/0/001.p/255',
    ]) {
      const res = await fetch(`${server.url}/log/${path}`);
      expect(res.status, path).toBe(404);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      await res.arrayBuffer();
    }
    expect(size).toBeGreaterThan(0n);
    const post = await fetch(`${server.url}/log/checkpoint`, { method: 'POST', body: 'x' });
    expect(post.status).toBe(405);
    await post.arrayBuffer();
  });

  it('proves a decision by its digest, and answers 404 with Retry-After until a checkpoint holds it', async () => {
    // Not a decision: 404 without Retry-After.
    const none = await fetch(`${server.url}/log/proof/${'ab'.repeat(32)}`);
    expect(none.status).toBe(404);
    expect(none.headers.get('retry-after')).toBeNull();
    await none.arrayBuffer();
    // Stop the integrator: a new decision waits, 404 with Retry-After, then is proved.
    await server.log.integrator.stop();
    const [digest] = await steer(1);
    const waiting = await fetch(`${server.url}/log/proof/${digest}`);
    expect(waiting.status).toBe(404);
    expect(waiting.headers.get('retry-after')).toBe('1');
    expect(((await waiting.json()) as { error: string }).error).toBe('not_logged_yet');
    // The integrator's work done by hand, with the steering key: the proof is served.
    await integrateAll(server.store, {
      origin,
      signer: ed25519Signer(origin, steeringSecret, nodeBackend),
      backend: nodeBackend,
    });
    await until(async () => {
      const res = await fetch(`${server.url}/log/proof/${digest}`);
      const body = await res.text();
      if (res.status !== 200) return false;
      expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      const proof = parseTlogProof(body);
      expect(proof.ok && body.startsWith('c2sp.org/tlog-proof@v1\nindex ')).toBe(true);
      return true;
    });
    await checkServedLog(server.url, origin, logKeyOf(origin, steeringKey), [digest!]);
  });
});
