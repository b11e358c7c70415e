/**
 * `GET /decisions?from=<µs>&to=<µs>&after=<cursor>&limit=<n>`: the decisions a server signed,
 * listed by time, so that an auditor needs nothing but HTTP (`docs/audit.md`). Each page is
 *
 *   {"decisions":[{"digest":"<hex>","t":"<decimal µs>"},…],"next":"<cursor>"|null}
 *
 * with the decisions of `from` ≤ `t` < `to` in ascending `t` (equal `t`: the order they were
 * stored), whatever order the instances committed them in, at most `limit` (1 to 1000, default
 * 1000) after the cursor `after` (a page's `next`, opaque; absent or `0`: the first page). `from`
 * defaults to 0 and `to` to 2^64 − 1. The server adds `"decision_uri"`, its policy's prefix
 * of decision URIs (each decision is fetched at that prefix and its digest, §8.4), and
 * `"grace_s"`, its session grace in whole seconds (the load replay's).
 */
import { toHex } from '@wai-steering/wire';
import type { DecisionCursor, SteeringStore } from './store/store.js';

/**
 * A page's cursor as the listing writes it, `<t>.<row id>` in decimal: opaque to clients, who
 * give it back as `after`.
 */
function writeCursor(c: DecisionCursor): string {
  return `${c.t}.${c.id}`;
}

const CURSOR = /^([0-9]{1,20})\.([0-9]{1,16})$/;

/** `after`: absent or `0` from the start, or a cursor {@link writeCursor} wrote; else undefined. */
function readCursor(text: string | undefined): DecisionCursor | null | undefined {
  if (text === undefined || text === '0') return null;
  const m = CURSOR.exec(text);
  if (m === null) return undefined;
  const t = BigInt(m[1]!);
  const id = Number(m[2]!);
  if (t > U64_MAX || !Number.isSafeInteger(id)) return undefined;
  return { t, id };
}

/** The most decisions in one page. */
export const MAX_LIST = 1000;
const U64_MAX = (1n << 64n) - 1n;
const DECIMAL = /^[0-9]{1,20}$/;

/** A listing's answer: its status and its JSON. */
export interface ListingResponse {
  readonly status: number;
  readonly body: unknown;
}

function bad(message: string): ListingResponse {
  return { status: 400, body: { error: 'bad_query', message } };
}

/**
 * The listing's answer to a query string (the target's bytes after `?`); `extra` members (the
 * policy's `decision_uri`, where each decision is fetched) are written after `next`.
 */
export async function listDecisions(
  store: SteeringStore,
  query: string,
  extra: Readonly<Record<string, unknown>> = {},
): Promise<ListingResponse> {
  const params = new Map<string, string>();
  for (const part of query === '' ? [] : query.split('&')) {
    const eq = part.indexOf('=');
    const name = eq < 0 ? part : part.slice(0, eq);
    const value = eq < 0 ? '' : part.slice(eq + 1);
    if (!params.has(name)) params.set(name, value);
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
  if (typeof from === 'string') return bad(from);
  const to = u64('to', U64_MAX);
  if (typeof to === 'string') return bad(to);
  const after = readCursor(params.get('after'));
  if (after === undefined) return bad('after is not a cursor this listing gave');
  const limitText = params.get('limit');
  const limit = limitText === undefined ? MAX_LIST : Number(limitText);
  if (
    limitText !== undefined &&
    (!/^[0-9]{1,4}$/.test(limitText) || limit < 1 || limit > MAX_LIST)
  ) {
    return bad(`limit is not 1 to ${MAX_LIST}`);
  }
  const page = await store.listDecisions(from, to, after, limit);
  return {
    status: 200,
    body: {
      decisions: page.decisions.map((d) => ({ digest: toHex(d.digest), t: d.t.toString() })),
      next: page.next === null ? null : writeCursor(page.next),
      ...extra,
    },
  };
}
