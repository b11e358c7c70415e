// The load replay end to end: a real server decides for many sessions at µs instants that
// straddle second boundaries (some asking again exactly at the end of their count, or a µs
// before), while the operator rotates the policy (pathways reordered, one dropped, then back) and
// live capacity rotates it between; its archive audits clean at --load-tolerance 0 (docs/audit.md,
// *The load replay*: one rule for the server and every auditor).
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { decodeFrames } from '@wai-steering/auditor';
import { loadConfig, type RunningServer, startServer } from '@wai-steering/server';
import { HopSimulator, SiteSimulator, setupDemo } from '@wai-steering/server/testkit';
import {
  jwkToKeyPair,
  type PolicyFields,
  readDecision,
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

/** A deterministic stream of numbers in [0, 1). */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const S = 1_000_000n;
/** Mid-period, 0.3 s past a second: P = 2 s. */
const T0 = 1_800_000_000_000_000n + 1_300_000n;
const SESSIONS = 40;
const SECONDS = 110n;
const GRACE_S = 2n; // sessions.grace 1500 ms, rounded up

describe('a server rotating its policy, audited at tolerance 0', () => {
  let server: RunningServer | undefined;
  afterAll(async () => {
    await server?.close();
  });

  it('its archive has no finding', { timeout: 240_000 }, async () => {
    const dir = tempDir();
    const setup = setupDemo(join(dir, 'room'), {
      port: await freePort(),
      periodMs: 2000,
      budgets: false,
    });
    // The config as the export reads it: a grace of 1.5 s (2 s in the archive), live capacity
    // on cdn-b.
    const file = JSON.parse(readFileSync(setup.configPath, 'utf8'));
    file.sessions = { grace: '1500ms' };
    // max_ahead was the bare 5000 of a file, read as seconds then: written with its unit now.
    file.live = { pathways: ['cdn-b'], capacity_threshold_ppm: 0, max_ahead: '5000s' };
    writeFileSync(setup.configPath, JSON.stringify(file));
    let now = T0;
    const clock = () => now;
    server = await startServer(loadConfig(setup.configPath), { clock });
    const base = server.url;
    const hops = new HopSimulator({
      policy: setup.policy,
      roomId: setup.roomId,
      hops: setup.hops,
      base,
      clock,
    });
    const site = new SiteSimulator({
      base,
      roomId: setup.roomId,
      pathway: 'cdn-b',
      hop: setup.hops.find((h) => h.name === 'cdn-b-edge')!,
      periodUs: setup.policy.period_us,
      clock,
    });
    const P = setup.policy.period_us;
    // The records of the windows before T0, then each period's at its end.
    let posted = (T0 / P) * P - 3n * P;
    const postRecords = async () => {
      while (posted + P <= now) {
        posted += P;
        await hops.period(posted);
      }
    };
    await postRecords();

    // The operator's policies: pathways reordered, cdn-a dropped, then back with another
    // latency ceiling (a new digest).
    const authority = jwkToKeyPair(
      JSON.parse(readFileSync(join(setup.dir, 'keys', 'authority.jwk'), 'utf8')),
      nodeBackend,
    );
    const p = setup.policy;
    const [a, b, east] = p.pathways as [
      PolicyFields['pathways'][0],
      PolicyFields['pathways'][0],
      PolicyFields['pathways'][0],
    ];
    const operator: PolicyFields[] = [
      { ...p, initial: 0, pathways: [b, a, { ...east, base: 0 }] },
      { ...p, initial: 0, pathways: [b, { ...east, base: 0 }] },
      { ...p, latency_ceiling_ms: 260 },
    ];
    const events: { at: bigint; run: () => Promise<void> }[] = [];
    operator.forEach((fields, i) => {
      events.push({
        at: T0 + BigInt(25 + 30 * i) * S + 123_457n,
        run: async () => {
          const bytes = signPolicy(fields, authority.secretKey!, { backend: nodeBackend });
          await server!.engine.rotatePolicy(bytes, 'operator');
        },
      });
    });
    // Live capacity on cdn-b: a report every 9 s, the capacity going up and down.
    [40, 6, 25, 3, 30, 9, 50, 4, 12, 20, 7].forEach((gas, i) => {
      events.push({
        at: T0 + BigInt(5 + 9 * i) * S + 700_001n,
        run: async () => {
          const res = await fetch(new URL('/capacity', base), {
            method: 'POST',
            headers: { 'content-type': 'application/jose' },
            body: await site.sign(gas),
          });
          expect([200, 201, 202]).toContain(res.status);
          await res.arrayBuffer();
        },
      });
    });

    // The sessions: each asks again after 0.3 s to 16 s, or exactly at the end of its count, or
    // a µs before it.
    const rand = prng(7);
    const next = Array.from({ length: SESSIONS }, (_, n) => ({
      at: T0 + BigInt(Math.floor(rand() * 4_000_000)),
      n,
      reload: undefined as string | undefined,
      end: 0n,
    }));
    let decisions = 0;
    const end = T0 + SECONDS * S;
    for (;;) {
      next.sort((x, y) => (x.at < y.at ? -1 : x.at > y.at ? 1 : 0));
      const head = next[0]!;
      const ev = events.reduce<(typeof events)[number] | undefined>(
        (m, e) => (m === undefined || e.at < m.at ? e : m),
        undefined,
      );
      if (ev !== undefined && ev.at <= head.at) {
        now = ev.at;
        await postRecords();
        await ev.run();
        events.splice(events.indexOf(ev), 1);
        continue;
      }
      if (head.at >= end) break;
      now = head.at;
      await postRecords();
      const target = head.reload ?? `${base}/steer?_HLS_throughput=${3_000_000 + head.n * 50_000}`;
      const res = await fetch(target);
      expect(res.status).toBe(200);
      const m = (await res.json()) as {
        TTL: number;
        'RELOAD-URI': string;
        'PATHWAY-PRIORITY': string[];
      };
      decisions++;
      const reload = new URL(m['RELOAD-URI']);
      reload.searchParams.set('_HLS_pathway', `"${m['PATHWAY-PRIORITY'][0]}"`);
      reload.searchParams.set('_HLS_throughput', '5000000');
      head.reload = `${base}${reload.pathname}${reload.search}`;
      const ttl = BigInt(m.TTL);
      head.end = now + (ttl + GRACE_S) * S;
      const r = rand();
      head.at =
        r < 0.12
          ? head.end
          : r < 0.24
            ? head.end - 1n
            : now + 300_000n + BigInt(Math.floor(rand() * 15_700_000));
    }
    expect(events).toEqual([]);
    expect(decisions).toBeGreaterThan(400);
    await server.close();
    server = undefined;

    const out = join(dir, 'archive');
    const exported = await cli(
      ['archive', 'export', '--config', setup.configPath, '--out', out],
      dir,
    );
    expect(exported.code, exported.stderr).toBe(0);
    const audited = await cli(
      [
        'audit',
        '--archive',
        out,
        '--room-id',
        toHex(setup.roomId),
        '--json',
        '--load-tolerance',
        '0',
      ],
      dir,
    );
    const result = JSON.parse(audited.stdout);
    expect(result.loads.inconsistent.slice(0, 5)).toEqual([]);
    expect(result.refused).toEqual([]);
    expect(audited.code, audited.stderr).toBe(0);
    expect(result).toMatchObject({ decisions, accepted: decisions, findings: 0 });
    // The archive carries the decision log: every decision in it, nothing withheld or unlogged.
    expect(result.log).toMatchObject({ size: decisions, withheld: [], unlogged: [] });
    expect(result.loads).toMatchObject({ checked: decisions, tolerance: 0, grace_s: 2 });
    // The original, three operator's policies and live ones between them.
    expect(result.policies.length).toBeGreaterThanOrEqual(7);

    // The log does exercise the µs: some decision came while another session's count had passed
    // a whole second's mark but not its end (a count in whole seconds would differ there).
    const made = decodeFrames(new Uint8Array(readFileSync(join(out, 'decisions.bin')))).map((f) =>
      unwrap(readDecision(f)),
    );
    const latest = new Map<string, { t: bigint; ttl: bigint }>();
    let between = 0;
    for (const d of made) {
      for (const [, q] of latest) {
        const sec = (q.t / S + q.ttl + GRACE_S) * S;
        if (d.t >= sec && d.t < q.t + (q.ttl + GRACE_S) * S) between++;
      }
      latest.set(toHex(d.session), { t: d.t, ttl: BigInt(d.ttl) });
    }
    expect(between).toBeGreaterThan(20);
  });
});
