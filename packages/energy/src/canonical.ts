/**
 * RFC 8785, the JSON Canonicalization Scheme: the one text of a JSON value that a signature
 * covers. Members sorted by their names' UTF-16 code units (§3.2.3), no white space, strings as
 * ECMAScript's `JSON.stringify` writes them (§3.2.2.2: the short escapes, `\u00XX` in lowercase
 * for the other controls, nothing else escaped), numbers as ECMAScript's `Number.prototype
 * .toString` writes them (§3.2.2.3).
 *
 * Written here rather than taken from the `canonicalize` package, which the tests compare it
 * with: that package requires Node 22, and this one runs on Node 20.19 and in browsers.
 */

/** A JSON value as this package writes and reads it. */
export type JsonValue =
  | null
  | boolean
  | number
  | string
  | readonly JsonValue[]
  | { readonly [name: string]: JsonValue };

/** Whether `s` holds a lone surrogate (not UTF-8 once encoded; RFC 8785 §3.2.2.2 refuses it). */
function hasLoneSurrogate(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (!(d >= 0xdc00 && d <= 0xdfff)) return true;
      i++;
    } else if (c >= 0xdc00 && c <= 0xdfff) return true;
  }
  return false;
}

function writeString(s: string): string {
  if (hasLoneSurrogate(s)) throw new TypeError('canonicalJson: a string with a lone surrogate');
  return JSON.stringify(s);
}

function byCodeUnits(x: string, y: string): number {
  return x < y ? -1 : x > y ? 1 : 0;
}

/** A plain object: its prototype `Object.prototype`, or none. */
function isPlain(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function write(value: unknown, out: string[], depth: number): void {
  if (depth >= 64 && typeof value === 'object' && value !== null) {
    throw new TypeError('canonicalJson: arrays and objects nested more than 64 deep');
  }
  if (value === null) {
    out.push('null');
  } else if (typeof value === 'boolean') {
    out.push(value ? 'true' : 'false');
  } else if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError('canonicalJson: NaN or an infinity');
    // §3.2.2.3: ECMAScript's serialization (−0 is written 0).
    out.push(JSON.stringify(value));
  } else if (typeof value === 'string') {
    out.push(writeString(value));
  } else if (Array.isArray(value)) {
    out.push('[');
    value.forEach((v, i) => {
      if (i > 0) out.push(',');
      write(v, out, depth + 1);
    });
    out.push(']');
  } else if (typeof value === 'object' && isPlain(value)) {
    const names = Object.keys(value).sort(byCodeUnits);
    out.push('{');
    names.forEach((name, i) => {
      if (i > 0) out.push(',');
      out.push(writeString(name), ':');
      write((value as Record<string, unknown>)[name], out, depth + 1);
    });
    out.push('}');
  } else {
    throw new TypeError(`canonicalJson: not a JSON value (${typeof value})`);
  }
}

/**
 * The canonical text (RFC 8785) of a JSON value: `null`, booleans, finite numbers, strings
 * without lone surrogates, arrays and plain objects (of `Object.prototype` or of none), nested at
 * most 64 deep. Anything else (a `bigint`, `undefined`, a
 * class instance) is a `TypeError`.
 */
export function canonicalJson(value: JsonValue): string {
  const out: string[] = [];
  write(value, out, 0);
  return out.join('');
}
