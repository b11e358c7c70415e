/**
 * A strict parser of RFC 9651 structured field values (§4.2 of that RFC), written for §4.4's
 * CMCD reading and C9's rules on it.
 *
 * Why our own and not `structured-headers`: that library (2.1.0) fails on any Date that is not
 * the last thing of the input (`a=@1, b=2`, `(@1 @2)`, `x;d=@1;y=2`), turns Dates outside the
 * JavaScript range into an Invalid Date, and decodes Byte Sequences with the platform's `atob`,
 * which refuses `:ab=:` (padding supplied where missing, as C9 requires) and is not the rule of
 * C9 either way. §4.4 reads "the whole grammar, Dates and Display Strings included", so a CMCD
 * value carrying a Date before `bl` must still give `bl`. See docs/decisions.md.
 *
 * The parser follows the RFC's algorithms step by step, over the input once (linear time):
 * - Integers are `bigint`, Decimals are exact (`thousandths`, a `bigint`), Dates are `bigint`
 *   seconds; nothing is a float.
 * - Byte Sequences follow C9: only `A–Z a–z 0–9 + / =`; `=` is appended up to a multiple of 4
 *   and the result must be RFC 4648 §4 base64 with at most two `=`, only at the end; non-zero
 *   pad bits are accepted; `::` is empty.
 * - Dictionary and Parameter keys seen twice: the last value wins, in the position of the
 *   first (RFC 9651 §4.2.2 and §4.2.3.2, "overwrite its value").
 *
 * Nothing but a returned failure comes out of a parse for any string; a non-string is caller
 * misuse and throws a `TypeError`.
 *
 * One cohesive parser over 450 lines: the RFC's algorithms share one cursor over the input and
 * call each other (a list member is an item or an inner list, each with its parameters).
 */

/** A Bare Item (RFC 9651 §3.3). */
export type SfBareItem =
  | { readonly type: 'integer'; readonly value: bigint }
  /** A Decimal, exactly: its value times 1000 (RFC 9651 §3.3.2 allows three fractional digits). */
  | { readonly type: 'decimal'; readonly thousandths: bigint }
  | { readonly type: 'string'; readonly value: string }
  | { readonly type: 'token'; readonly value: string }
  | { readonly type: 'bytes'; readonly value: Uint8Array }
  | { readonly type: 'boolean'; readonly value: boolean }
  /** A Date: seconds since the epoch (RFC 9651 §3.3.7), any value the grammar allows. */
  | { readonly type: 'date'; readonly value: bigint }
  | { readonly type: 'displaystring'; readonly value: string };

/** Parameters (RFC 9651 §3.1.2), in order; a key seen twice keeps its first position. */
export type SfParameters = ReadonlyMap<string, SfBareItem>;

/** An Item (RFC 9651 §3.3): a Bare Item and its Parameters. */
export interface SfItem {
  readonly type: 'item';
  readonly value: SfBareItem;
  readonly params: SfParameters;
}

/** An Inner List (RFC 9651 §3.1.1). */
export interface SfInnerList {
  readonly type: 'inner-list';
  readonly items: readonly SfItem[];
  readonly params: SfParameters;
}

export type SfMember = SfItem | SfInnerList;
/** A List (RFC 9651 §3.1). */
export type SfList = readonly SfMember[];
/** A Dictionary (RFC 9651 §3.2), in order; a key seen twice keeps its first position. */
export type SfDictionary = ReadonlyMap<string, SfMember>;

/** Why a value does not parse: the offset (in UTF-16 code units of the input) and a message. */
export interface SfError {
  readonly offset: number;
  readonly message: string;
}

export type SfResult<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly error: SfError };

