/**
 * Capacity held across instances (`docs/server.md`, *Capacity across instances*): two instances
 * on one PostgreSQL, `cdn-b` (the pathway the rule ranks first) at a capacity of 20, both loaded
 * at once with new sessions. Every decision of both is read back from the store and replayed as
 * the audit does (`docs/audit.md`, *The load replay*): the sessions placed in `cdn-b` never add
 * up to more than its capacity (the documented margin is 0 here: no session moves between the
 * instances and none dies), and they fill it. Every decision verifies (§9.1) from what the
 * instances serve. Not timed: the load waits on answers, not on the clock.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { readDecision, unwrap } from '@wai-steering/wire';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/read.js';
import { setupDemo } from '../../../src/demo/setup.js';
import { monotonicClock } from '../../../src/engine/clock.js';
import { type RunningServer, startServer } from '../../../src/server.js';
import { PgStore } from '../../../src/store/postgres/index.js';
import type { DecisionCursor } from '../../../src/store/store.js';
import { type Posted, postRecords, verifyFrom } from '../../helpers/load.js';
import { type PgCluster, startPostgres } from '../../helpers/postgres.js';
import { freePort, tempDir } from '../../helpers/setup.js';

const CAPACITY = 20;
/** New sessions per instance, far past the capacity. */
const REQUESTS = 300;
const CONCURRENCY = 12;

/** GETs of `path` at `base` from `CONCURRENCY` keep-alive connections: the manifests served. */
async function load(base: string, path: string, n: number): Promise<string[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const bodies: string[] = [];
  let next = 0;
  const one = (): Promise<void> =>
    new Promise((resolve, reject) => {
      const req = request(`${base}${path}`, { agent }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c) => {
          body += c;
        });
        res.on('end', () => {
          if (res.statusCode !== 200) reject(new Error(`${res.statusCode}: ${body}`));
          else {
            bodies.push(body);
            resolve();
          }
        });
      });
      req.on('error', reject);
      req.end();
    });
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < n) {
        next++;
        await one();
      }
    }),
  );
  agent.destroy();
  return bodies;
}

describe('capacity across two instances on PostgreSQL', () => {
  const t = tempDir('wai-capacity-');
  let cluster: PgCluster | undefined;
  const servers: RunningServer[] = [];
  let store: PgStore | undefined;
  afterAll(async () => {
    for (const s of servers) await s.close();
    await store?.close();
    await cluster?.stop();
    t.remove();
  });

  it('never places more sessions in a pathway than its capacity, and fills it', async () => {
    cluster = await startPostgres();
    const url = await cluster.createDatabase('capacity');
    const setup = setupDemo(t.dir, {
      port: 8080,
      periodMs: 2000,
      budgets: false,
      capacity: CAPACITY,
    });
    const base = JSON.parse(readFileSync(setup.configPath, 'utf8'));
    for (const name of ['a', 'b']) {
      const path = join(t.dir, `config-${name}.json`);
      writeFileSync(
        path,
        JSON.stringify({
          ...base,
          listen: { host: '127.0.0.1', port: await freePort() },
          store: { url },
          instances: { heartbeat: '100ms', drop_after: '1s' },
        }),
      );
      servers.push(await startServer(loadConfig(path)));
    }
    const [a, b] = servers as [RunningServer, RunningServer];
    const clock = monotonicClock();
    const posted: Posted[] = [];
    const hops = postRecords(setup, a.url, clock, posted);
    await hops.ready;
    const cdnB = setup.policy.pathways.findIndex((p) => p.id === 'cdn-b');
    try {
      // The evidence in at both (cdn-b ranks first), then both loaded at once with new
      // sessions that report nothing: each is placed in cdn-b while it has a slot.
      for (const s of servers) {
        for (let i = 0; i < 200; i++) {
          const m = JSON.parse((await load(s.url, '/steer', 1))[0]!);
          if (m['PATHWAY-PRIORITY'][0] === 'cdn-b') break;
          await new Promise((r) => setTimeout(r, 50));
        }
      }
      const [fromA, fromB] = await Promise.all([
        load(a.url, '/steer/reload', REQUESTS),
        load(b.url, '/steer/reload', REQUESTS),
      ]);
      expect(fromA.length + fromB.length).toEqual(2 * REQUESTS);
    } finally {
      await hops.stop();
    }

    // Every decision of both, from the shared store, by time.
    store = await PgStore.open(url);
    const decisions: { t: bigint; session: string; first: number; ttl: number }[] = [];
    for (let after: DecisionCursor | null = null; ; ) {
      const page = await store.listDecisions(0n, 1n << 62n, after, 1000);
      for (const d of page.decisions) {
        const v = unwrap(readDecision(d.bytes));
        decisions.push({
          t: v.t,
          session: Buffer.from(v.session).toString('hex'),
          first: v.priority[0]!,
          ttl: v.ttl,
        });
      }
      if (page.next === null) break;
      after = page.next;
    }
    // The load replay (docs/audit.md): a session counts in the first pathway of its latest
    // decision while t′ < t + (ttl + grace) × 10^6; the most sessions counted in cdn-b at once.
    const graceS = a.engine.graceS;
    decisions.sort((x, y) => (x.t < y.t ? -1 : x.t > y.t ? 1 : 0));
    const placed = new Map<string, { first: number; end: bigint }>();
    let most = 0;
    for (const d of decisions) {
      const s = d.t;
      placed.set(d.session, { first: d.first, end: s + BigInt(d.ttl + graceS) * 1_000_000n });
      let inB = 0;
      for (const p of placed.values()) if (p.first === cdnB && p.end > s) inB++;
      most = Math.max(most, inB);
    }
    expect(decisions.length).toBeGreaterThanOrEqual(2 * REQUESTS);
    expect(most).toBeLessThanOrEqual(CAPACITY);
    // Filled: the capacity was not left idle behind the leases.
    expect(most).toEqual(CAPACITY);

    // The decisions verify (§9.1) from what the other instance serves: the loads they state
    // and the rule's output agree, leases or not.
    const sample = (await load(a.url, '/steer/reload', 20)).concat(
      await load(b.url, '/steer/reload', 20),
    );
    const manifests = new Map<string, string>();
    for (const body of sample) {
      const m = JSON.parse(body);
      manifests.set((m['science.transaction.wai-decision'] as string).slice(-64), body);
    }
    const { decisions: verified, failures } = await verifyFrom(b.url, manifests);
    expect(failures).toEqual([]);
    expect(verified.size).toEqual(manifests.size);
  });
});
