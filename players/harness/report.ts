// What §4 says the server reads from a steering request, written here independently of the
// server's own reader, for the forms these three players send: a decision's report must be this.
// It covers the query (§4.1), the HLS and DASH parameters (§4.2, §4.3) and CMCD `bl` and `mtp`
// as Integers or Inner Lists of Integers in the `CMCD` parameter or the `CMCD-Request` header
// (§4.4); the full RFC 9651 grammar is the rule package's and its tests'.

import type { IncomingHttpHeaders } from 'node:http';

export interface Report {
  /** The index of the client's current pathway, or null when absent. */
  readonly pathway: number | null;
  /** Bits per second, or null. */
  readonly throughput: bigint | null;
  /** Milliseconds, or null. */
  readonly buffer: bigint | null;
}

const U64_MAX = (1n << 64n) - 1n;

function integer(s: string): bigint | null {
  if (!/^[0-9]{1,20}$/.test(s)) return null;
  const v = BigInt(s);
  return v <= U64_MAX ? v : null;
}

function unquote(s: string): string {
  return s.length >= 2 && s.startsWith('"') && s.endsWith('"') ? s.slice(1, -1) : s;
}

/** §4.1: the query's parts, decoded; parts with a bad `%` dropped; the first of a name wins. */
export function queryOf(target: string): Map<string, string> {
  const noFragment = target.split('#')[0]!;
  const q = noFragment.indexOf('?');
  const out = new Map<string, string>();
  if (q < 0) return out;
  for (const part of noFragment.slice(q + 1).split('&')) {
    const eq = part.indexOf('=');
    const rawName = eq < 0 ? part : part.slice(0, eq);
    const rawValue = eq < 0 ? '' : part.slice(eq + 1);
    if (/%(?![0-9A-Fa-f]{2})/.test(part)) continue;
    let name: string;
    let value: string;
    try {
      name = decodeURIComponent(rawName);
      value = decodeURIComponent(rawValue);
    } catch {
      continue;
    }
    if (!out.has(name)) out.set(name, value);
  }
  return out;
}

/** The least Integer of a CMCD member: an Integer, or an Inner List of Integers (§4.4). */
function cmcdInteger(value: string): bigint | null {
  const v = value.trim();
  if (v.startsWith('(')) {
    const close = v.indexOf(')');
    if (close < 0) return null;
    // Each item may carry parameters (CTA-5004-B: `bl=(2000;v 1800;a)`).
    const items = v
      .slice(1, close)
      .trim()
      .split(/ +/)
      .filter((i) => i !== '')
      .map((i) => integer(i.split(';')[0]!));
    if (items.length === 0) return null;
    let least: bigint | null = null;
    for (const i of items) {
      if (i === null) return null;
      if (least === null || i < least) least = i;
    }
    return least;
  }
  return integer(v.split(';')[0]!);
}

/** The members of a CMCD dictionary, split at top-level commas (quoted strings kept whole). */
function cmcdMembers(dict: string): Map<string, string> {
  const members = new Map<string, string>();
  let depth = 0;
  let quoted = false;
  let start = 0;
  const parts: string[] = [];
  for (let i = 0; i < dict.length; i++) {
    const ch = dict[i];
    if (quoted) {
      if (ch === '\\') i++;
      else if (ch === '"') quoted = false;
    } else if (ch === '"') quoted = true;
    else if (ch === '(') depth++;
    else if (ch === ')') depth--;
    else if (ch === ',' && depth === 0) {
      parts.push(dict.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(dict.slice(start));
  for (const p of parts) {
    const t = p.trim();
    const eq = t.indexOf('=');
    const key = eq < 0 ? t : t.slice(0, eq);
    if (!members.has(key)) members.set(key, eq < 0 ? '?1' : t.slice(eq + 1));
  }
  return members;
}

/** §4: the report of a request, for pathway IDs `ids` in the policy's order. */
export function expectedReport(
  target: string,
  headers: IncomingHttpHeaders,
  ids: readonly string[],
): { protocol: 'hls' | 'dash'; report: Report } {
  const query = queryOf(target);
  const dash = [...query.keys()].some((k) => k.startsWith('_DASH_'));
  let pathway: number | null = null;
  let throughput: bigint | null = null;
  if (dash) {
    const listed = query.has('_DASH_pathway')
      ? unquote(query.get('_DASH_pathway')!).split(',')
      : [];
    let j = -1;
    for (const [k, item] of listed.entries()) {
      const index = ids.indexOf(item);
      if (index >= 0) {
        pathway = index;
        j = k;
        break;
      }
    }
    const tputs = query.has('_DASH_throughput') ? query.get('_DASH_throughput')!.split(',') : [];
    const item = tputs[Math.max(j, 0)];
    throughput = item === undefined ? null : integer(item);
  } else {
    const p = query.get('_HLS_pathway');
    if (p !== undefined && ids.includes(unquote(p))) pathway = ids.indexOf(unquote(p));
    const t = query.get('_HLS_throughput');
    throughput = t === undefined ? null : integer(t);
  }
  const header = headers['cmcd-request'];
  const cmcd = query.get('CMCD') ?? (Array.isArray(header) ? header.join(', ') : header);
  let buffer: bigint | null = null;
  // A `+` outside a String is no RFC 9651 (§4.1 does not decode it to a space): the value does
  // not parse, and gives neither key.
  if (cmcd !== undefined && !/\+/.test(cmcd.replace(/"(?:[^"\\]|\\.)*"/g, ''))) {
    const m = cmcdMembers(cmcd);
    buffer = m.has('bl') ? cmcdInteger(m.get('bl')!) : null;
    const mtp = m.has('mtp') ? cmcdInteger(m.get('mtp')!) : null;
    if (throughput === null && mtp !== null) throughput = mtp * 1000n;
  }
  return { protocol: dash ? 'dash' : 'hls', report: { pathway, throughput, buffer } };
}