/** The Parameters of every Item and Inner List that has none: one shared, unchangeable map. */
class NoParameters extends Map<string, SfBareItem> {
  override set(): this {
    throw new TypeError('parsed parameters are read-only');
  }
  override delete(): boolean {
    throw new TypeError('parsed parameters are read-only');
  }
  override clear(): void {
    throw new TypeError('parsed parameters are read-only');
  }
}
const NO_PARAMETERS: SfParameters = Object.freeze(new NoParameters());
const TRUE: SfBareItem = Object.freeze({ type: 'boolean', value: true });
const FALSE: SfBareItem = Object.freeze({ type: 'boolean', value: false });

/** The only thing the parser throws internally; every public entry point catches it. */
class SfFailure {
  constructor(
    readonly offset: number,
    readonly message: string,
  ) {}
}

const SP = 0x20;
const HTAB = 0x09;
const DQUOTE = 0x22;
const PERCENT = 0x25;
const LPAREN = 0x28;
const RPAREN = 0x29;
const STAR = 0x2a;
const COMMA = 0x2c;
const MINUS = 0x2d;
const DOT = 0x2e;
const COLON = 0x3a;
const SEMICOLON = 0x3b;
const EQUALS = 0x3d;
const QUESTION = 0x3f;
const AT = 0x40;
const BACKSLASH = 0x5c;

const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
const isLcAlpha = (c: number): boolean => c >= 0x61 && c <= 0x7a;
const isAlpha = (c: number): boolean => isLcAlpha(c) || (c >= 0x41 && c <= 0x5a);
const isLcHex = (c: number): boolean => isDigit(c) || (c >= 0x61 && c <= 0x66);

/** RFC 9651 §4.2.6: after its first character a Token holds tchar (RFC 9110 §5.6.2), ":", "/". */
const TOKEN_CHAR = (() => {
  const table = new Uint8Array(128);
  const chars = "!#$%&'*+-.^_`|~:/0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  for (let k = 0; k < chars.length; k++) table[chars.charCodeAt(k)] = 1;
  return table;
})();
const isTokenChar = (c: number): boolean => c >= 0 && c < 128 && TOKEN_CHAR[c] === 1;

/** RFC 4648 §4 alphabet: the value of each character, -1 for the others. */
const BASE64 = (() => {
  const table = new Int8Array(128).fill(-1);
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  for (let k = 0; k < alphabet.length; k++) table[alphabet.charCodeAt(k)] = k;
  return table;
})();

let utf8Decoder: InstanceType<typeof TextDecoder> | undefined;
/** Strict UTF-8 (RFC 9651 §4.2.10): no replacement character, and a BOM is kept as U+FEFF. */
function decodeUtf8(bytes: Uint8Array): string | undefined {
  utf8Decoder ??= new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  try {
    return utf8Decoder.decode(bytes);
  } catch {
    return undefined;
  }
}

class Parser {
  private i = 0;
  private readonly s: string;

  constructor(input: string) {
    this.s = input;
  }

  private fail(message: string, at = this.i): never {
    throw new SfFailure(at, message);
  }

  private get empty(): boolean {
    return this.i >= this.s.length;
  }

  /** The next character's code, or -1 at the end. */
  private peek(): number {
    return this.i < this.s.length ? this.s.charCodeAt(this.i) : -1;
  }

  private discardSP(): void {
    while (this.peek() === SP) this.i++;
  }

  private discardOWS(): void {
    for (let c = this.peek(); c === SP || c === HTAB; c = this.peek()) this.i++;
  }

  /** RFC 9651 §4.2 steps 1, 2, 6 and 7 around the top-level parse. */
  field<T>(parse: () => T): T {
    // Step 1: the input must be ASCII.
    const s = this.s;
    for (let k = 0; k < s.length; k++) {
      if (s.charCodeAt(k) > 0x7f) this.fail('not ASCII', k);
    }
    this.discardSP(); // step 2
    const output = parse();
    this.discardSP(); // step 6
    if (!this.empty) this.fail('unexpected characters after the value'); // step 7
    return output;
  }

