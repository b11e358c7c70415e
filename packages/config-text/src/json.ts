/**
 * JSON text read strictly, wherever JSON comes from outside (configs, keys, archives, statements,
 * a server's answers): RFC 8259 says the names of an object SHOULD be unique and leaves
 * duplicates to the reader, and `JSON.parse` keeps the last value of a name given twice. A text
 * with `"grace_s"` twice means two things to two readers (one taking the first value, one the
 * last), so it is refused, with one line naming the name.
 *
 * The text is parsed by `JSON.parse` (ECMA-404, no extension: the platform's own reader), then
 * scanned once for the names of each object, which `JSON.parse` has just shown to be well formed.
 * Written here rather than taken from a parser that keeps every member (Momoa, which the tests
 * hold this one to): that one builds a tree of the whole text, about 10 times slower than this
 * on a 1 MB text (`test/json.prop.test.ts` states the ratio), and this one adds no dependency to
 * the packages that bundle it.
 */

/** The value of a JSON text, or why it does not read. */
export type StrictJson =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly problem: string };

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;

/** The index of the quote that ends the string whose opening quote is at `open`. */
function stringEnd(text: string, open: number): number {
  let i = open + 1;
  for (;;) {
    const q = text.indexOf('"', i);
    // Well formed (JSON.parse read it): a closing quote exists; it is escaped when an odd number
    // of backslashes stands before it.
    let k = q - 1;
    while (text.charCodeAt(k) === BACKSLASH) k--;
    if ((q - 1 - k) % 2 === 0) return q;
    i = q + 1;
  }
}

/**
 * The first name given twice in one object of `text` (well-formed JSON), in text order, if any.
 * Names are compared as their values (an escaped name is the name it spells).
 */
export function duplicateName(text: string): string | undefined {
  if (text.indexOf('{') < 0) return undefined;
  // One entry per open container: the names seen of an object, `null` for an array.
  const stack: (Set<string> | null)[] = [];
  let names: Set<string> | null = null;
  let nameNext = false;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = stringEnd(text, i);
      if (nameNext && names !== null) {
        const raw = text.slice(i + 1, end);
        const name = raw.indexOf('\\') < 0 ? raw : (JSON.parse(`"${raw}"`) as string);
        if (names.has(name)) return name;
        names.add(name);
        nameNext = false;
      }
      i = end;
    } else if (c === OPEN_OBJECT) {
      stack.push(names);
      names = new Set();
      nameNext = true;
    } else if (c === OPEN_ARRAY) {
      stack.push(names);
      names = null;
      nameNext = false;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      names = stack.pop() ?? null;
      nameNext = false;
    } else if (c === COMMA) {
      nameNext = names !== null;
    }
  }
  return undefined;
}

/**
 * Reads JSON text (RFC 8259, no extension) whose objects each name a member once: the value, or
 * the problem in one line (text that is not JSON, with the platform's reason, or a name given
 * twice). Never throws but a `TypeError` for a text that is not a string.
 */
export function readStrictJson(text: string): StrictJson {
  if (typeof text !== 'string') throw new TypeError('readStrictJson: the text is a string');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return { ok: false, problem: `not JSON text (${(e as Error).message.split('\n')[0]})` };
  }
  const twice = duplicateName(text);
  if (twice !== undefined) {
    return { ok: false, problem: `the name ${JSON.stringify(twice)} is given twice in one object` };
  }
  return { ok: true, value };
}
