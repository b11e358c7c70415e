/**
 * A strict JSON reader (RFC 8259, and I-JSON's RFC 7493 §2.3 and §2.1): `JSON.parse` keeps the
 * last of two members of one name, which would let a statement say two things at once; this
 * reader refuses it (`duplicate_member`), as it refuses a lone surrogate, a number beyond
 * float64, and anything after the value.
 */
import type { JsonValue } from './canonical.js';
import { EnergyRefusal, type EnergyResult } from './errors.js';

/** The deepest nesting read (an account nests four deep). */
const MAX_DEPTH = 64;

const WS = new Set([0x20, 0x09, 0x0a, 0x0d]);
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const SHORT_ESCAPES: Record<string, string> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
};

class Reader {
  pos = 0;
  constructor(private readonly s: string) {}

  fail(reason: 'malformed' | 'duplicate_member', detail: string, pointer?: string): never {
    throw new EnergyRefusal(
      reason,
      { what: 'json', offset: this.pos, ...(pointer === undefined ? {} : { pointer }) },
      detail,
    );
  }

  ws(): void {
    while (this.pos < this.s.length && WS.has(this.s.charCodeAt(this.pos))) this.pos++;
  }

  value(pointer: string, depth: number): JsonValue {
    this.ws();
    const c = this.s[this.pos];
    if ((c === '{' || c === '[') && depth >= MAX_DEPTH) {
      this.fail('malformed', `arrays and objects nested more than ${MAX_DEPTH} deep`);
    }
    if (c === '{') return this.object(pointer, depth);
    if (c === '[') return this.array(pointer, depth);
    if (c === '"') return this.string();
    if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return this.number();
    for (const [word, v] of [
      ['true', true],
      ['false', false],
      ['null', null],
    ] as const) {
      if (this.s.startsWith(word, this.pos)) {
        this.pos += word.length;
        return v;
      }
    }
    return this.fail('malformed', c === undefined ? 'the text ends before a value' : 'not a value');
  }

  object(pointer: string, depth: number): JsonValue {
    this.pos++;
    const out: [string, JsonValue][] = [];
    const seen = new Set<string>();
    this.ws();
    if (this.s[this.pos] === '}') {
      this.pos++;
      return {};
    }
    for (;;) {
      this.ws();
      if (this.s[this.pos] !== '"') this.fail('malformed', 'a member name is a string');
      const at = this.pos;
      const name = this.string();
      const here = `${pointer}/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`;
      if (seen.has(name)) {
        this.pos = at;
        this.fail('duplicate_member', `two members named ${JSON.stringify(name)}`, here);
      }
      seen.add(name);
      this.ws();
      if (this.s[this.pos] !== ':') this.fail('malformed', 'a ":" after a member name');
      this.pos++;
      out.push([name, this.value(here, depth + 1)]);
      this.ws();
      const c = this.s[this.pos++];
      if (c === '}') break;
      if (c !== ',') {
        this.pos--;
        this.fail('malformed', 'a "," or "}" after a member');
      }
    }
    // A plain object, its members in the order read (`fromEntries` defines each as its own
    // property: a member named `__proto__` is a member, not the object's prototype).
    return Object.fromEntries(out);
  }

  array(pointer: string, depth: number): JsonValue {
    this.pos++;
    const out: JsonValue[] = [];
    this.ws();
    if (this.s[this.pos] === ']') {
      this.pos++;
      return out;
    }
    for (;;) {
      out.push(this.value(`${pointer}/${out.length}`, depth + 1));
      this.ws();
      const c = this.s[this.pos++];
      if (c === ']') return out;
      if (c !== ',') {
        this.pos--;
        this.fail('malformed', 'a "," or "]" after an element');
      }
    }
  }

  string(): string {
    const s = this.s;
    this.pos++;
    let out = '';
    let run = this.pos;
    for (;;) {
      if (this.pos >= s.length) this.fail('malformed', 'a string that is not closed');
      const c = s.charCodeAt(this.pos);
      if (c === 0x22) {
        out += s.slice(run, this.pos);
        this.pos++;
        break;
      }
      if (c < 0x20) this.fail('malformed', 'a control character in a string');
      if (c === 0x5c) {
        out += s.slice(run, this.pos);
        const e = s[this.pos + 1];
        if (e === 'u') {
          const hex = s.slice(this.pos + 2, this.pos + 6);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) this.fail('malformed', 'a \\u escape of 4 hex digits');
          out += String.fromCharCode(Number.parseInt(hex, 16));
          this.pos += 6;
        } else if (e !== undefined && e in SHORT_ESCAPES) {
          out += SHORT_ESCAPES[e];
          this.pos += 2;
        } else {
          this.fail('malformed', 'an invalid escape');
        }
        run = this.pos;
        continue;
      }
      this.pos++;
    }
    // RFC 7493 §2.1: strings are UTF-8 once encoded, so no lone surrogate.
    for (let i = 0; i < out.length; i++) {
      const c = out.charCodeAt(i);
      if (c >= 0xd800 && c <= 0xdbff) {
        const d = out.charCodeAt(i + 1);
        if (d >= 0xdc00 && d <= 0xdfff) {
          i++;
          continue;
        }
      }
      if (c >= 0xd800 && c <= 0xdfff) this.fail('malformed', 'a lone surrogate in a string');
    }
    return out;
  }

  number(): number {
    NUMBER.lastIndex = this.pos;
    const m = NUMBER.exec(this.s);
    if (m === null) return this.fail('malformed', 'not a number');
    const v = Number(m[0]);
    // RFC 7493 §2.2: a number is an IEEE 754 double.
    if (!Number.isFinite(v)) this.fail('malformed', 'a number beyond float64');
    this.pos += m[0].length;
    return v;
  }
}

/**
 * Reads a JSON text (RFC 8259) strictly: no two members of one object with the same name
 * (`duplicate_member`, at the member's JSON pointer), no lone surrogate, numbers within float64,
 * nothing but white space after the value; `malformed` otherwise, at the offset where it stopped.
 * Objects are plain objects, their members in the order read.
 */
export function parseStrictJson(text: string): EnergyResult<JsonValue> {
  if (typeof text !== 'string') throw new TypeError('parseStrictJson: expected a string');
  const r = new Reader(text);
  try {
    const value = r.value('', 0);
    r.ws();
    if (r.pos !== text.length) r.fail('malformed', 'text after the value');
    return { ok: true, value };
  } catch (e) {
    if (e instanceof EnergyRefusal) return { ok: false, refusal: e };
    throw e;
  }
}