  /** RFC 9651 §4.2.1. */
  list(): SfList {
    const members: SfMember[] = [];
    while (!this.empty) {
      members.push(this.itemOrInnerList());
      this.discardOWS();
      if (this.empty) return members;
      if (this.peek() !== COMMA) this.fail('expected "," between list members');
      this.i++;
      this.discardOWS();
      if (this.empty) this.fail('trailing comma in list');
    }
    return members;
  }

  /** RFC 9651 §4.2.2. */
  dictionary(): SfDictionary {
    const dictionary = new Map<string, SfMember>();
    while (!this.empty) {
      const key = this.key();
      let member: SfMember;
      if (this.peek() === EQUALS) {
        this.i++;
        member = this.itemOrInnerList();
      } else {
        member = { type: 'item', value: TRUE, params: this.params() };
      }
      // "If dictionary already contains a key this_key, overwrite its value": a Map keeps the
      // first position.
      dictionary.set(key, member);
      this.discardOWS();
      if (this.empty) return dictionary;
      if (this.peek() !== COMMA) this.fail('expected "," between dictionary members');
      this.i++;
      this.discardOWS();
      if (this.empty) this.fail('trailing comma in dictionary');
    }
    return dictionary;
  }

  /** RFC 9651 §4.2.1.1. */
  private itemOrInnerList(): SfMember {
    return this.peek() === LPAREN ? this.innerList() : this.item();
  }

  /** RFC 9651 §4.2.1.2. */
  private innerList(): SfInnerList {
    if (this.peek() !== LPAREN) this.fail('expected "("');
    this.i++;
    const items: SfItem[] = [];
    while (!this.empty) {
      this.discardSP();
      if (this.peek() === RPAREN) {
        this.i++;
        return { type: 'inner-list', items, params: this.params() };
      }
      items.push(this.item());
      const c = this.peek();
      if (c !== SP && c !== RPAREN) this.fail('expected SP or ")" after an inner list item');
    }
    return this.fail('inner list not closed');
  }

  /** RFC 9651 §4.2.3. */
  item(): SfItem {
    const value = this.bareItem();
    return { type: 'item', value, params: this.params() };
  }

  /** RFC 9651 §4.2.3.1. */
  private bareItem(): SfBareItem {
    const c = this.peek();
    if (c === MINUS || isDigit(c)) return this.integerOrDecimal();
    if (c === DQUOTE) return this.string();
    if (isAlpha(c) || c === STAR) return this.token();
    if (c === COLON) return this.byteSequence();
    if (c === QUESTION) return this.boolean();
    if (c === AT) return this.date();
    if (c === PERCENT) return this.displayString();
    return this.fail(c === -1 ? 'expected an item, found the end' : 'unexpected character');
  }

  /** RFC 9651 §4.2.3.2. */
  private params(): SfParameters {
    if (this.peek() !== SEMICOLON) return NO_PARAMETERS;
    const parameters = new Map<string, SfBareItem>();
    while (this.peek() === SEMICOLON) {
      this.i++;
      this.discardSP();
      const key = this.key();
      let value = TRUE;
      if (this.peek() === EQUALS) {
        this.i++;
        value = this.bareItem();
      }
      parameters.set(key, value); // overwrite in place, as the dictionary
    }
    return parameters;
  }

  /** RFC 9651 §4.2.3.3. */
  private key(): string {
    const start = this.i;
    const first = this.peek();
    if (!isLcAlpha(first) && first !== STAR) this.fail('a key must begin with a-z or "*"');
    this.i++;
    for (let c = this.peek(); ; c = this.peek()) {
      if (isLcAlpha(c) || isDigit(c) || c === 0x5f || c === MINUS || c === DOT || c === STAR) {
        this.i++;
      } else break;
    }
    return this.s.slice(start, this.i);
  }

