// `GET /energy`, `/energy/statement`, `/energy/series` (docs/server.md, *The energy account*): the account of
// what the server stored, against the energy package's account of the same records and
// decisions given at once; the statement verified with the steering key under the log's
// origin; the span refused in one line; the defaults.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  accountFromJson,
  compareAccounts,
  energyAccount,
  openStatement,
  readAccount,
  writeAccount,
} from '@wai-steering/energy';
import { ed25519Signer } from '@wai-steering/tlog';
import { jwkToKeyPair, readDecision, readHopRecord, signPolicy, unwrap } from '@wai-steering/wire';
import { nodeBackend } from '@wai-steering/wire/node';
import { afterEach, describe, expect, it } from 'vitest';
import { SteeringApp } from '../../src/app.js';
import { EnergyService } from '../../src/energy/service.js';
import { ClientBudget } from '../../src/guard/budget.js';
import { buildRoutes } from '../../src/routes/table.js';
import { demoApp, get, postPeriods, text } from '../helpers/setup.js';

const ORIGIN = 'steer.example/log';
const contexts: Awaited<ReturnType<typeof demoApp>>[] = [];
afterEach(async () => {
  for (const c of contexts.splice(0)) await c.close();
});

/** An account's JSON read strictly (the test fails on a refusal). */
function strict(body: string) {
  const read = readAccount(body);
  if (!read.ok) throw read.refusal;
  return read.value;
}

/** A demo app with the energy routes, and `periods` periods of records and decisions. */
async function withHistory(periods: number) {
  const ctx = await demoApp();
  contexts.push(ctx);
  const signer = ed25519Signer(ORIGIN, ctx.materials.secretKey, nodeBackend);
  const energy = new EnergyService({ engine: ctx.engine, store: ctx.store, signer });
  const app = new SteeringApp(ctx.engine, {
    maxRecordBytes: 4096,
    maxTargetBytes: 8192,
    routes: buildRoutes({ engine: ctx.engine, energy }),
  });
  const P = ctx.setup.policy.period_us;
  const T0 = ctx.clock.us;
  for (let k = 0n; k < BigInt(periods); k++) {
    // A decision in the period's first quarter, then every hop's record of the period.
    ctx.clock.us = T0 + k * P + P / 4n;
    expect((await get(ctx.app, '/steer')).status).toBe(200);
    ctx.clock.us = T0 + (k + 1n) * P;
    await postPeriods(ctx, [ctx.clock.us]);
  }
  return { ctx, app, energy, signer, P, T0 };
}

/** The account of what the store holds, given at once to the energy package. */
async function expected(
  ctx: Awaited<ReturnType<typeof demoApp>>,
  from: bigint,
  to: bigint,
): Promise<string> {
  const records = [];
  for await (const r of ctx.store.recordsEndingAfter(0n)) {
    records.push({ record: unwrap(readHopRecord(r.bytes)), digest: r.digest });
  }
  // Every decision stored before `to`: those before the span whose sessions still count at its
  // first midpoints included (the load replay).
  const page = await ctx.store.listDecisions(0n, to, null, 1000);
  expect(page.next).toBeNull();
  return writeAccount(
    energyAccount({
      policies: [{ at: 0n, policy: ctx.engine.policy }],
      from,
      to,
      graceS: ctx.engine.graceS,
      records,
      decisions: page.decisions.map((d) => unwrap(readDecision(d.bytes))),
    }),
  );
}

