/**
 * `GET /decisions?from=<µs>&to=<µs>&after=<cursor>&limit=<n>`: the decisions a server signed,
 * listed by time, so that an auditor needs nothing but HTTP (`docs/audit.md`). Each page is
 *
 *   {"decisions":[{"digest":"<hex>","t":"<decimal µs>"},…],"next":"<cursor>"|null,
 *    "decision_uri":"<prefix>","grace_s":<s>}
 *
 * with the decisions of `from` ≤ `t` < `to` in ascending `t`, decisions of equal `t` in the
 * decision log's order (whatever order the instances committed them in), at most `limit` (1 to
 * 1000, default 1000) after the cursor `after` (a page's `next`, opaque; absent or `0`: the first
 * page). `from` defaults to 0 and `to` to 2^64 − 1. `decision_uri` is the policy's prefix of decision URIs (each decision is fetched at
 * that prefix and its digest, §8.4), `grace_s` the session grace in whole seconds (the load
 * replay's).
 */
import { toHex } from '@wai-steering/wire';
import type { DecisionCursor } from '../store/store.js';
import { badQuery, json, storeDamaged, storeUnavailable } from './responses.js';
import type { AppResponse, RouteContext } from './types.js';

/** The most decisions in one page. */
export const MAX_LIST = 1000;
const U64_MAX = (1n << 64n) - 1n;
const DECIMAL = /^[0-9]{1,20}$/;

/**
 * A page's cursor as the listing writes it, `<t>.<xid>.<row id>` in decimal: opaque to clients,
 * who give it back as `after`.
 */
export function writeCursor(c: DecisionCursor): string {
  return `${c.t}.${c.xid}.${c.id}`;
}

const CURSOR = /^([0-9]{1,20})\.([0-9]{1,20})\.([0-9]{1,16})$/;

/** `after`: absent or `0` from the start, or a cursor {@link writeCursor} wrote; else `undefined`. */
export function readCursor(text: string | undefined): DecisionCursor | null | undefined {
  if (text === undefined || text === '0') return null;
  const m = CURSOR.exec(text);
  if (m === null) return undefined;
  const t = BigInt(m[1]!);
  const xid = BigInt(m[2]!);
  const id = Number(m[3]!);
  if (t > U64_MAX || xid > U64_MAX || !Number.isSafeInteger(id)) return undefined;
  return { t, xid, id };
}

/** A listing's query, read; or what is wrong with it. */
export type ListingQuery =
  | {
      readonly from: bigint;
      readonly to: bigint;
      readonly after: DecisionCursor | null;
      readonly limit: number;
    }
  | { readonly error: string };

/** Reads the listing's query string (the target's bytes after `?`): the first of each name. */
export function readListingQuery(query: string): ListingQuery {
  const params = new Map<string, string>();
  for (const part of query === '' ? [] : query.split('&')) {
    const eq = part.indexOf('=');
    const name = eq < 0 ? part : part.slice(0, eq);
    if (!params.has(name)) params.set(name, eq < 0 ? '' : part.slice(eq + 1));
  }
  const u64 = (name: string, fallback: bigint): bigint | string => {
    const v = params.get(name);
    if (v === undefined) return fallback;
    if (!DECIMAL.test(v) || BigInt(v) > U64_MAX) {
      return `${name} is not a decimal number of µs (0 to 2^64 − 1)`;
    }
    return BigInt(v);
  };
  const from = u64('from', 0n);
  if (typeof from === 'string') return { error: from };
  const to = u64('to', U64_MAX);
  if (typeof to === 'string') return { error: to };
  const after = readCursor(params.get('after'));
  if (after === undefined) return { error: 'after is not a cursor this listing gave' };
  const limitText = params.get('limit');
  const limit = limitText === undefined ? MAX_LIST : Number(limitText);
  if (
    limitText !== undefined &&
    (!/^[0-9]{1,4}$/.test(limitText) || limit < 1 || limit > MAX_LIST)
  ) {
    return { error: `limit is not 1 to ${MAX_LIST}` };
  }
  return { from, to, after, limit };
}

export async function listing(ctx: RouteContext): Promise<AppResponse> {
  const q = readListingQuery(ctx.query);
  if ('error' in q) return badQuery(q.error);
  const { engine } = ctx;
  const page = await engine.listDecisions(q.from, q.to, q.after, q.limit);
  if (page.kind === 'store_damaged') return storeDamaged(page.what);
  if (page.kind === 'store_unavailable') return storeUnavailable(page);
  return json(200, {
    decisions: page.decisions.map((d) => ({ digest: toHex(d.digest), t: d.t.toString() })),
    next: page.next === null ? null : writeCursor(page.next),
    decision_uri: engine.policy.decision_uri,
    grace_s: engine.graceS,
  });
}
