/**
 * §4: what a steering server reads from a client's steering request — the current pathway c,
 * the throughput T (bits per second) and the buffer B (milliseconds) — with C9's readings.
 * Every value is exact: a `bigint`, never a float. A value that does not read is absent
 * (`null`), never zero (§4).
 *
 * One cohesive reader over 450 lines: the query scanner, its ASCII fast path and the CMCD reading
 * share the names read and the one pass over the target that §4.1 describes.
 */
import { bytesEqual } from '@wai-steering/wire';
import { latin1 } from '@wai-steering/wire/internal';
import { parseDictionary, type SfMember } from './structured-field.js';

/** §7.1 `protocol`: which family of parameters the report is read from (C9). */
export type Protocol = 'hls' | 'dash';

/** A steering request as C8 gives it. */
export interface SteeringRequest {
  readonly protocol: Protocol;
  /** The HTTP request-target; a string is taken as its UTF-8 bytes (C9). */
  readonly target: string | Uint8Array;
  /** Header fields by name; names are matched case-insensitively (C9). */
  readonly headers?: Readonly<Record<string, string>>;
}

/** §4: c (an index into the policy's pathways), T and B; `null` when absent. */
export interface Report {
  readonly pathway: number | null;
  readonly throughput: bigint | null;
  readonly buffer: bigint | null;
}

/** C8: a report as JSON, u64 quantities as decimal strings. */
export interface ReportJson {
  readonly pathway: number | null;
  readonly throughput: string | null;
  readonly buffer: string | null;
}

/** §4.1: one part of the query, its name and value percent-decoded to bytes. */
export interface QueryPart {
  readonly name: Uint8Array;
  readonly value: Uint8Array;
}

const encoder = new TextEncoder();
const ascii = (s: string): Uint8Array => encoder.encode(s);

/** The names of §4.2 to §4.4 a server reads. */
const READ_NAME_STRINGS = [
  '_HLS_pathway',
  '_HLS_throughput',
  '_DASH_pathway',
  '_DASH_throughput',
  'CMCD',
] as const;
const READ_NAMES = READ_NAME_STRINGS.map(ascii);
const [HLS_PATHWAY, HLS_THROUGHPUT, DASH_PATHWAY, DASH_THROUGHPUT, CMCD] = READ_NAMES as [
  Uint8Array,
  Uint8Array,
  Uint8Array,
  Uint8Array,
  Uint8Array,
];
const CMCD_HEADER = 'cmcd-request';

const HASH = 0x23;
const PERCENT = 0x25;
const AMPERSAND = 0x26;
const EQUALS = 0x3d;
const QUESTION = 0x3f;
const DQUOTE = 0x22;
const SP = 0x20;
const HTAB = 0x09;

const U64_MAX = (1n << 64n) - 1n;

function hexValue(c: number | undefined): number {
  if (c === undefined) return -1;
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x41 && c <= 0x46) return c - 0x41 + 10;
  if (c >= 0x61 && c <= 0x66) return c - 0x61 + 10;
  return -1;
}

/**
 * §4.1: percent-decoding of RFC 3986 §2.1, to bytes; `+` is not a space. `undefined` when a
 * `%` is not followed by two hexadecimal digits (either case).
 */
function percentDecode(bytes: Uint8Array): Uint8Array | undefined {
  if (!bytes.includes(PERCENT)) return bytes;
  const out = new Uint8Array(bytes.length);
  let o = 0;
  for (let k = 0; k < bytes.length; k++) {
    const c = bytes[k]!;
    if (c !== PERCENT) {
      out[o++] = c;
      continue;
    }
    const hi = hexValue(bytes[k + 1]);
    const lo = hexValue(bytes[k + 2]);
    if (hi < 0 || lo < 0) return undefined;
    out[o++] = (hi << 4) | lo;
    k += 2;
  }
  return out.subarray(0, o);
}

function bytesOf(target: string | Uint8Array): Uint8Array {
  if (typeof target === 'string') return encoder.encode(target); // C9: UTF-8 bytes
  if (target instanceof Uint8Array) return target;
  throw new TypeError('a request target is a string or a Uint8Array');
}