  /** RFC 9651 §4.2.4. */
  private integerOrDecimal(): SfBareItem {
    const start = this.i;
    let negative = false;
    if (this.peek() === MINUS) {
      negative = true;
      this.i++;
    }
    if (this.empty) this.fail('a number needs a digit');
    if (!isDigit(this.peek())) this.fail('a number needs a digit');
    const digitsStart = this.i;
    let dot = -1; // the offset of ".", when the number is a Decimal
    while (!this.empty) {
      const c = this.peek();
      if (isDigit(c)) {
        this.i++;
      } else if (dot === -1 && c === DOT) {
        if (this.i - digitsStart > 12) this.fail('a decimal has at most 12 integer digits');
        dot = this.i;
        this.i++;
      } else break;
      const length = this.i - digitsStart; // input_number's length, "." included
      if (dot === -1 && length > 15) this.fail('an integer has at most 15 digits', start);
      if (dot !== -1 && length > 16) this.fail('a decimal has at most 16 characters', start);
    }
    if (dot === -1) {
      // At most 15 digits: below 2^53, exact in a double, made a bigint once.
      let n = 0;
      for (let k = digitsStart; k < this.i; k++) n = n * 10 + (this.s.charCodeAt(k) - 0x30);
      return { type: 'integer', value: BigInt(negative ? -n : n) };
    }
    const fraction = this.s.slice(dot + 1, this.i);
    if (fraction.length === 0) this.fail('a decimal cannot end with "."');
    if (fraction.length > 3) this.fail('a decimal has at most 3 fractional digits');
    const thousandths =
      BigInt(this.s.slice(digitsStart, dot)) * 1000n + BigInt(fraction.padEnd(3, '0'));
    return { type: 'decimal', thousandths: negative ? -thousandths : thousandths };
  }

  /** RFC 9651 §4.2.5. */
  private string(): SfBareItem {
    this.i++; // DQUOTE
    const chunks: string[] = [];
    let start = this.i;
    while (!this.empty) {
      const c = this.s.charCodeAt(this.i);
      if (c === BACKSLASH) {
        chunks.push(this.s.slice(start, this.i));
        this.i++;
        const next = this.peek();
        if (next !== DQUOTE && next !== BACKSLASH) {
          this.fail('a backslash must be followed by DQUOTE or backslash');
        }
        this.i++;
        start = this.i - 1; // the escaped character is kept
      } else if (c === DQUOTE) {
        chunks.push(this.s.slice(start, this.i));
        this.i++;
        return { type: 'string', value: chunks.join('') };
      } else if (c <= 0x1f || c >= 0x7f) {
        this.fail('a string holds only printable ASCII');
      } else {
        this.i++;
      }
    }
    return this.fail('string not closed');
  }

  /** RFC 9651 §4.2.6. */
  private token(): SfBareItem {
    const start = this.i;
    this.i++; // ALPHA or "*", checked by the caller
    for (let c = this.peek(); c !== -1; c = this.peek()) {
      if (isTokenChar(c)) this.i++;
      else break;
    }
    return { type: 'token', value: this.s.slice(start, this.i) };
  }

  /** RFC 9651 §4.2.7, with C9's rule for the base64 content. */
  private byteSequence(): SfBareItem {
    this.i++; // ":"
    const end = this.s.indexOf(':', this.i);
    if (end === -1) this.fail('byte sequence not closed');
    const start = this.i;
    this.i = end + 1;
    const bytes = decodeBase64(this.s, start, end);
    if (bytes === undefined) this.fail('byte sequence is not base64 (C9)', start);
    return { type: 'bytes', value: bytes };
  }

  /** RFC 9651 §4.2.8. */
  private boolean(): SfBareItem {
    this.i++; // "?"
    const c = this.peek();
    if (c === 0x31 || c === 0x30) {
      this.i++;
      return c === 0x31 ? TRUE : FALSE;
    }
    return this.fail('a boolean is ?0 or ?1');
  }

  /** RFC 9651 §4.2.9: an Integer after "@"; a Decimal fails. */
  private date(): SfBareItem {
    this.i++; // "@"
    const at = this.i;
    const n = this.integerOrDecimal();
    if (n.type !== 'integer') this.fail('a date is an integer', at);
    return { type: 'date', value: n.value };
  }

