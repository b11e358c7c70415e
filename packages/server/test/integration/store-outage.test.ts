/**
 * A PostgreSQL outage under load, every component real: the cluster stopped at once
 * (`pg_ctl stop -m immediate`) while the server steers, ingests and takes capacity reports, then
 * started again. Every path that writes or reads the store answers `503 store_unavailable` with
 * `Retry-After` (never a 500, never a stack trace), health turns 503 with its causes, each cause
 * is logged once down and once recovered, and the server recovers by itself.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { jwkToKeyPair, signPolicy, toHex } from '@wai-steering/wire';
import { nodeBackend } from '@wai-steering/wire/node';
import { base64url, CompactSign, importJWK } from 'jose';
import { afterAll, describe, expect, it } from 'vitest';
import { setupDemo } from '../../src/demo/setup.js';
import { HopSimulator } from '../../src/demo/simulator.js';
import { type Child, exited, spawnChild } from '../helpers/child.js';
import { type PgCluster, startPostgres } from '../helpers/postgres.js';
import { freePort, tempDir } from '../helpers/setup.js';

const TOKEN = 'a'.repeat(32);

/** Polls `check` until it holds; at most `tries` polls of `everyMs` (a generous ceiling). */
async function until(what: string, check: () => Promise<boolean>, tries = 600, everyMs = 100) {
  for (let i = 0; i < tries; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`${what}: not within ${(tries * everyMs) / 1000} s`);
}