/** The pieces of `bytes` between each `separator` (an empty input is one empty piece). */
function cut(bytes: Uint8Array, separator: number): Uint8Array[] {
  const pieces: Uint8Array[] = [];
  let start = 0;
  for (let at = bytes.indexOf(separator); at !== -1; at = bytes.indexOf(separator, start)) {
    pieces.push(bytes.subarray(start, at));
    start = at + 1;
  }
  pieces.push(bytes.subarray(start));
  return pieces;
}

/**
 * §4.1 with C9: the target is cut at its first `#`; the query is what follows the first `?` of
 * what remains. It is cut at each `&`; each part at its first `=` (no `=`: an empty value); name
 * and value are percent-decoded; a part with a `%` not followed by two hexadecimal digits is
 * dropped here, before "the first is read" applies. The parts are returned in order; with
 * `reads`, only the parts of the names it reads (the values of others are not decoded).
 */
export function readQuery(
  target: string | Uint8Array,
  reads: (name: Uint8Array) => boolean = () => true,
): QueryPart[] {
  let bytes = bytesOf(target);
  const hash = bytes.indexOf(HASH);
  if (hash !== -1) bytes = bytes.subarray(0, hash);
  const question = bytes.indexOf(QUESTION);
  if (question === -1) return [];
  const parts: QueryPart[] = [];
  for (const part of cut(bytes.subarray(question + 1), AMPERSAND)) {
    const eq = part.indexOf(EQUALS);
    const name = percentDecode(eq === -1 ? part : part.subarray(0, eq));
    // A part whose name is not read is never "the first part with a name the server reads"
    // (§4.1), whatever its value: its value need not be decoded.
    if (name === undefined || !reads(name)) continue;
    const value = percentDecode(eq === -1 ? part.subarray(part.length) : part.subarray(eq + 1));
    if (value === undefined) continue; // §4.1: skipped
    parts.push({ name, value });
  }
  return parts;
}

const NON_ASCII = /[^\x00-\x7f]/;

/**
 * §4.1: the value of the first part of each name the server reads, percent-decoded, as Latin-1
 * strings: each decoded byte one character (U+0000 to U+00FF), so that a byte over 0x7F stays
 * one non-ASCII character. Strings rather than byte arrays: unquoting, cutting at "," and
 * matching an id are then slices and map lookups, where views of bytes cost an object each.
 */
interface ReadValues {
  hlsPathway?: string;
  hlsThroughput?: string;
  dashPathway?: string;
  dashThroughput?: string;
  cmcd?: string;
}

/** The parts of `readQuery(target, isReadName)`, the first of each name kept. */
function valuesOfParts(parts: readonly QueryPart[]): ReadValues {
  const values: ReadValues = {};
  const hlsPathway = firstValue(parts, HLS_PATHWAY);
  if (hlsPathway !== undefined) values.hlsPathway = latin1(hlsPathway);
  const hlsThroughput = firstValue(parts, HLS_THROUGHPUT);
  if (hlsThroughput !== undefined) values.hlsThroughput = latin1(hlsThroughput);
  const dashPathway = firstValue(parts, DASH_PATHWAY);
  if (dashPathway !== undefined) values.dashPathway = latin1(dashPathway);
  const dashThroughput = firstValue(parts, DASH_THROUGHPUT);
  if (dashThroughput !== undefined) values.dashThroughput = latin1(dashThroughput);
  const cmcd = firstValue(parts, CMCD);
  if (cmcd !== undefined) values.cmcd = latin1(cmcd);
  return values;
}

/**
 * The read values of a target string that is all ASCII, whose UTF-8 bytes are its char codes:
 * the same as `valuesOfParts(readQuery(target, isReadName))`, read from the string without
 * encoding it, and without decoding the parts whose name is not read. Each part costs a few
 * native searches; the `%` search is carried forward, so the whole is linear in the target.
 * `undefined` for a string with a non-ASCII character, which takes the byte path. Tested
 * against it (test/report.prop.test.ts).
 */
