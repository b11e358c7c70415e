import fc from 'fast-check';
import * as library from 'structured-headers';
import { describe, expect, it } from 'vitest';
import { parseDictionary, parseItem, parseList } from '../src/structured-field.js';
import { dictionaryToSuite, itemToSuite, listToSuite } from './helpers/sf-json.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 2000);

/**
 * Differential testing against `structured-headers` 2.1.0 where that library is correct:
 * values without Dates (it fails on a Date not at the very end), Byte Sequences (it decodes
 * with `atob`, not C9's rule) and Display Strings. Both results are put in the suite's JSON
 * shape and compared.
 */
function libraryBare(v: unknown): unknown {
  if (typeof v === 'number') return v === 0 ? 0 : v; // the library gives -0 for "-0"
  if (v instanceof library.Token) return { __type: 'token', value: v.toString() };
  return v; // string or boolean: no Dates, bytes or display strings are generated
}
function libraryParams(p: Map<string, unknown>): unknown {
  return [...p].map(([k, v]) => [k, libraryBare(v)]);
}
function libraryMember(m: library.Item | library.InnerList): unknown {
  if (Array.isArray(m[0])) {
    const [items, params] = m as library.InnerList;
    return [items.map((i) => libraryMember(i)), libraryParams(params)];
  }
  const [bare, params] = m as library.Item;
  return [libraryBare(bare), libraryParams(params)];
}

function libraryParse(type: 'item' | 'list' | 'dictionary', input: string) {
  try {
    if (type === 'item') return { ok: true, value: libraryMember(library.parseItem(input)) };
    if (type === 'list') {
      return { ok: true, value: library.parseList(input).map((m) => libraryMember(m)) };
    }
    const d = library.parseDictionary(input);
    return { ok: true, value: [...d].map(([k, m]) => [k, libraryMember(m)]) };
  } catch {
    return { ok: false };
  }
}

function ourParse(type: 'item' | 'list' | 'dictionary', input: string) {
  if (type === 'item') {
    const r = parseItem(input);
    return r.ok ? { ok: true, value: itemToSuite(r.value) } : { ok: false };
  }
  if (type === 'list') {
    const r = parseList(input);
    return r.ok ? { ok: true, value: listToSuite(r.value) } : { ok: false };
  }
  const r = parseDictionary(input);
  return r.ok ? { ok: true, value: dictionaryToSuite(r.value) } : { ok: false };
}

// Generators of the serialised grammar (RFC 9651 §3), with the optional whitespace it allows.
const lcalpha = fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz');
const keyChar = fc.constantFrom(...'abcxyz019_-.*');
const key = fc
  .tuple(fc.oneof(lcalpha, fc.constant('*')), fc.array(keyChar, { maxLength: 6 }))
  .map(([h, t]) => h + t.join(''));
const digits = (min: number, max: number) =>
  fc
    .array(fc.constantFrom(...'0123456789'), { minLength: min, maxLength: max })
    .map((d) => d.join(''));
const integer = fc.tuple(fc.boolean(), digits(1, 15)).map(([neg, d]) => (neg ? '-' : '') + d);
const decimal = fc
  .tuple(fc.boolean(), digits(1, 12), digits(1, 3))
  .map(([neg, i, f]) => `${neg ? '-' : ''}${i}.${f}`);
const stringChar = fc.oneof(
  fc.integer({ min: 0x20, max: 0x7e }).map((c) => {
    const ch = String.fromCharCode(c);
    return ch === '"' || ch === '\\' ? `\\${ch}` : ch;
  }),
);
const sfString = fc.array(stringChar, { maxLength: 12 }).map((c) => `"${c.join('')}"`);
const tokenChar = fc.constantFrom(..."abcXYZ019!#$%&'*+-.^_`|~:/");
const token = fc
  .tuple(fc.constantFrom(...'aZ*'), fc.array(tokenChar, { maxLength: 8 }))
  .map(([h, t]) => h + t.join(''));
const boolean = fc.constantFrom('?0', '?1');
const bareItem = fc.oneof(integer, decimal, sfString, token, boolean);
const sp = fc.constantFrom('', ' ', '  ');
const ows = fc.constantFrom('', ' ', '\t', ' \t ');
const parameters = fc
  .array(
    fc
      .tuple(sp, key, fc.option(bareItem, { nil: undefined }))
      .map(([s, k, v]) => `;${s}${k}${v === undefined ? '' : `=${v}`}`),
    { maxLength: 3 },
  )
  .map((p) => p.join(''));
