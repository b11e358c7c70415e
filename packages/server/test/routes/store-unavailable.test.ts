// Every route that writes or reads the store, with the embedded store's connection closed under
// the server (better-sqlite3's own error, "The database connection is not open"): each answers
// `503 store_unavailable` with `Retry-After`, never a 500 or a false 404, and health says why.
// `test/integration/store-outage.test.ts` does the same through a PostgreSQL stopped at once.
import { toHex } from '@wai-steering/wire';
import { afterEach, describe, expect, it } from 'vitest';
import type { AppResponse } from '../../src/routes/types.js';
import { demoApp, get, post, text } from '../helpers/setup.js';
import { signReport } from '../live/world.js';

type Ctx = Awaited<ReturnType<typeof demoApp>>;
let ctx: Ctx | undefined;
afterEach(async () => {
  await ctx?.close();
  ctx = undefined;
});

const LIVE = { pathways: new Set([1]), capacityThresholdPpm: 100_000, latencyThresholdMs: 10 };

/** A demo app with a decision and a record kept, then its store's connection closed. */
async function withStoreGone() {
  const c = await demoApp({ live: LIVE });
  const steered = await get(c.app, '/steer');
  expect(steered.status).toBe(200);
  const digest = JSON.parse(text(steered.body))['science.transaction.wai-decision'].slice(-64);
  const P = c.setup.policy.period_us;
  const end = (c.clock.us / P) * P;
  const record = c.sim.record(c.setup.hops[0]!, end - P, end, 11);
  const kept = await post(c.app, '/records', record);
  expect(kept.status).toBe(201);
  const recordDigest = JSON.parse(text(kept.body)).digest as string;
  await c.store.close();
  return { c, digest, record, recordDigest };
}

function unavailable(res: AppResponse, status = 503): void {
  expect([res.status, JSON.parse(text(res.body)).error]).toEqual([status, 'store_unavailable']);
  expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
}

describe('the store gone under the routes', () => {
  it('steering: store_unavailable (503 to HLS, 429 to others), health commit', async () => {
    const { c } = await withStoreGone();
    ctx = c;
    unavailable(await get(c.app, '/steer?_HLS_pathway=cdn-a'));
    // Any other client is answered 429, which the DASH players honour (docs/players.md).
    unavailable(await get(c.app, '/steer'), 429);
    expect(c.engine.health.has('commit')).toBe(true);
    expect((await get(c.app, '/healthz')).status).toBe(503);
  });

  it('ingest: 503 store_unavailable, the record not taken', async () => {
    const { c } = await withStoreGone();
    ctx = c;
    const P = c.setup.policy.period_us;
    const end = (c.clock.us / P) * P;
    unavailable(await post(c.app, '/records', c.sim.record(c.setup.hops[1]!, end - P, end, 12)));
    expect(c.engine.health.has('commit')).toBe(true);
  });

  it('a record held already, outside the horizon now: 503, not a refusal', async () => {
    const { c, record } = await withStoreGone();
    ctx = c;
    // Ten days later: the record is before the records' retention (outside the horizon), and
    // whether it is held (then answered as held) cannot be read.
    c.clock.advance(10 * 86_400_000);
    unavailable(await post(c.app, '/records', record));
    expect(c.engine.health.has('store_queries')).toBe(true);
  });

  it('capacity: 503 store_unavailable, the report not taken', async () => {
    const { c } = await withStoreGone();
    ctx = c;
    const hop = c.setup.hops.find((h) => h.pathway === 1 && h.place === 1)!;
    const jws = await signReport(hop.key, {
      room: toHex(c.setup.roomId),
      pathway: 'cdn-b',
      gas: 7,
      t: String(c.clock.us),
      expires: String(c.clock.us + 5_000_000n),
      window_us: '1000000',
    });
    const res = await c.app.handle({
      method: 'POST',
      target: '/capacity',
      headers: {},
      body: async () => new TextEncoder().encode(jws),
    });
    unavailable(res);
    expect(c.engine.live!.values()[1]!.source).toBe('template');
  });

  it('reads by digest and the listing: 503 store_unavailable, never a 404', async () => {
    const { c, digest, recordDigest } = await withStoreGone();
    ctx = c;
    unavailable(await get(c.app, `/decisions/${digest}`));
    unavailable(await get(c.app, '/decisions?from=0'));
    unavailable(await get(c.app, `/records/${recordDigest}`));
    unavailable(await get(c.app, `/policies/${'ab'.repeat(32)}`));
    // The policy in force is served from memory.
    expect((await get(c.app, `/policies/${toHex(c.engine.policyDigest)}`)).status).toBe(200);
    expect(c.engine.health.causes().map((x) => x.cause)).toEqual(['store_queries']);
  });
});