function readValuesAscii(target: string): ReadValues | undefined {
  if (NON_ASCII.test(target)) return undefined;
  const values: ReadValues = {};
  let end = target.indexOf('#');
  if (end === -1) end = target.length;
  const question = target.indexOf('?');
  if (question === -1 || question > end) return values;
  let nextPercent = -1; // the first `%` at or after the part's start, or `end`
  for (let start = question + 1; start <= end; ) {
    let amp = target.indexOf('&', start);
    if (amp === -1 || amp > end) amp = end;
    if (nextPercent < start) {
      nextPercent = target.indexOf('%', start);
      if (nextPercent === -1 || nextPercent > end) nextPercent = end;
    }
    let read = -1; // the index in READ_NAMES of the part's name
    let eq = -1;
    if (nextPercent >= amp) {
      // No `%` in the part: the name is read only when it is spelled as it is.
      const c = target.charCodeAt(start);
      if (c === 0x5f || c === 0x43) {
        for (let r = 0; r < READ_NAME_STRINGS.length; r++) {
          const name = READ_NAME_STRINGS[r]!;
          const after = start + name.length;
          if (
            after <= amp &&
            target.startsWith(name, start) &&
            (after === amp || target.charCodeAt(after) === EQUALS)
          ) {
            read = r;
            eq = after === amp ? -1 : after;
            break;
          }
        }
      }
    } else {
      // A `%` in the part: find the name's end, and decode the name when the `%` is in it.
      for (let k = start; k < amp; k++) {
        if (target.charCodeAt(k) === EQUALS) {
          eq = k;
          break;
        }
      }
      const nameEnd = eq === -1 ? amp : eq;
      if (nextPercent < nameEnd) {
        const name = decodeRangeLatin1(target, start, nameEnd);
        if (name !== undefined) {
          read = READ_NAME_STRINGS.indexOf(name as (typeof READ_NAME_STRINGS)[number]);
        }
      } else {
        const name = target.slice(start, nameEnd);
        read = READ_NAME_STRINGS.indexOf(name as (typeof READ_NAME_STRINGS)[number]);
      }
    }
    if (read !== -1) setValue(values, read, target, eq === -1 ? amp : eq + 1, amp);
    start = amp + 1;
  }
  return values;
}

/**
 * §4.1: the value `target[from, to)` of a part whose name is READ_NAMES[read], when no part of
 * that name came before it; a value with a bad `%` is skipped, so a later part may be read.
 */
function setValue(values: ReadValues, read: number, target: string, from: number, to: number) {
  const slot = READ_SLOTS[read]!;
  if (values[slot] !== undefined) return;
  const value = decodeRangeLatin1(target, from, to);
  if (value !== undefined) values[slot] = value;
}

/** The slot of ReadValues of each of READ_NAMES. */
const READ_SLOTS = [
  'hlsPathway',
  'hlsThroughput',
  'dashPathway',
  'dashThroughput',
  'cmcd',
] as const;

const BAD_PERCENT = /%(?![0-9A-Fa-f]{2})/;
const HIGH_PERCENT = /%[89A-Fa-f]/;

/**
 * §4.1: the ASCII `target[from, to)` percent-decoded, as Latin-1 (a byte a character);
 * `undefined` on a bad `%`.
 */
export function decodeRangeLatin1(target: string, from: number, to: number): string | undefined {
  const raw = target.slice(from, to);
  if (raw.indexOf('%') === -1) return raw;
  if (BAD_PERCENT.test(raw)) return undefined;
  // Every escape %00 to %7F: ASCII, which decodeURIComponent decodes one character each.
  if (!HIGH_PERCENT.test(raw)) return decodeURIComponent(raw);
  let s = '';
  for (let k = 0; k < raw.length; k++) {
    const c = raw.charCodeAt(k);
    if (c === PERCENT) {
      s += String.fromCharCode(
        (hexValue(raw.charCodeAt(k + 1)) << 4) | hexValue(raw.charCodeAt(k + 2)),
      );
      k += 2;
    } else {
      s += raw[k];
    }
  }
  return s;
}

function isReadName(name: Uint8Array): boolean {
  for (const read of READ_NAMES) if (bytesEqual(name, read)) return true;
  return false;
}

/** §4.1: of the parts with this name, the first is read. */
function firstValue(parts: readonly QueryPart[], name: Uint8Array): Uint8Array | undefined {
  for (const part of parts) if (bytesEqual(part.name, name)) return part.value;
  return undefined;
}

/**
 * §4.1: unquoting removes one `"` at each end when the value both begins and ends with one; C9:
 * it needs at least 2 bytes (a lone `"` stays as it is).
 */
