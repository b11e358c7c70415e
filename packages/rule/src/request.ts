/**
 * What a steering server reads from a steering request's query besides the report (§4): which
 * family of parameters the report is read from (§7.1 `protocol`) and the session the client
 * carries from the last manifest's `RELOAD-URI` (§8.1 `wai_session`). Both read the query as
 * §4.1 does (`readQuery`, the scanner `readReport` uses); an all-ASCII string target whose query
 * holds no `%` takes a fast path that reads the same parts without encoding the target.
 *
 * The extension does not say how a server tells HLS from DASH; this reads a request as DASH
 * when any part's name (percent-decoded, §4.1) begins with `_DASH_` (ETSI TS 103 998 clause 7
 * step 7 has a DASH client add `_DASH_pathway` and `_DASH_throughput`), as HLS otherwise.
 */
import type { Protocol } from './report.js';
import { readQuery } from './report.js';

const encoder = new TextEncoder();
const DASH_PREFIX = encoder.encode('_DASH_');
const SESSION_NAME = 'wai_session';
const SESSION_BYTES = encoder.encode(SESSION_NAME);
const NON_ASCII = /[^\x00-\x7f]/;
const SESSION_HEX = /^[0-9a-f]{32}$/;

/**
 * The query of an all-ASCII string target with no `%` in it (§4.1: after the first `?`, before
 * any `#`), whose parts then need no decoding; `undefined` when the target is not such a string.
 */
function plainQuery(target: string | Uint8Array): string | undefined {
  if (typeof target !== 'string' || NON_ASCII.test(target)) return undefined;
  let end = target.indexOf('#');
  if (end === -1) end = target.length;
  const question = target.indexOf('?');
  if (question === -1 || question > end) return '';
  const query = target.slice(question + 1, end);
  return query.indexOf('%') === -1 ? query : undefined;
}

function startsWith(bytes: Uint8Array, prefix: Uint8Array): boolean {
  if (bytes.length < prefix.length) return false;
  for (let k = 0; k < prefix.length; k++) if (bytes[k] !== prefix[k]) return false;
  return true;
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && startsWith(a, b);
}

function checkTarget(target: unknown): asserts target is string | Uint8Array {
  if (typeof target !== 'string' && !(target instanceof Uint8Array)) {
    throw new TypeError('a request target is a string or a Uint8Array');
  }
}

/**
 * §7.1 `protocol` of a steering request: `'dash'` when a part of its query (§4.1) has a name
 * beginning with `_DASH_`, `'hls'` otherwise. A part §4.1 skips (a bad `%`) counts for neither.
 */
export function protocolOf(target: string | Uint8Array): Protocol {
  checkTarget(target);
  const plain = plainQuery(target);
  if (plain !== undefined) {
    if (plain.indexOf('_DASH_') === -1) return 'hls';
    for (const part of plain.split('&')) if (part.startsWith('_DASH_')) return 'dash';
    return 'hls';
  }
  return readQuery(target, (name) => startsWith(name, DASH_PREFIX)).length > 0 ? 'dash' : 'hls';
}

function sessionBytes(hex: string): Uint8Array | undefined {
  if (!SESSION_HEX.test(hex)) return undefined;
  const out = new Uint8Array(16);
  for (let k = 0; k < 16; k++) out[k] = Number.parseInt(hex.slice(2 * k, 2 * k + 2), 16);
  return out;
}

/**
 * §8.1: the session a steering request carries, the value of its first `wai_session` part
 * (§4.1: the first part of a name read is read, later ones ignored), when that value is exactly
 * 32 lowercase hexadecimal digits: its 16 bytes. `undefined` otherwise (the server then mints a
 * session, §6).
 */
export function sessionOf(target: string | Uint8Array): Uint8Array | undefined {
  checkTarget(target);
  const plain = plainQuery(target);
  if (plain !== undefined) {
    if (plain.indexOf(SESSION_NAME) === -1) return undefined;
    for (const part of plain.split('&')) {
      if (!part.startsWith(SESSION_NAME)) continue;
      const n = SESSION_NAME.length;
      if (part.length === n) return undefined; // no `=`: an empty value
      if (part.charCodeAt(n) !== 0x3d) continue; // another name
      return sessionBytes(part.slice(n + 1));
    }
    return undefined;
  }
  const [first] = readQuery(target, (name) => equalBytes(name, SESSION_BYTES));
  if (first === undefined) return undefined;
  let hex = '';
  for (const b of first.value) {
    if (b > 0x7f) return undefined;
    hex += String.fromCharCode(b);
  }
  return sessionBytes(hex);
}
