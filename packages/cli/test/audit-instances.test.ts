// Two instances of one deployment on one PostgreSQL store, deciding at once: the store holds their
// decisions in the order they were committed, which is not the order of `t`; exported from the
// shared store and over HTTP, the log is in ascending `t` and audits clean within the tolerance
// several instances need (docs/audit.md: a peer's loads are at most a heartbeat or two old). An
// export that fails midway (the server stops answering) leaves nothing behind.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer as createHttp, request } from 'node:http';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { decodeFrames } from '@wai-steering/auditor';
import { loadConfig, type RunningServer, startServer } from '@wai-steering/server';
import { type PgCluster, pgBinDir, setupDemo, startPostgres } from '@wai-steering/server/testkit';
import { readDecision, toHex, unwrap } from '@wai-steering/wire';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, expectUserError, tempDir } from './helpers.js';

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
}

const SESSIONS = 16;
/** Requests after each session's first, at its own instance. */
const RELOADS = 3;
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The `t` of each decision of an archive, in file order. */
function timesOf(dir: string): bigint[] {
  return decodeFrames(new Uint8Array(readFileSync(join(dir, 'decisions.bin')))).map(
    (f) => unwrap(readDecision(f)).t,
  );
}

/** The distinct entries of an archive's `log-entries.bin` (40 bytes each). */
function loggedOnce(dir: string): number {
  const bytes = readFileSync(join(dir, 'log-entries.bin'));
  const seen = new Set<string>();
  for (let at = 0; at < bytes.length; at += 40)
    seen.add(bytes.subarray(at, at + 40).toString('hex'));
  expect(seen.size * 40).toBe(bytes.length);
  return seen.size;
}

const ascending = (ts: readonly bigint[]): boolean =>
  ts.every((t, i) => i === 0 || ts[i - 1]! <= t);