function unquote(value: string): string {
  return value.length >= 2 &&
    value.charCodeAt(0) === DQUOTE &&
    value.charCodeAt(value.length - 1) === DQUOTE
    ? value.slice(1, -1)
    : value;
}

/**
 * §4.1: an integer is 1 to 20 ASCII digits whose value is at most 2^64 − 1. C9: leading zeros
 * are allowed within the 20 digits; `+5`, `5.0` and 21 digits are not integers.
 */
function readInteger(value: string): bigint | null {
  const length = value.length;
  if (length < 1 || length > 20) return null;
  // Up to 15 digits the value is below 2^53: exact in a double, made a bigint once.
  let n = 0;
  for (let k = 0; k < length; k++) {
    const c = value.charCodeAt(k);
    if (c < 0x30 || c > 0x39) return null;
    if (k < 15) n = n * 10 + (c - 0x30);
  }
  if (length <= 15) return BigInt(n);
  const big = BigInt(value); // 16 to 20 digits, all checked
  return big <= U64_MAX ? big : null;
}

/**
 * The ids of a policy, each by its UTF-8 bytes read as Latin-1 (a byte a character), with the
 * snapshot they were made from: a lookup is one map access, not a comparison with each id.
 */
interface IdIndex {
  readonly ids: readonly string[];
  readonly index: ReadonlyMap<string, number>;
}

const idIndexes = new WeakMap<readonly string[], IdIndex>();

function idIndexOf(ids: readonly string[]): IdIndex {
  const hit = idIndexes.get(ids);
  // The array may have changed since: the snapshot holds the same strings when it has not.
  if (
    hit !== undefined &&
    hit.ids.length === ids.length &&
    hit.ids.every((id, k) => id === ids[k])
  ) {
    return hit;
  }
  const index = new Map<string, number>();
  for (let k = ids.length - 1; k >= 0; k--) index.set(latin1(encoder.encode(ids[k]!)), k); // the first of equal ids
  const made = { ids: ids.slice(), index };
  idIndexes.set(ids, made);
  return made;
}

/** The index of the pathway whose id's UTF-8 bytes are `value` (as Latin-1), or `null`. */
export function matchPathway(value: string, ids: readonly string[]): number | null {
  return idIndexOf(ids).index.get(value) ?? null;
}

/**
 * §4.4 with C9: the CMCD value — the `CMCD` part of the query when there is one (even empty),
 * else the `CMCD-Request` header, its name matched case-insensitively. `undefined` when neither.
 */
function cmcdValue(
  values: ReadValues,
  headers: Readonly<Record<string, string>> | undefined,
): string | undefined {
  if (values.cmcd !== undefined) return values.cmcd;
  if (headers === undefined) return undefined;
  // Names that differ only in case are one field: its lines are combined with ", " as
  // RFC 9651 §4.2 combines field lines (C8 gives lowercase names, so one at most in practice).
  const lines: string[] = [];
  for (const name of Object.keys(headers)) {
    if (asciiLower(name) !== CMCD_HEADER) continue;
    const value = headers[name];
    if (typeof value !== 'string') throw new TypeError('a header value is a string');
    lines.push(value);
  }
  return lines.length === 0 ? undefined : lines.join(', ');
}

function asciiLower(s: string): string {
  return s.replace(/[A-Z]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 0x20));
}

/**
 * §4.4: a key read is an Integer ≥ 0 (with any parameters), or a non-empty Inner List whose
 * every member is an Integer ≥ 0 (each with any parameters; the list's own are ignored, C9):
 * the least of them. Anything else is absent. `-0` is 0 (C9).
 */
function readCmcdKey(member: SfMember | undefined): bigint | null {
  if (member === undefined) return null;
  if (member.type === 'item') {
    const v = member.value;
    return v.type === 'integer' && v.value >= 0n ? v.value : null;
  }
  if (member.items.length === 0) return null;
  let least: bigint | null = null;
  for (const item of member.items) {
    const v = item.value;
    if (v.type !== 'integer' || v.value < 0n) return null;
    if (least === null || v.value < least) least = v.value;
  }
  return least;
}

