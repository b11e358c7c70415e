/**
 * `GET /records?from=<µs>&to=<µs>&after=<cursor>&limit=<n>`: the per-hop records a server holds
 * whose span meets `[from, to)`, listed by time with their bytes, so that an archive carries
 * every record of a span's hops (the energy account reads them all, not only those decisions
 * name; `docs/audit.md`, *The listing by time*). Each page is
 *
 *   {"records":["<base64 of a WMH1 record>",…],"next":"<cursor>"|null}
 *
 * in ascending `start`, at most `limit` (1 to 10 000, default 1000) and then the rest of the last
 * `start` listed, after the cursor `after` (a page's `next`; absent or `0`: the first page).
 * `from` defaults to 0 and `to` to 2^64 − 1. A client hashes each record itself (C1).
 */
import { badQuery, json, storeDamaged, storeUnavailable } from './responses.js';
import type { AppResponse, RouteContext } from './types.js';

/** The most records in one page (then the rest of its last `start`). */
export const MAX_RECORDS = 10_000;
const U64_MAX = (1n << 64n) - 1n;
const DECIMAL = /^[0-9]{1,20}$/;

/** The listing's query, read; or what is wrong with it. */
function readQuery(
  query: string,
): { from: bigint; to: bigint; after: bigint | null; limit: number } | { error: string } {
  const params = new Map<string, string>();
  for (const part of query === '' ? [] : query.split('&')) {
    const eq = part.indexOf('=');
    const name = eq < 0 ? part : part.slice(0, eq);
    if (!params.has(name)) params.set(name, eq < 0 ? '' : part.slice(eq + 1));
  }
  const u64 = (name: string): bigint | string | undefined => {
    const v = params.get(name);
    if (v === undefined) return undefined;
    if (!DECIMAL.test(v) || BigInt(v) > U64_MAX) {
      return `${name} is not a decimal number of µs (0 to 2^64 − 1)`;
    }
    return BigInt(v);
  };
  const from = u64('from') ?? 0n;
  if (typeof from === 'string') return { error: from };
  const to = u64('to') ?? U64_MAX;
  if (typeof to === 'string') return { error: to };
  const afterText = params.get('after');
  const after = afterText === undefined || afterText === '0' ? null : u64('after')!;
  if (typeof after === 'string') return { error: 'after is not a cursor this listing gave' };
  const limitText = params.get('limit');
  const limit = limitText === undefined ? 1000 : Number(limitText);
  if (
    limitText !== undefined &&
    (!/^[0-9]{1,5}$/.test(limitText) || limit < 1 || limit > MAX_RECORDS)
  ) {
    return { error: `limit is not 1 to ${MAX_RECORDS}` };
  }
  return { from, to, after, limit };
}

export async function recordListing(ctx: RouteContext): Promise<AppResponse> {
  const q = readQuery(ctx.query);
  if ('error' in q) return badQuery(q.error);
  const page = await ctx.engine.listRecords(q.from, q.to, q.after, q.limit);
  if (page.kind === 'store_damaged') return storeDamaged(page.what);
  if (page.kind === 'store_unavailable') return storeUnavailable(page);
  return json(200, {
    records: page.records.map((b) =>
      Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('base64'),
    ),
    next: page.next === null ? null : page.next.toString(),
  });
}
