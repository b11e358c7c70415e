// Two instances of one deployment on one PostgreSQL store: their combined decision log, exported
// from the shared store and over HTTP, audits clean within the tolerance several instances need
// (docs/audit.md: a peer's loads are at most a heartbeat or two old).
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { loadConfig, type RunningServer, startServer } from '@wai-steering/server';
import { type PgCluster, setupDemo, startPostgres } from '@wai-steering/server/testkit';
import { toHex } from '@wai-steering/wire';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, tempDir } from './helpers.js';

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
const RELOADS = 2;
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('two instances on PostgreSQL, audited', () => {
  let cluster: PgCluster | undefined;
  const servers: RunningServer[] = [];
  afterAll(async () => {
    for (const s of servers) await s.close();
    await cluster?.stop();
  });

  it('their shared log audits clean, from the store and over HTTP', {
    timeout: 120_000,
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
      instances: { heartbeat: 100, dropAfter: 1000 },
    });
    const a = await startServer(configOf(portA));
    servers.push(a);
    const b = await startServer(configOf(await freePort()));
    servers.push(b);

    // Each session's first request goes to one instance or the other, its reloads to the same.
    let decisions = 0;
    for (let i = 0; i < SESSIONS; i++) {
      const home = i % 2 === 0 ? a : b;
      const first = (await (await fetch(`${home.url}/steer?_HLS_throughput=5000000`)).json()) as {
        'RELOAD-URI': string;
        'PATHWAY-PRIORITY': string[];
      };
      decisions++;
      const reload = new URL(first['RELOAD-URI']);
      for (let r = 0; r < RELOADS; r++) {
        await pause(60);
        const res = await fetch(
          `${home.url}${reload.pathname}${reload.search}&_HLS_pathway=%22${first['PATHWAY-PRIORITY'][0]}%22`,
        );
        expect(res.status).toBe(200);
        decisions++;
      }
      await pause(60);
    }
    const roomId = toHex(setup.roomId);

    // Over HTTP, through A's listing of the shared store.
    const live = await cli(
      ['audit', '--url', a.url, '--room-id', roomId, '--json', '--load-tolerance', '4'],
      dir,
    );
    expect(live.code, live.stdout + live.stderr).toBe(0);
    const r = JSON.parse(live.stdout);
    expect(r).toMatchObject({ decisions, sessions: SESSIONS, accepted: decisions, findings: 0 });
    expect(r.loads.checked).toBe(decisions);

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
    const audited = await cli(
      ['audit', '--archive', out, '--room-id', roomId, '--json', '--load-tolerance', '4'],
      dir,
    );
    expect(audited.code, audited.stdout + audited.stderr).toBe(0);
    expect(JSON.parse(audited.stdout)).toMatchObject({
      decisions,
      sessions: SESSIONS,
      findings: 0,
    });
  });
});
