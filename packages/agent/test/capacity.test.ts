import { createServer, type Server } from 'node:http';
import { toHex } from '@wai-steering/wire';
import { nodeBackend } from '@wai-steering/wire/node';
import { base64url, compactVerify, importJWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CapacityReporter } from '../src/capacity.js';

const secretKey = new Uint8Array(32).fill(9);
const key = { secretKey, publicKey: nodeBackend.publicKey(secretKey) };
const roomId = new Uint8Array(32).fill(3);

describe('CapacityReporter', () => {
  const posts: { path: string; type: string; body: string }[] = [];
  let server: Server;
  let base: string;
  let status = 201;
  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => {
        body += c;
      });
      req.on('end', () => {
        posts.push({ path: req.url ?? '', type: String(req.headers['content-type']), body });
        res.writeHead(status, { 'content-type': 'application/json' }).end('{"reason":"x"}');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('reports slots less the sessions, never below 0, signed by the hop with its kid', async () => {
    const lines: Record<string, unknown>[] = [];
    const r = new CapacityReporter({
      key,
      roomId,
      pathway: 'cdn-b',
      slots: 100,
      expiresUs: 6_000_000n,
      windowUs: 2_000_000n,
      computingMs: 7,
      networkMs: 12,
      servers: [base],
      log: (l) => lines.push(l),
    });
    expect(r.gasOf(30)).toBe(70);
    expect(r.gasOf(130)).toBe(0);
    await r.report(1_800_000_000_000_000n, 30);
    expect(posts).toHaveLength(1);
    expect(posts[0]).toMatchObject({ path: '/capacity', type: 'application/jose' });
    const verifyKey = await importJWK(
      { kty: 'OKP', crv: 'Ed25519', x: base64url.encode(key.publicKey) },
      'EdDSA',
    );
    const { payload, protectedHeader } = await compactVerify(posts[0]!.body, verifyKey);
    expect(protectedHeader).toEqual({ alg: 'EdDSA', kid: toHex(key.publicKey) });
    expect(JSON.parse(new TextDecoder().decode(payload))).toEqual({
      room: toHex(roomId),
      pathway: 'cdn-b',
      gas: 70,
      computing_ms: 7,
      network_ms: 12,
      t: '1800000000000000',
      expires: '1800000006000000',
      window_us: '2000000',
    });
    // A refusal is logged once per server and reason, however often it recurs.
    status = 400;
    await r.report(1_800_000_002_000_000n, 10);
    await r.report(1_800_000_004_000_000n, 10);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ msg: 'capacity report not taken', status: 400 });
  });
});