describe('a PostgreSQL outage under load', () => {
  const t = tempDir('wai-outage-');
  let cluster: PgCluster | undefined;
  let child: Child | undefined;
  afterAll(async () => {
    if (child !== undefined && child.proc.exitCode === null && child.proc.signalCode === null) {
      child.proc.kill('SIGKILL');
      await exited(child.proc);
    }
    await cluster?.stop();
    t.remove();
  });

  it('answers 503 store_unavailable on every path, logs each cause twice, and recovers by itself', async () => {
    cluster = await startPostgres();
    const url = await cluster.createDatabase('outage');
    const port = await freePort();
    const setup = setupDemo(t.dir, { port, periodMs: 2000, budgets: false });
    const base = JSON.parse(readFileSync(setup.configPath, 'utf8'));
    const configPath = join(t.dir, 'config-pg.json');
    writeFileSync(
      configPath,
      JSON.stringify({
        ...base,
        store: { url },
        live: { pathways: ['cdn-b'] },
        admin: { token: TOKEN },
        instances: { heartbeat: '250ms', drop_after: '1s' },
      }),
    );
    child = await spawnChild(configPath);
    const server = child.url;
    const clock = () => BigInt(Date.now()) * 1000n;
    const sim = new HopSimulator({
      policy: setup.policy,
      roomId: setup.roomId,
      hops: setup.hops,
      base: server,
      clock,
      history: 4,
    });
    await sim.start();

    // Load: steering requests of HLS clients (answered 503 while the store is out; any other
    // client 429, docs/players.md) from 8 clients until stopped, their statuses counted.
    const statuses = new Map<number, number>();
    let stop = false;
    const loops = Array.from({ length: 8 }, async () => {
      while (!stop) {
        try {
          const res = await fetch(`${server}/steer?_HLS_throughput=5000000`);
          await res.arrayBuffer();
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        } catch {
          statuses.set(0, (statuses.get(0) ?? 0) + 1);
        }
      }
    });
    const count = (s: number) => statuses.get(s) ?? 0;
    await until('steering under load', async () => count(200) >= 50);
    const first = await fetch(`${server}/steer`);
    const decisionUri = ((await first.json()) as Record<string, string>)[
      'science.transaction.wai-decision'
    ]!;
    const digest = decisionUri.slice(-64);
    const health = async () => (await fetch(`${server}/healthz`)).status;
    expect(await health()).toBe(200);

    await cluster.halt();
    await until('health 503', async () => (await health()) === 503);
    // Under load for a while: at least 200 steering requests answered meanwhile.
    const before = count(503);
    await until('load during the outage', async () => count(503) >= before + 200);

    // Every path that writes or reads the store, while it is down.
    const unavailable = async (res: Response, what: string, status = 503) => {
      const body = await res.text();
      expect([what, res.status, body]).toMatchObject([what, status, expect.any(String)]);
      expect(JSON.parse(body)).toMatchObject({ error: 'store_unavailable' });
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    };
    await unavailable(await fetch(`${server}/steer?_HLS_throughput=5000000`), 'steer (HLS)');
    await unavailable(await fetch(`${server}/steer?_DASH_throughput=5000000`), 'steer (DASH)', 429);
    const now = clock();
    const P = setup.policy.period_us;
    const end = (now / P) * P;
    const record = sim.record(setup.hops[0]!, end - P, end, 17);
    await unavailable(await fetch(`${server}/records`, { method: 'POST', body: record }), 'ingest');
    const edge = setup.hops.find((h) => h.name === 'cdn-b-edge')!;
    const jws = await new CompactSign(
      new TextEncoder().encode(
        JSON.stringify({
          room: toHex(setup.roomId),
          pathway: 'cdn-b',
          gas: 10,
          t: String(now),
          expires: String(now + 3n * P),
          window_us: String(P),
        }),
      ),
    )
      .setProtectedHeader({ alg: 'EdDSA', kid: toHex(edge.key.publicKey) })
      .sign(
        await importJWK(
          {
            kty: 'OKP',
            crv: 'Ed25519',
            x: base64url.encode(edge.key.publicKey),
            d: base64url.encode(edge.key.secretKey),
          },
          'EdDSA',
        ),
      );
    await unavailable(await fetch(`${server}/capacity`, { method: 'POST', body: jws }), 'capacity');
    await unavailable(await fetch(`${server}/decisions/${digest}`), 'a decision');
    await unavailable(await fetch(`${server}/decisions?from=0`), 'the listing');
    await unavailable(await fetch(`${server}/records/${'ab'.repeat(32)}`), 'a record');
    await unavailable(await fetch(`${server}/policies/${'cd'.repeat(32)}`), 'a policy');
    // The operator's reload of a new policy file: the store did not keep it, so 503, not 409.
    const authority = jwkToKeyPair(
      JSON.parse(readFileSync(join(t.dir, 'keys', 'authority.jwk'), 'utf8')),
      nodeBackend,
    );
    const next = signPolicy(
      { ...setup.policy, min_ttl_s: setup.policy.min_ttl_s + 1 },
      authority.secretKey!,
      { backend: nodeBackend },
    );
    writeFileSync(join(t.dir, 'policy.wsp'), next);
    const reload = () =>
      fetch(`${server}/admin/reload`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}` },
      });
    await unavailable(await reload(), 'the admin reload');

    await cluster.resume();
    await until('health 200 again', async () => (await health()) === 200);
    const after = count(200);
    await until('steering again', async () => count(200) >= after + 50);
    stop = true;
    await Promise.all(loops);
    await sim.stop();
    // What was refused meanwhile is taken now.
    expect((await fetch(`${server}/records`, { method: 'POST', body: record })).status).toBe(201);
    expect((await fetch(`${server}/capacity`, { method: 'POST', body: jws })).status).toBe(201);
    expect((await fetch(`${server}/decisions/${digest}`)).status).toBe(200);
    const reloaded = await reload();
    expect(reloaded.status).toBe(200);
    expect(await reloaded.json()).toMatchObject({ changed: true });
    expect(count(500)).toBe(0);

    // The log: a line per cause down and one recovered, no stack trace, nothing per request.
    const lines = child
      .stderr()
      .split('\n')
      .filter((l) => l.trim() !== '');
    expect(lines.filter((l) => /^\s+at /.test(l))).toEqual([]);
    expect(lines.every((l) => l.startsWith('wai-steering: '))).toBe(true);
    const down = lines.filter((l) => /degraded \(/.test(l));
    const up = lines.filter((l) => /recovered \(/.test(l));
    expect(down.length).toBeGreaterThanOrEqual(2); // commits and queries at least
    const causes = (ls: string[]) => ls.map((l) => /\((\w+)\)/.exec(l)![1]).sort();
    expect(new Set(causes(down)).size).toBe(down.length);
    expect(causes(up)).toEqual(causes(down));
    expect(lines.length).toBeLessThanOrEqual(12);
  });
});