const item = fc.tuple(bareItem, parameters).map(([b, p]) => b + p);
const innerList = fc
  .tuple(sp, fc.array(fc.tuple(item, fc.constantFrom(' ', '  ')), { maxLength: 4 }), sp, parameters)
  .map(([s0, items, s1, p]) => {
    const body = items.map(([i, s], k) => (k === items.length - 1 ? i : i + s)).join('');
    return `(${s0}${body}${s1})${p}`;
  });
const member = fc.oneof(item, innerList);
const dictMember = fc.oneof(
  fc.tuple(key, member).map(([k, m]) => `${k}=${m}`),
  fc.tuple(key, parameters).map(([k, p]) => k + p), // a Boolean true, with parameters
);
const joined = (members: fc.Arbitrary<string>) =>
  fc
    .tuple(sp, fc.array(fc.tuple(members, ows, ows), { maxLength: 6 }), sp)
    .map(([lead, ms, trail]) => {
      const body = ms.map(([m, a, b], k) => (k === ms.length - 1 ? m : `${m}${a},${b}`)).join('');
      return lead + body + trail;
    });

describe('differential: our parser and structured-headers 2.1.0 (where it is correct)', () => {
  it('valid dictionaries parse alike', () => {
    fc.assert(
      fc.property(joined(dictMember), (input) => {
        const ours = ourParse('dictionary', input);
        expect(ours.ok).toBe(true);
        expect(ours).toEqual(libraryParse('dictionary', input));
      }),
      { numRuns: RUNS },
    );
  });

  it('valid lists and items parse alike', () => {
    fc.assert(
      fc.property(joined(member), fc.tuple(sp, item, sp), (list, [a, i, b]) => {
        expect(ourParse('list', list)).toEqual(libraryParse('list', list));
        const it = a + i + b;
        expect(ourParse('item', it)).toEqual(libraryParse('item', it));
      }),
      { numRuns: RUNS },
    );
  });

  it('near-valid strings succeed and fail alike', () => {
    // Valid text with one character inserted, dropped or replaced: mostly invalid inputs, at
    // every place of the grammar. No "@", ":" or "%" (the library's defects) and no character
    // outside ASCII (the library does not check the whole input's ASCII).
    const alphabet = fc.constantFrom(...'ab*1-.;=,() "\\?0\t_/!A\x7f\x1f\x00');
    fc.assert(
      fc.property(
        fc.constantFrom('item', 'list', 'dictionary' as const),
        joined(dictMember),
        fc.nat(),
        alphabet,
        fc.constantFrom('insert', 'drop', 'replace'),
        (type, valid, at, ch, how) => {
          const k = valid.length === 0 ? 0 : at % valid.length;
          const input =
            how === 'insert'
              ? valid.slice(0, k) + ch + valid.slice(k)
              : how === 'drop'
                ? valid.slice(0, k) + valid.slice(k + 1)
                : valid.slice(0, k) + ch + valid.slice(k + 1);
          if (/[@:%]/.test(input)) return;
          expect(ourParse(type, input)).toEqual(libraryParse(type, input));
        },
      ),
      { numRuns: RUNS * 5 },
    );
  });
});

describe('never throws', () => {
  const grammarish = fc
    .array(fc.constantFrom(...'ab*1-.;=,() "\\?0\t@:%_/!Az9+', '%"', '%c3%bc', ':aGk=:', '@-1'), {
      maxLength: 40,
    })
    .map((a) => a.join(''));
  const anyString = fc.oneof(fc.string({ unit: 'binary', maxLength: 60 }), grammarish);

  it('arbitrary strings give a result, never an exception', () => {
    fc.assert(
      fc.property(anyString, (input) => {
        for (const r of [parseDictionary(input), parseList(input), parseItem(input)]) {
          expect(typeof r.ok).toBe('boolean');
          if (!r.ok) {
            expect(r.error.offset).toBeGreaterThanOrEqual(0);
            expect(r.error.offset).toBeLessThanOrEqual(input.length);
          }
        }
      }),
      { numRuns: RUNS * 5 },
    );
  });
});
