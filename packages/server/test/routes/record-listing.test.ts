// `GET /records`: the records of a span listed by time with their bytes, which an archive
// carries whole (the energy account reads every record of a span's hops).
import { createHash } from 'node:crypto';
import { readHopRecord, unwrap } from '@wai-steering/wire';
import { afterEach, describe, expect, it } from 'vitest';
import { demoApp, get, postPeriods, text } from '../helpers/setup.js';

const contexts: Awaited<ReturnType<typeof demoApp>>[] = [];
afterEach(async () => {
  for (const c of contexts.splice(0)) await c.close();
});

const digestOf = (b: Uint8Array) =>
  createHash('sha256')
    .update(b.subarray(0, b.length - 64))
    .digest('hex');

async function list(app: Awaited<ReturnType<typeof demoApp>>['app'], query: string) {
  const res = await get(app, `/records${query}`);
  return { res, body: JSON.parse(text(res.body)) };
}

describe('GET /records', () => {
  it('lists every record of a span by start, a page at a time, each whole start in one page', async () => {
    const ctx = await demoApp();
    contexts.push(ctx);
    const P = ctx.setup.policy.period_us;
    const now = ctx.clock.us - (ctx.clock.us % P);
    const ends = [now - 3n * P, now - 2n * P, now - P, now];
    const posted = await postPeriods(ctx, ends);
    const hops = ctx.setup.hops.length;
    expect(posted).toHaveLength(4 * hops);

    // All of them, pages of 2 records: each page ends between two starts (all the hops of one
    // period together), with CORS.
    const seen: Uint8Array[] = [];
    let after = '0';
    let pages = 0;
    for (;;) {
      const { res, body } = await list(ctx.app, `?limit=2&after=${after}`);
      expect(res.status).toBe(200);
      expect(res.headers['access-control-allow-origin']).toBe('*');
      const records = (body.records as string[]).map(
        (b) => new Uint8Array(Buffer.from(b, 'base64')),
      );
      const starts = new Set(records.map((r) => unwrap(readHopRecord(r)).start));
      expect(starts.size).toBe(1);
      seen.push(...records);
      pages++;
      if (body.next === null) break;
      expect(body.next).toBe([...starts][0]!.toString());
      after = body.next;
    }
    expect(pages).toBe(4);
    expect(seen.map(digestOf).sort()).toEqual([...posted].sort());
    const starts = seen.map((r) => unwrap(readHopRecord(r)).start);
    expect(starts).toEqual([...starts].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));

    // A span: the records that meet [from, to), a record ending at from excluded.
    const { body } = await list(ctx.app, `?from=${now - 2n * P}&to=${now - P}`);
    const inSpan = (body.records as string[]).map((b) =>
      unwrap(readHopRecord(new Uint8Array(Buffer.from(b, 'base64')))),
    );
    expect(inSpan).toHaveLength(hops);
    expect(inSpan.every((r) => r.start === now - 2n * P && r.end === now - P)).toBe(true);
    expect(body.next).toBeNull();
  });

  it('answers 400 to a query it cannot read; POST is still the ingest', async () => {
    const ctx = await demoApp();
    contexts.push(ctx);
    for (const q of ['?from=x', '?to=-1', '?limit=0', '?limit=10001', '?after=abc']) {
      const { res, body } = await list(ctx.app, q);
      expect(res.status, q).toBe(400);
      expect(body.error).toBe('bad_query');
    }
    const bad = await ctx.app.handle({ method: 'PUT', target: '/records', headers: {} });
    expect(bad.status).toBe(405);
    expect(bad.headers.allow).toBe('GET, HEAD, POST, OPTIONS');
  });
});