describe('two instances on PostgreSQL, audited', () => {
  let cluster: PgCluster | undefined;
  const servers: RunningServer[] = [];
  afterAll(async () => {
    for (const s of servers) await s.close();
    await cluster?.stop();
  });

  it('their shared log is exported in ascending t and audits clean, from the store and over HTTP', {
    timeout: 180_000,
  }, async () => {
    const dir = tempDir();
    cluster = await startPostgres();
    const url = await cluster.createDatabase('audited');
    const portA = await freePort();
    // The policy's URIs name instance A, where the log is exported from.
    const setup = setupDemo(join(dir, 'room'), { port: portA, periodMs: 500, budgets: false });
    const base = loadConfig(setup.configPath);
    const secret = join(dir, 'session.secret');
    writeFileSync(secret, randomBytes(32));
    const configOf = (port: number) => ({
      ...base,
      listen: { host: '127.0.0.1', port },
      store: { url, synchronous: 'normal' as const, create: false, checkTimeout: 0 },
      sessions: { ...base.sessions, secret },
      // A peer is counted until 30 s of silence: on a busy machine a heartbeat can come a second
      // late, and a peer dropped then would leave its whole load out of the other's decisions
      // (nobody stops here; the tolerance is for loads a heartbeat or two old).
      instances: { heartbeat: 100, dropAfter: 30_000 },
    });
    const a = await startServer(configOf(portA));
    servers.push(a);
    const b = await startServer(configOf(await freePort()));
    servers.push(b);

    // Both instances at once: each step asks A and B together (their decisions' t a few µs
    // apart, their commits racing), a session's reloads at its own instance.
    const reloads: string[] = [];
    const ask = async (home: RunningServer, target: string, k: number) => {
      const res = await fetch(`${home.url}${target}`);
      expect(res.status).toBe(200);
      const m = (await res.json()) as { 'RELOAD-URI': string; 'PATHWAY-PRIORITY': string[] };
      const reload = new URL(m['RELOAD-URI']);
      reloads[k] =
        `${reload.pathname}${reload.search}&_HLS_pathway=%22${m['PATHWAY-PRIORITY'][0]}%22`;
    };
    let decisions = 0;
    for (let round = 0; round <= RELOADS; round++) {
      for (let k = 0; k < SESSIONS; k += 2) {
        const target = (j: number) => reloads[j] ?? '/steer?_HLS_throughput=5000000';
        await Promise.all([ask(a, target(k), k), ask(b, target(k + 1), k + 1)]);
        decisions += 2;
        // New sessions come slower than reloads: each instance's peer sees them within a
        // heartbeat or two (the tolerance of several instances).
        await pause(round === 0 ? 150 : 60);
      }
    }
    const roomId = toHex(setup.roomId);

    // The store's order (its row ids) is not the order of t: what the export must not follow.
    const psql = spawnSync(
      join(pgBinDir(), 'psql'),
      [url, '-Atc', 'SELECT t FROM decisions ORDER BY id'],
      {
        encoding: 'utf8',
      },
    );
    expect(psql.status, psql.stderr).toBe(0);
    const byId = psql.stdout.trim().split('\n').map(BigInt);
    expect(byId.length).toBe(decisions);
    expect(ascending(byId)).toBe(false);

    // Over HTTP, through A's listing of the shared store, then audited.
    const overHttp = join(dir, 'over-http');
    const fetched = await cli(
      ['archive', 'export', '--url', a.url, '--room-id', roomId, '--out', overHttp],
      dir,
    );
    expect(fetched.code, fetched.stderr).toBe(0);
    const httpTimes = timesOf(overHttp);
    expect(httpTimes.length).toBe(decisions);
    expect(ascending(httpTimes)).toBe(true);
    const live = await cli(
      ['audit', '--archive', overHttp, '--room-id', roomId, '--json', '--load-tolerance', '4'],
      dir,
    );
    expect(live.code, live.stdout + live.stderr).toBe(0);
    const r = JSON.parse(live.stdout);
    expect(r).toMatchObject({ decisions, sessions: SESSIONS, accepted: decisions, findings: 0 });
    expect(r.loads.checked).toBe(decisions);
    // The shared log holds every served decision, once: nothing withheld, nothing unlogged.
    expect(r.log).toMatchObject({ size: decisions, withheld: [], unlogged: [] });
    expect(loggedOnce(overHttp)).toBe(decisions);

    // From the store the config names (PostgreSQL), offline from the servers' point of view.
    const configPath = join(dir, 'config-a.json');
    writeFileSync(
      configPath,
      JSON.stringify({
        room: join(setup.dir, 'room.wrd'),
        key_log: join(setup.dir, 'key-log.wkl'),
        policy: join(setup.dir, 'policy.wsp'),
        signing_key: join(setup.dir, 'keys', 'steering.jwk'),
        store: { url },
      }),
    );
    const out = join(dir, 'archive');
    const exported = await cli(['archive', 'export', '--config', configPath, '--out', out], dir);
    expect(exported.code, exported.stderr).toBe(0);
    expect(timesOf(out)).toEqual(httpTimes);
    const audited = await cli(
      ['audit', '--archive', out, '--room-id', roomId, '--json', '--load-tolerance', '4'],
      dir,
    );
    expect(audited.code, audited.stdout + audited.stderr).toBe(0);
    expect(JSON.parse(audited.stdout)).toMatchObject({
      decisions,
      sessions: SESSIONS,
      findings: 0,
      log: { size: decisions, withheld: [], unlogged: [] },
    });
    expect(readFileSync(join(out, 'checkpoint'), 'utf8')).toMatch(/^127\.0\.0\.1:\d+\/log\n/);

    // The same export again over an archive: replaced whole.
    const again = await cli(['archive', 'export', '--config', configPath, '--out', out], dir);
    expect(again.code, again.stderr).toBe(0);
    expect(timesOf(out)).toEqual(httpTimes);

    // A server that stops answering midway: B behind a door that closes after 20 decisions.
    let served = 0;
    const door = createHttp((req, res) => {
      if (/^\/decisions\/[0-9a-f]{64}$/.test(req.url ?? '') && ++served > 20) {
        req.socket.destroy();
        door.close();
        door.closeAllConnections();
        return;
      }
      const up = request(
        new URL(req.url ?? '/', b.url),
        { method: req.method, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      up.on('error', () => res.destroy());
      req.pipe(up);
    });
    await new Promise<void>((done) => door.listen(0, '127.0.0.1', done));
    const doorUrl = `http://127.0.0.1:${(door.address() as { port: number }).port}`;
    const partial = join(dir, 'exports', 'partial');
    const failed = await cli(
      ['archive', 'export', '--url', doorUrl, '--room-id', roomId, '--out', partial],
      dir,
    );
    expectUserError(failed, /GET http:\/\/127\.0\.0\.1:\d+\/decisions\/[0-9a-f]{64}/);
    expect(served).toBeGreaterThan(20);
    expect(existsSync(partial)).toBe(false);
    expect(existsSync(join(dir, 'exports'))).toBe(false);
    expect(readdirSync(dir).filter((n) => n.includes('partial'))).toEqual([]);
  });
});