describe('GET /energy', () => {
  it('answers the canonical account of every record and decision the server stored', async () => {
    const { ctx, app, P, T0 } = await withHistory(36);
    const from = T0 + P;
    const to = T0 + 35n * P;
    const res = await get(app, `/energy?from=${from}&to=${to}`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['access-control-allow-origin']).toBe('*');
    const body = text(res.body);
    expect(body).toBe(await expected(ctx, from, to));
    // What it states, read strictly: the demo's pathways, cdn-a the baseline, decisions placed.
    const read = readAccount(body);
    expect(read.ok).toBe(true);
    const account = read.ok ? read.value : undefined;
    expect(account!.baseline).toEqual({ pathway: 'cdn-a', why: 'initial' });
    expect(account!.pathways.map((p) => p.id)).toEqual(ctx.engine.policy.pathways.map((p) => p.id));
    expect(account!.pathways[0]!.periods).toBe(34);
    const placed = account!.pathways.map((p) => BigInt(p.sessions_placed ?? '0'));
    expect(placed.reduce((a, b) => a + b, 0n)).toBeGreaterThan(0n);
    // HEAD answers the same headers.
    const head = await app.handle({
      method: 'HEAD',
      target: `/energy?from=${from}&to=${to}`,
      headers: {},
    });
    expect(head.status).toBe(200);
  });

  it('reads instants as the rest of the server does: µs, RFC 3339, now-relative', async () => {
    const { app, P, T0 } = await withHistory(4);
    const rfc = (us: bigint) => new Date(Number(us / 1000n)).toISOString();
    const byUs = text((await get(app, `/energy?from=${T0}&to=${T0 + 2n * P}`)).body);
    const byRfc = await get(
      app,
      `/energy?from=${rfc(T0)}&to=${encodeURIComponent(rfc(T0 + 2n * P))}`,
    );
    expect(byRfc.status).toBe(200);
    expect(text(byRfc.body)).toBe(byUs);
    // An offset, its "+" unencoded and encoded.
    const plus = new Date(Number(T0 / 1000n) + 3_600_000).toISOString().replace('Z', '+01:00');
    for (const v of [plus, encodeURIComponent(plus)]) {
      const res = await get(app, `/energy?from=${v}&to=${T0 + 2n * P}`);
      expect(text(res.body)).toBe(byUs);
    }
    // The clock stands at T0 + 4P: now-4P is T0.
    const rel = await get(app, `/energy?from=now-${(4n * P) / 1000n}ms&to=${T0 + 2n * P}`);
    expect(text(rel.body)).toBe(byUs);
  });

  it('refuses a span that is not whole periods, is empty, or does not read: 400, one line', async () => {
    const { app, P, T0 } = await withHistory(2);
    const cases: [string, string, RegExp][] = [
      [
        `?from=${T0 + 1n}&to=${T0 + P}`,
        'bad_span',
        /^from \(\d+ µs\) is not a multiple of the policy's period of \d+ µs/,
      ],
      [`?from=${T0}&to=${T0}`, 'bad_span', /^the span is empty/],
      [`?from=${T0 + P}&to=${T0}`, 'bad_span', /^the span is empty/],
      ['?from=yesterday', 'bad_query', /^from: yesterday: expected room-clock microseconds/],
      ['?to=%E0%A4%A', 'bad_query', /^to is not percent-encoded text$/],
      ['?buckets=0', 'bad_query', /^buckets is not 1 to 2000$/],
    ];
    for (const [q, error, message] of cases) {
      for (const path of ['/energy', '/energy/statement', '/energy/series']) {
        const res = await get(app, `${path}${q}`);
        expect(res.status).toBe(400);
        const body = JSON.parse(text(res.body));
        expect(body.error).toBe(error);
        expect(body.message).toMatch(message);
        expect(body.message).not.toContain('\n');
      }
    }
  });

  it('refuses a span over a change of policy, naming the instant to split it at', async () => {
    const { ctx, app, P, T0 } = await withHistory(3);
    // The operator drops cdn-a's shield: the account cannot span the change.
    const p = ctx.setup.policy;
    const key = jwkToKeyPair(
      JSON.parse(readFileSync(join(ctx.setup.dir, 'keys', 'authority.jwk'), 'utf8')),
      nodeBackend,
    );
    const next = {
      ...p,
      pathways: [
        { ...p.pathways[0]!, hops: p.pathways[0]!.hops.slice(0, 1) },
        ...p.pathways.slice(1),
      ],
    };
    ctx.clock.us = T0 + 3n * P + P / 2n;
    const at = ctx.clock.us;
    await ctx.engine.rotatePolicy(
      signPolicy(next, key.secretKey!, { backend: nodeBackend }),
      'operator',
    );
    ctx.clock.us = T0 + 6n * P;
    const res = await get(app, `/energy?from=${T0}&to=${T0 + 5n * P}`);
    expect(res.status).toBe(400);
    expect(JSON.parse(text(res.body)).message).toBe(
      `the policy in force changes pathways.cdn-a.hops at ${at} µs, inside the span: account for [${T0}, ${at}) and [${at}, ${T0 + 5n * P}) apart`,
    );
    // Either side of it, whole periods, is answered.
    expect((await get(app, `/energy?from=${T0}&to=${T0 + 3n * P}`)).status).toBe(200);
    expect((await get(app, `/energy?from=${T0 + 4n * P}&to=${T0 + 5n * P}`)).status).toBe(200);
    // The default span starts after the change (its period rounded up).
    const dflt = readAccount(text((await get(app, '/energy')).body));
    expect(dflt.ok && dflt.value.from).toBe(String(T0 + 4n * P));
  });

  it('defaults to the last 24 h of periods that ended at least L ago', async () => {
    const { ctx, app, P, T0 } = await withHistory(3);
    const L = ctx.engine.policy.lag_us;
    // The clock at T0 + 3P + L − 1: the period ending at T0 + 3P is not L old yet.
    ctx.clock.us = T0 + 3n * P + L - 1n;
    let read = readAccount(text((await get(app, '/energy')).body));
    expect(read.ok && [read.value.from, read.value.to]).toEqual([
      String(T0 + 2n * P - 86_400_000_000n),
      String(T0 + 2n * P),
    ]);
    ctx.clock.us = T0 + 3n * P + L;
    read = readAccount(text((await get(app, '/energy')).body));
    expect(read.ok && read.value.to).toBe(String(T0 + 3n * P));
    // from alone, or to alone.
    read = readAccount(text((await get(app, `/energy?from=${T0}`)).body));
    expect(read.ok && [read.value.from, read.value.to]).toEqual([String(T0), String(T0 + 3n * P)]);
    read = readAccount(text((await get(app, `/energy?to=${T0 + P}`)).body));
    expect(read.ok && read.value.from).toBe(String(T0 + P - 86_400_000_000n));
  });
});

