// `GET /decisions`: the listing by time an auditor reads (`docs/audit.md`).
import { readDecision, toHex, unwrap } from '@wai-steering/wire';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_LIST, readCursor, readListingQuery, writeCursor } from '../../src/routes/listing.js';
import { demoApp, get, postPeriods, text } from '../helpers/setup.js';

const contexts: Awaited<ReturnType<typeof demoApp>>[] = [];
afterEach(async () => {
  for (const c of contexts.splice(0)) await c.close();
});

async function decided(n: number) {
  const ctx = await demoApp();
  contexts.push(ctx);
  const P = ctx.setup.policy.period_us;
  const start = ctx.clock.us;
  await postPeriods(
    ctx,
    [start - 2n * P, start - P, start].map((e) => e - (e % P)),
  );
  const made: { digest: string; t: bigint }[] = [];
  for (let i = 0; i < n; i++) {
    ctx.clock.advance(250);
    const res = await get(ctx.app, '/steer');
    expect(res.status).toBe(200);
    const uri = JSON.parse(text(res.body))['science.transaction.wai-decision'] as string;
    const digest = uri.slice(-64);
    made.push({ digest, t: ctx.clock.us });
  }
  return { ctx, made };
}

async function list(app: Awaited<ReturnType<typeof demoApp>>['app'], query: string) {
  const res = await get(app, `/decisions${query}`);
  return { res, body: JSON.parse(text(res.body)) };
}

describe('GET /decisions', () => {
  it('lists the decisions by time, a page at a time, with CORS', async () => {
    const { ctx, made } = await decided(7);
    const seen: { digest: string; t: string }[] = [];
    let after: string | null = '0';
    let pages = 0;
    while (after !== null) {
      const { res, body } = await list(ctx.app, `?limit=3&after=${after}`);
      expect(res.status).toBe(200);
      expect(res.headers['access-control-allow-origin']).toBe('*');
      seen.push(...body.decisions);
      after = body.next;
      pages++;
    }
    expect(pages).toBe(3);
    expect(seen).toEqual(made.map((m) => ({ digest: m.digest, t: m.t.toString() })));
    // Each is served at its URI, and its t is the one listed.
    for (const s of seen) {
      const res = await get(ctx.app, `/decisions/${s.digest}`);
      expect(res.status).toBe(200);
      const d = unwrap(readDecision(res.body as Uint8Array));
      expect(d.t.toString()).toBe(s.t);
      expect(toHex(d.body).length).toBeGreaterThan(0);
    }
  });

  it('keeps from ≤ t < to', async () => {
    const { ctx, made } = await decided(6);
    const from = made[2]!.t;
    const to = made[5]!.t;
    const { body } = await list(ctx.app, `?from=${from}&to=${to}`);
    expect(body.decisions.map((d: { digest: string }) => d.digest)).toEqual(
      made.slice(2, 5).map((m) => m.digest),
    );
    expect(body.next).toBeNull();
  });

  it('answers 400 to a query it cannot read', async () => {
    const { ctx } = await decided(1);
    for (const q of [
      '?from=x',
      '?to=-1',
      '?limit=0',
      '?limit=1001',
      '?after=abc',
      // A row id alone is not a cursor of the listing by time.
      '?after=7',
      '?after=1.2.3',
      '?from=99999999999999999999999',
    ]) {
      const { res, body } = await list(ctx.app, q);
      expect(res.status, q).toBe(400);
      expect(body.error).toBe('bad_query');
    }
    const res = await ctx.app.handle({ method: 'POST', target: '/decisions', headers: {} });
    expect(res.status).toBe(405);
  });
});

describe('readListingQuery', () => {
  const U64_MAX = (1n << 64n) - 1n;

  it('reads every parameter, the first of each name, with the defaults', () => {
    expect(readListingQuery('')).toEqual({ from: 0n, to: U64_MAX, after: null, limit: MAX_LIST });
    expect(readListingQuery('after=0')).toMatchObject({ after: null });
    expect(readListingQuery('from=5&to=9&after=7.12.3&limit=2&from=7')).toEqual({
      from: 5n,
      to: 9n,
      after: { t: 7n, xid: 12n, id: 3 },
      limit: 2,
    });
    expect(readListingQuery(`to=${U64_MAX}`)).toMatchObject({ to: U64_MAX });
  });

  it('names what does not read', () => {
    expect(readListingQuery('from=')).toEqual({
      error: 'from is not a decimal number of µs (0 to 2^64 − 1)',
    });
    expect(readListingQuery(`to=${U64_MAX + 1n}`)).toEqual({
      error: 'to is not a decimal number of µs (0 to 2^64 − 1)',
    });
    for (const after of ['3', `1.0.${2 ** 53}`, `${U64_MAX + 1n}.0.1`, '1.2', '1..2', '1.2.3.4']) {
      expect(readListingQuery(`after=${after}`), after).toEqual({
        error: 'after is not a cursor this listing gave',
      });
    }
    expect(readListingQuery('limit=1001')).toEqual({ error: 'limit is not 1 to 1000' });
    expect(readListingQuery('limit=01')).toEqual({ from: 0n, to: U64_MAX, after: null, limit: 1 });
  });
});

describe('the cursor', () => {
  it('reads back what it writes', () => {
    for (const c of [
      { t: 0n, xid: 0n, id: 0 },
      { t: (1n << 64n) - 1n, xid: (1n << 64n) - 1n, id: Number.MAX_SAFE_INTEGER },
      { t: 1_800_000_000_000_000n, xid: 771n, id: 42 },
    ]) {
      expect(readCursor(writeCursor(c))).toEqual(c);
    }
    expect(readCursor(undefined)).toBeNull();
    expect(readCursor('0')).toBeNull();
  });
});