  /** RFC 9651 §4.2.10. */
  private displayString(): SfBareItem {
    if (this.s.charCodeAt(this.i + 1) !== DQUOTE) this.fail('a display string begins with %"');
    this.i += 2;
    const bytes: number[] = [];
    while (!this.empty) {
      const c = this.s.charCodeAt(this.i);
      this.i++;
      if (c <= 0x1f || c >= 0x7f) this.fail('a display string holds only printable ASCII');
      if (c === PERCENT) {
        if (this.i + 2 > this.s.length) this.fail('"%" needs two lowercase hex digits');
        const h = this.s.charCodeAt(this.i);
        const l = this.s.charCodeAt(this.i + 1);
        if (!isLcHex(h) || !isLcHex(l)) this.fail('"%" needs two lowercase hex digits');
        bytes.push(Number.parseInt(this.s.slice(this.i, this.i + 2), 16));
        this.i += 2;
      } else if (c === DQUOTE) {
        const value = decodeUtf8(Uint8Array.from(bytes));
        if (value === undefined) this.fail('a display string is UTF-8');
        return { type: 'displaystring', value };
      } else {
        bytes.push(c);
      }
    }
    return this.fail('display string not closed');
  }
}

/**
 * C9: the Byte Sequence content `s[start, end)` as RFC 4648 §4 base64. Only `A–Z a–z 0–9 + /
 * =`; `=` is appended up to a multiple of 4, then at most two `=`, only at the end (so a length
 * of 1 mod 4, or an inner `=`, is refused); non-zero pad bits are accepted; empty is empty.
 */
export function decodeBase64(s: string, start = 0, end = s.length): Uint8Array | undefined {
  const length = end - start;
  // Trailing "=" as given; every other character must be of the alphabet.
  let data = end;
  while (data > start && s.charCodeAt(data - 1) === EQUALS) data--;
  for (let k = start; k < data; k++) {
    const c = s.charCodeAt(k);
    if (c >= 128 || BASE64[c]! < 0) return undefined; // not the alphabet, or an inner "="
  }
  const padded = length + ((4 - (length % 4)) % 4);
  const dataLength = data - start;
  if (padded - dataLength > 2) return undefined;
  // Here dataLength mod 4 is 0, 2 or 3: 4 - 2 pads at most.
  const out = new Uint8Array(Math.floor((dataLength * 3) / 4));
  let o = 0;
  let acc = 0;
  let bits = 0;
  for (let k = start; k < data; k++) {
    acc = ((acc << 6) | BASE64[s.charCodeAt(k)]!) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (acc >> bits) & 0xff;
    }
  }
  // What remains in `acc` is the pad bits, accepted whatever they hold (C9).
  return out;
}

function run<T>(input: string, parse: (p: Parser) => T): SfResult<T> {
  if (typeof input !== 'string') {
    throw new TypeError('a structured field value is a string');
  }
  const parser = new Parser(input);
  try {
    return { ok: true, value: parser.field(() => parse(parser)) };
  } catch (e) {
    if (e instanceof SfFailure) {
      return { ok: false, error: { offset: e.offset, message: e.message } };
    }
    throw e;
  }
}

/**
 * Parses a whole field value as a Dictionary (RFC 9651 §4.2, field type "dictionary"). Several
 * field lines are given joined with ", " (RFC 9651 §4.2).
 */
export function parseDictionary(input: string): SfResult<SfDictionary> {
  return run(input, (p) => p.dictionary());
}

/** Parses a whole field value as a List (RFC 9651 §4.2, field type "list"). */
export function parseList(input: string): SfResult<SfList> {
  return run(input, (p) => p.list());
}

/** Parses a whole field value as an Item (RFC 9651 §4.2, field type "item"). */
export function parseItem(input: string): SfResult<SfItem> {
  return run(input, (p) => p.item());
}