describe('GET /energy/statement', () => {
  it('answers the account signed by the steering key under the log’s origin', async () => {
    const { ctx, app, signer, P, T0 } = await withHistory(4);
    const q = `?from=${T0}&to=${T0 + 4n * P}`;
    const res = await get(app, `/energy/statement${q}`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    const note = text(res.body);
    const [header, json] = note.split('\n');
    expect(header).toBe('wai-steering energy statement v1');
    expect(json).toBe(text((await get(app, `/energy${q}`)).body));
    // The key name and ID are the log's: the verifier key of the steering key under its origin.
    const key = ed25519Signer(ORIGIN, ctx.materials.secretKey, nodeBackend).verifierKey;
    expect(key.keyId).toBe(signer.keyId);
    const opened = openStatement(note, [key]);
    expect(opened.ok).toBe(true);
    const account = strict(json!);
    expect(opened.ok && compareAccounts(account, opened.value.account)).toBe('agrees');
    // Another key does not verify it.
    const other = ed25519Signer(ORIGIN, new Uint8Array(32).fill(9), nodeBackend).verifierKey;
    expect(openStatement(note, [other]).ok).toBe(false);
  });

  it('is not served by an energy service without a signer', async () => {
    const ctx = await demoApp();
    contexts.push(ctx);
    const energy = new EnergyService({ engine: ctx.engine, store: ctx.store });
    const app = new SteeringApp(ctx.engine, {
      maxRecordBytes: 4096,
      maxTargetBytes: 8192,
      routes: buildRoutes({ engine: ctx.engine, energy }),
    });
    expect((await get(app, '/energy/statement')).status).toBe(404);
  });
});

describe('GET /energy/series', () => {
  it('answers the account with its buckets and sampled periods, which add up to it', async () => {
    const { app, P, T0 } = await withHistory(36);
    const q = `?from=${T0}&to=${T0 + 36n * P}&buckets=5&samples=10`;
    const res = await get(app, `/energy/series${q}`);
    expect(res.status).toBe(200);
    const body = JSON.parse(text(res.body));
    expect(writeAccount(accountFromJson(strict(JSON.stringify(body.account))))).toBe(
      text((await get(app, `/energy${q}`)).body),
    );
    const s = body.series;
    // 36 periods in buckets of ⌈36 / 5⌉ = 8 periods: 5 buckets; every 4th period sampled.
    expect(s.bucket_us).toBe(String(8n * P));
    expect(s.buckets).toBe(5);
    expect(s.sample_stride).toBe(4);
    expect(s.sample_periods).toEqual([0, 4, 8, 12, 16, 20, 24, 28, 32]);
    body.account.pathways.forEach(
      (
        p: {
          id: string;
          delivery: string;
          joules_uj: string;
          periods: number;
          sessions_served: string;
        },
        i: number,
      ) => {
        const c = s.pathways[i];
        expect(c.id).toBe(p.id);
        const sum = (xs: string[]) => xs.reduce((a, x) => a + BigInt(x), 0n);
        expect(sum(c.delivery)).toBe(BigInt(p.delivery));
        expect(sum(c.joules_uj)).toBe(BigInt(p.joules_uj));
        expect(sum(c.sessions_served)).toBe(BigInt(p.sessions_served));
        expect(c.usable.reduce((a: number, x: number) => a + x, 0)).toBe(p.periods);
        expect(c.sample_delivery).toHaveLength(9);
      },
    );
  });
});

describe('the energy routes’ budget', () => {
  it('spends a request of the client’s budget: past it, over_budget with Retry-After', async () => {
    const ctx = await demoApp();
    contexts.push(ctx);
    const energy = new EnergyService({ engine: ctx.engine, store: ctx.store });
    const budget = new ClientBudget({
      requests: { rate: 0.001, burst: 2 },
      sessions: { rate: 1, burst: 1 },
      trustedProxies: [],
      maxClients: 10,
    });
    const app = new SteeringApp(ctx.engine, {
      maxRecordBytes: 4096,
      maxTargetBytes: 8192,
      routes: buildRoutes({ engine: ctx.engine, energy }),
      budget,
    });
    const asked = () =>
      app.handle({ method: 'GET', target: '/energy', headers: {}, peer: '192.0.2.7' });
    expect((await asked()).status).toBe(200);
    expect((await asked()).status).toBe(200);
    const over = await asked();
    expect(over.status).toBe(503);
    expect(JSON.parse(text(over.body)).error).toBe('over_budget');
    expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
  });
});

describe('the energy service', () => {
  it('computes one account at a time, shares one span between requests, and says busy past its queue', async () => {
    const { ctx, P, T0 } = await withHistory(3);
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => {
      release = r;
    });
    let pauses = 0;
    const energy = new EnergyService({
      engine: ctx.engine,
      store: ctx.store,
      maxWaiting: 2,
      pause: async () => {
        pauses++;
        await gate;
      },
    });
    const span = (k: bigint) => ({ from: T0, to: T0 + k * P });
    const first = energy.account(span(1n));
    const same = energy.account(span(1n));
    expect(same).toBe(first);
    const queued = [energy.account(span(2n)), energy.account(span(3n))];
    expect(await energy.account({ from: T0, to: T0 + 4n * P })).toEqual({ kind: 'busy' });
    release();
    for (const a of [await first, ...(await Promise.all(queued))]) expect(a.kind).toBe('account');
    expect(pauses).toBeGreaterThan(0);
  });
});
