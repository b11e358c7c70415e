// Two instances of one deployment on one PostgreSQL, deciding at once, across an operator's
// rotation on one of them that removes a pathway and adds another: the rotation is put in force
// at one instant for both (docs/live-policy.md, *Several instances*), so that their shared log
// names the policy before up to that instant and the new one from it, never alternating; and it
// audits within the tolerance of several instances that docs/audit.md states.
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { decodeFrames } from '@wai-steering/auditor';
import { loadConfig, type RunningServer, startServer } from '@wai-steering/server';
import { type PgCluster, setupDemo, startPostgres } from '@wai-steering/server/testkit';
import {
  digestOf,
  jwkToKeyPair,
  type PolicyFields,
  readDecision,
  readPolicy,
  signPolicy,
  toHex,
  unwrap,
} from '@wai-steering/wire';
import { nodeBackend } from '@wai-steering/wire/node';
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
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('two instances on PostgreSQL across an operator’s rotation, audited', () => {
  let cluster: PgCluster | undefined;
  const servers: RunningServer[] = [];
  afterAll(async () => {
    for (const s of servers) await s.close();
    await cluster?.stop();
  });

  it('put it in force at one instant for both, and audit within the tolerance', {
    timeout: 300_000,
  }, async () => {
    const dir = tempDir();
    cluster = await startPostgres();
    const url = await cluster.createDatabase('rotation');
    const portA = await freePort();
    // The policy's URIs name instance A, where the log is exported from.
    const setup = setupDemo(join(dir, 'room'), { port: portA, periodMs: 500, budgets: false });
    const base = loadConfig(setup.configPath);
    // No session secret configured: the store keeps the deployment's (docs/server.md).
    const configOf = (port: number) => ({
      ...base,
      listen: { host: '127.0.0.1', port },
      store: { url, synchronous: 'normal' as const, create: false, checkTimeout: 0 },
      sessions: { ...base.sessions, grace: 2000, secret: null },
      instances: { heartbeat: 100, dropAfter: 30_000 },
    });
    const a = await startServer(configOf(portA));
    servers.push(a);
    const b = await startServer(configOf(await freePort()));
    servers.push(b);

    // The operator's next policy: cdn-a removed, cdn-c added (cdn-a's sites under another ID).
    const authority = jwkToKeyPair(
      JSON.parse(readFileSync(join(setup.dir, 'keys', 'authority.jwk'), 'utf8')),
      nodeBackend,
    );
    const p = setup.policy;
    const [cdnA, cdnB, east] = p.pathways as [
      PolicyFields['pathways'][0],
      PolicyFields['pathways'][0],
      PolicyFields['pathways'][0],
    ];
    const next: PolicyFields = {
      ...p,
      initial: 0,
      pathways: [cdnB, { ...east, base: 0 }, { ...cdnA, id: 'cdn-c', latency_ms: 30 }],
    };
    const nextBytes = signPolicy(next, authority.secretKey!, { backend: nodeBackend });
    const before = toHex(digestOf(unwrap(readPolicy(setup.policyBytes)), nodeBackend));
    const after = toHex(digestOf(unwrap(readPolicy(nextBytes)), nodeBackend));

    // Both instances at once: each step asks A and B together, a session's reloads at its own
    // instance. Count changes (new sessions, sessions moved) come slower than a heartbeat or two:
    // docs/audit.md's tolerance of several instances is the count changes a peer makes in that
    // time.
    const reloads: string[] = [];
    let decisions = 0;
    const ask = async (home: RunningServer, k: number) => {
      const target = reloads[k] ?? `/steer?_HLS_throughput=${4_000_000 + k * 10_000}`;
      const res = await fetch(`${home.url}${target}`);
      expect(res.status).toBe(200);
      const m = (await res.json()) as { 'RELOAD-URI': string; 'PATHWAY-PRIORITY': string[] };
      const reload = new URL(m['RELOAD-URI']);
      reloads[k] =
        `${reload.pathname}${reload.search}&_HLS_pathway=%22${m['PATHWAY-PRIORITY'][0]}%22`;
      decisions++;
    };
    const round = async () => {
      for (let k = 0; k < SESSIONS; k += 2) {
        await Promise.all([ask(a, k), ask(b, k + 1)]);
        await pause(150);
      }
    };
    for (let r = 0; r < 3; r++) await round();

    // SIGHUP on A with the new policy file: claimed a lead ahead, for both.
    writeFileSync(base.policy, nextBytes);
    const reloaded = await a.reload();
    expect(reloaded).toMatchObject({ changed: true, policy: after });
    const from = BigInt(reloaded.from!);
    expect(from).toBeGreaterThan(a.engine.now());
    // Decisions go on across its instant, then for the TTL and grace after it.
    const end = from + BigInt(p.ttl_s + 3) * 1_000_000n;
    while (a.engine.now() < end) await round();
    const roomId = toHex(setup.roomId);

    // Exported from the shared store and audited.
    const configPath = join(dir, 'config-export.json');
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

    // The log names the policy before up to the instant, and the new one from it: no decision of
    // one instance and no decision of the other disagree on the policy in force.
    const made = decodeFrames(new Uint8Array(readFileSync(join(out, 'decisions.bin')))).map((f) =>
      unwrap(readDecision(f)),
    );
    expect(made.length).toBe(decisions);
    const named = made.map((d) => ({ t: d.t, policy: toHex(d.policy) }));
    expect(named.filter((d) => d.t < from).every((d) => d.policy === before)).toBe(true);
    expect(named.filter((d) => d.t >= from).every((d) => d.policy === after)).toBe(true);
    expect(named.filter((d) => d.t < from).length).toBeGreaterThan(3 * SESSIONS);
    expect(named.filter((d) => d.t >= from).length).toBeGreaterThan(3 * SESSIONS);

    // docs/audit.md, several instances: within the count changes a peer makes in two heartbeats
    // and a round trip, 4 here (as for the two instances without a rotation).
    const audited = await cli(
      ['audit', '--archive', out, '--room-id', roomId, '--json', '--load-tolerance', '4'],
      dir,
    );
    const result = JSON.parse(audited.stdout);
    expect(result.loads.inconsistent.slice(0, 5)).toEqual([]);
    expect(result.refused).toEqual([]);
    expect(result).toMatchObject({ decisions, accepted: decisions, sessions: SESSIONS });
    expect(result.log).toMatchObject({ size: decisions, withheld: [], unlogged: [] });
    expect(result.policies.map((x: { digest: string }) => x.digest)).toEqual([before, after]);
    const flagged = result.shares.filter((x: { flagged: boolean }) => x.flagged).length;
    expect(result.findings).toBe(flagged);
  });
});
