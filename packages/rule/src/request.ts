/**
 * What a steering server reads from a steering request's query besides the report (§4): which
 * family of parameters the report is read from (§7.1 `protocol`) and the session the client
 * carries from the last manifest's `RELOAD-URI` (§8.1 `wai_session`). Both read the query as
 * §4.1 does (`readQuery`, the scanner `readReport` uses); a string target is read without being
 * encoded to bytes, each part found by native searches and decoded only when it is read.
 *
 * The extension does not say how a server tells HLS from DASH; this reads a request as DASH
 * when any part's name (percent-decoded, §4.1) begins with `_DASH_` (ETSI TS 103 998 clause 7
 * step 7 has a DASH client add `_DASH_pathway` and `_DASH_throughput`), as HLS otherwise.
 */
import type { Protocol } from './report.js';
import { decodeRangeLatin1, readQuery } from './report.js';

const encoder = new TextEncoder();
const DASH_PREFIX = encoder.encode('_DASH_');
const SESSION_NAME = 'wai_session';
const SESSION_BYTES = encoder.encode(SESSION_NAME);

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
  if (typeof target === 'string') return protocolOfString(target);
  return readQuery(target, (name) => startsWith(name, DASH_PREFIX)).length > 0 ? 'dash' : 'hls';
}

/** A lowercase hexadecimal digit's value, or -1. */
function lowerHex(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x61 + 10;
  return -1;
}

/** `target[from, to)` when it is exactly 32 lowercase hexadecimal digits: its 16 bytes. */
function sessionBytesAt(target: string, from: number, to: number): Uint8Array | undefined {
  if (to - from !== 32) return undefined;
  const out = new Uint8Array(16);
  for (let k = 0; k < 16; k++) {
    const hi = lowerHex(target.charCodeAt(from + 2 * k));
    const lo = lowerHex(target.charCodeAt(from + 2 * k + 1));
    if (hi < 0 || lo < 0) return undefined;
    out[k] = (hi << 4) | lo;
  }
  return out;
}

/**
 * The parts of a string target's query (§4.1: after the first `?`, before any `#`, cut at each
 * `&`), each as offsets into the string: `visit(start, eq, end)` with `eq` the first `=` of the
 * part or -1, until it returns something other than `undefined`, which is returned. No part is
 * copied: a caller slices or decodes only what it reads.
 */
function scanParts<T>(
  target: string,
  visit: (start: number, eq: number, end: number) => T | undefined,
): T | undefined {
  let end = target.indexOf('#');
  if (end === -1) end = target.length;
  const question = target.indexOf('?');
  if (question === -1 || question > end) return undefined;
  for (let start = question + 1; start <= end; ) {
    let amp = target.indexOf('&', start);
    if (amp === -1 || amp > end) amp = end;
    let eq = target.indexOf('=', start);
    if (eq >= amp) eq = -1;
    const found = visit(start, eq, amp);
    if (found !== undefined) return found;
    start = amp + 1;
  }
  return undefined;
}

/** A part's name (percent-decoded, each byte a character) or `undefined` when a `%` in it is bad. */
function nameOf(target: string, start: number, eq: number, end: number): string | undefined {
  const nameEnd = eq === -1 ? end : eq;
  const percent = target.indexOf('%', start);
  if (percent === -1 || percent >= nameEnd) return target.slice(start, nameEnd);
  return decodeRangeLatin1(target, start, nameEnd);
}

/** Whether a part's value has a `%` not followed by two hexadecimal digits (§4.1: then skipped). */
function badValue(target: string, eq: number, end: number): boolean {
  if (eq === -1) return false;
  const percent = target.indexOf('%', eq);
  return percent !== -1 && percent < end && decodeRangeLatin1(target, eq + 1, end) === undefined;
}

/**
 * `protocolOf` of a string, read from the string without encoding it: a character of the string
 * is never a byte of `_DASH_` unless it is that ASCII byte, so the names compare as the bytes
 * would (tested against the byte path, `test/request.prop.test.ts`).
 */
function protocolOfString(target: string): Protocol {
  // No `_DASH_` and no `%` anywhere: no part's name can begin with it.
  if (target.indexOf('_DASH_') === -1 && target.indexOf('%') === -1) return 'hls';
  const dash = scanParts(target, (start, eq, end) => {
    const name = nameOf(target, start, eq, end);
    if (name === undefined || !name.startsWith('_DASH_')) return undefined;
    // §4.1: a part with a bad `%` in its value is skipped too.
    return badValue(target, eq, end) ? undefined : true;
  });
  return dash === true ? 'dash' : 'hls';
}

/**
 * `sessionOf` of a string, read from the string without encoding it (tested against the byte
 * path, `test/request.prop.test.ts`): the first part named `wai_session` (its name
 * percent-decoded) whose `%`s are good, its value percent-decoded; a non-ASCII character is
 * never a hexadecimal digit, as its UTF-8 bytes are none.
 */
function sessionOfString(target: string): Uint8Array | undefined {
  if (target.indexOf(SESSION_NAME) === -1 && target.indexOf('%') === -1) return undefined;
  const found = scanParts<Uint8Array | null>(target, (start, eq, end) => {
    // Most parts are not it: a name of another length, or that begins otherwise, is skipped
    // without a copy.
    const nameEnd = eq === -1 ? end : eq;
    const percent = target.indexOf('%', start);
    const plainName = percent === -1 || percent >= nameEnd;
    if (plainName) {
      if (nameEnd - start !== SESSION_NAME.length || !target.startsWith(SESSION_NAME, start)) {
        return undefined;
      }
    } else if (decodeRangeLatin1(target, start, nameEnd) !== SESSION_NAME) return undefined;
    if (eq === -1) return null; // an empty value
    const valuePercent = target.indexOf('%', eq);
    if (valuePercent === -1 || valuePercent >= end) {
      return sessionBytesAt(target, eq + 1, end) ?? null;
    }
    const value = decodeRangeLatin1(target, eq + 1, end);
    if (value === undefined) return undefined; // §4.1: skipped, a later part may be read
    return sessionBytesAt(value, 0, value.length) ?? null;
  });
  return found ?? undefined;
}

/**
 * §8.1: the session a steering request carries, the value of its first `wai_session` part
 * (§4.1: the first part of a name read is read, later ones ignored), when that value is exactly
 * 32 lowercase hexadecimal digits: its 16 bytes. `undefined` otherwise (the server then mints a
 * session, §6).
 */
export function sessionOf(target: string | Uint8Array): Uint8Array | undefined {
  checkTarget(target);
  if (typeof target === 'string') return sessionOfString(target);
  const [first] = readQuery(target, (name) => equalBytes(name, SESSION_BYTES));
  if (first === undefined) return undefined;
  let hex = '';
  for (const b of first.value) {
    if (b > 0x7f) return undefined;
    hex += String.fromCharCode(b);
  }
  return sessionBytesAt(hex, 0, hex.length);
}