/**
 * §4.4 with C9: `bl` and `mtp` of the CMCD value, parsed as RFC 9651 §4.2 parses a whole
 * Dictionary field value. A non-ASCII byte makes it fail; leading and trailing SP are
 * discarded, and a tab there is not and makes it fail (C9 — stricter than RFC 9651's
 * Dictionary loop, which would take a trailing tab as OWS). A value that does not parse gives
 * neither key.
 */
function readCmcd(value: string | undefined): { bl: bigint | null; mtp: bigint | null } {
  const none = { bl: null, mtp: null };
  if (value === undefined) return none;
  let start = 0;
  let end = value.length;
  while (start < end && value.charCodeAt(start) === SP) start++;
  while (end > start && value.charCodeAt(end - 1) === SP) end--;
  if (start < end && (value.charCodeAt(start) === HTAB || value.charCodeAt(end - 1) === HTAB)) {
    return none;
  }
  const parsed = parseDictionary(value.slice(start, end));
  if (!parsed.ok) return none;
  return { bl: readCmcdKey(parsed.value.get('bl')), mtp: readCmcdKey(parsed.value.get('mtp')) };
}

/**
 * §4: reads c, T and B from a steering request, for a policy whose pathway ids are
 * `pathwayIds` in the policy's order. Never throws for any target or header value; a request
 * of the wrong shape (caller misuse) throws a `TypeError`.
 */
export function readReport(request: SteeringRequest, pathwayIds: readonly string[]): Report {
  if (typeof request !== 'object' || request === null) {
    throw new TypeError('a steering request is an object');
  }
  const { protocol } = request;
  if (protocol !== 'hls' && protocol !== 'dash') {
    throw new TypeError('a steering request protocol is "hls" or "dash"');
  }
  if (!Array.isArray(pathwayIds) || pathwayIds.some((id) => typeof id !== 'string')) {
    throw new TypeError('pathway ids are strings');
  }
  const { headers } = request;
  if (headers !== undefined && (typeof headers !== 'object' || headers === null)) {
    throw new TypeError('headers are a record of strings');
  }
  const target = request.target;
  const values =
    (typeof target === 'string' ? readValuesAscii(target) : undefined) ??
    valuesOfParts(readQuery(target, isReadName));
  const ids = pathwayIds;

  let pathway: number | null = null;
  let throughput: bigint | null = null;
  if (protocol === 'hls') {
    // §4.2: c is `_HLS_pathway`, unquoted, when it is a pathway's id; T is
    // `_HLS_throughput` when it is an integer (never unquoted, C9).
    const p = values.hlsPathway;
    if (p !== undefined) pathway = matchPathway(unquote(p), ids);
    const t = values.hlsThroughput;
    if (t !== undefined) throughput = readInteger(t);
  } else {
    // §4.3: c is the first item of `_DASH_pathway` (unquoted, then cut at ",", items not
    // trimmed, C9) that is a pathway's id, at position j. When none is (C9: including a list
    // that names no pathway of the policy), j is 0.
    let j = 0;
    const p = values.dashPathway;
    if (p !== undefined) {
      const items = unquote(p).split(',');
      const byId = idIndexOf(ids).index;
      for (let k = 0; k < items.length; k++) {
        const index = byId.get(items[k]!) ?? null;
        if (index !== null) {
          pathway = index;
          j = k;
          break;
        }
      }
    }
    // §4.3: T is the item of `_DASH_throughput` at position j when it is an integer. C9: no
    // item at j, or one that does not read, gives no T here (CMCD `mtp` may give it).
    const t = values.dashThroughput;
    if (t !== undefined) {
      const item = t.split(',')[j];
      if (item !== undefined) throughput = readInteger(item);
    }
  }

  // §4.4: CMCD is read for both protocols (C9). B is `bl`; T is `mtp` × 1000 only when §4.2
  // or §4.3 gave none.
  const cmcd = readCmcd(cmcdValue(values, headers));
  if (throughput === null && cmcd.mtp !== null) throughput = cmcd.mtp * 1000n;
  return { pathway, throughput, buffer: cmcd.bl };
}

/** C8: the report as JSON, u64 quantities as decimal strings. */
export function reportJson(report: Report): ReportJson {
  return {
    pathway: report.pathway,
    throughput: report.throughput === null ? null : report.throughput.toString(),
    buffer: report.buffer === null ? null : report.buffer.toString(),
  };
}
