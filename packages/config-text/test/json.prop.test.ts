// The strict JSON reader against two others: the platform's (`JSON.parse`: the same value for
// every JSON text without a repeated name, a refusal for what it refuses) and a parser that keeps
// every member as written (Momoa: a refusal exactly where its tree has a name twice in one
// object, and the name given is one of those).
import { type AnyNode, parse } from '@humanwhocodes/momoa';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { duplicateName, readStrictJson } from '../src/json.js';

const RUNS = 500;

/** JSON.parse's answer, as readStrictJson words it. */
function platform(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/** Every name given twice in one object of Momoa's tree; `undefined` when it does not parse. */
function momoaTwice(text: string): Set<string> | undefined {
  let root: AnyNode;
  try {
    root = parse(text, { mode: 'json' });
  } catch {
    return undefined;
  }
  const twice = new Set<string>();
  const stack: AnyNode[] = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.type === 'Document') stack.push(node.body);
    else if (node.type === 'Object') {
      const names = new Set<string>();
      for (const m of node.members) {
        const name = m.name.type === 'String' ? m.name.value : m.name.name;
        if (names.has(name)) twice.add(name);
        names.add(name);
        stack.push(m.value);
      }
    } else if (node.type === 'Array') for (const e of node.elements) stack.push(e.value);
  }
  return twice;
}

/** A name written as JSON, each character plain or as a `\uXXXX` escape, as `escaped` says. */
function nameText(name: string, escaped: readonly boolean[]): string {
  let text = '"';
  [...name].forEach((ch, i) => {
    const plain = JSON.stringify(ch).slice(1, -1);
    text +=
      escaped[i % Math.max(1, escaped.length)] === true
        ? [...ch].map((u) => `\\u${u.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')
        : plain;
  });
  return `${text}"`;
}

/**
 * JSON texts whose objects often repeat a name (names from a small alphabet, some escaped, some
 * holding quotes and backslashes), nested, with whitespace between the tokens.
 */
const repeating: fc.Arbitrary<string> = fc.letrec<{ value: string }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom('1', '"v"', 'null', 'true', '"\\\\"', '"a\\"b"', '-0.5e3'),
    fc
      .array(
        fc.tuple(
          fc.constantFrom('a', 'b', 'a"', 'a\\', '\u00e9', '\ud83d\ude00', ''),
          fc.array(fc.boolean(), { maxLength: 3 }),
          tie('value'),
        ),
        { maxLength: 5 },
      )
      .chain((members) =>
        fc
          .constantFrom('', ' ', '\n\t')
          .map(
            (ws) =>
              `{${ws}${members.map(([n, e, v]) => `${nameText(n, e)}${ws}:${ws}${v}`).join(`,${ws}`)}${ws}}`,
          ),
      ),
    fc.array(tie('value'), { maxLength: 4 }).map((vs) => `[${vs.join(', ')}]`),
  ),
})).value;

describe('readStrictJson', () => {
  it('reads what JSON.parse reads, to the same value', () => {
    fc.assert(
      fc.property(fc.json(), (text) => {
        expect(readStrictJson(text)).toEqual(platform(text));
      }),
      { numRuns: RUNS },
    );
  });

  it('refuses what JSON.parse refuses, in one line that says why', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const mine = readStrictJson(text);
        const theirs = platform(text);
        if (!theirs.ok) {
          expect(mine.ok).toBe(false);
          expect(mine.ok ? '' : mine.problem).toMatch(/^not JSON text \(.*\)$/);
          expect(mine.ok ? '' : mine.problem).not.toContain('\n');
        } else if (!mine.ok) expect(mine.problem).toMatch(/is given twice in one object$/);
        else expect(mine).toEqual(theirs);
      }),
      { numRuns: RUNS * 4 },
    );
    for (const text of ['', '{', '{"a":1,}', '[1,]', "{'a':1}", '{a:1}', 'NaN', '01', '\ufeff{}']) {
      expect([text, readStrictJson(text).ok]).toEqual([text, false]);
    }
  });

  it('refuses exactly where a tree of every member has a name twice in one object', () => {
    fc.assert(
      fc.property(repeating, (text) => {
        const twice = momoaTwice(text);
        expect(twice).toBeDefined();
        const mine = readStrictJson(text);
        expect(mine.ok).toEqual(twice!.size === 0);
        if (!mine.ok) {
          const name = duplicateName(text)!;
          expect(twice!.has(name)).toBe(true);
          expect(mine.problem).toEqual(
            `the name ${JSON.stringify(name)} is given twice in one object`,
          );
        } else {
          expect(mine.value).toEqual(JSON.parse(text));
        }
      }),
      { numRuns: RUNS * 2 },
    );
  });

  it('refuses a name given twice, escaped or not, at any depth, where JSON.parse keeps the last', () => {
    const cases: [string, string][] = [
      ['{"gas":1,"gas":2}', 'gas'],
      ['{"a":{"b":1,"b":1}}', 'b'],
      ['[{"x":0},{"y":1,"y":1}]', 'y'],
      ['{"g\\u0061s":1,"gas":2}', 'gas'],
      ['{"a\\"":1, "a\\u0022" :2}', 'a"'],
      ['{"room":"x","grace_s":1,"log":{},"grace_s":2}', 'grace_s'],
    ];
    for (const [text, name] of cases) {
      expect(platform(text).ok).toBe(true);
      expect(readStrictJson(text)).toEqual({
        ok: false,
        problem: `the name ${JSON.stringify(name)} is given twice in one object`,
      });
    }
    // The same name in two objects, or as a value, is no repeat.
    for (const text of [
      '[{"a":1},{"a":1}]',
      '{"a":{"a":"a"}}',
      '{"a":"b","b":"a"}',
      '{"a":["a","a"]}',
    ]) {
      expect(readStrictJson(text)).toEqual({ ok: true, value: JSON.parse(text) });
    }
    // Arbitrary objects with one of their names repeated at the end.
    fc.assert(
      fc.property(
        fc.dictionary(fc.string(), fc.jsonValue(), { minKeys: 1 }),
        fc.jsonValue(),
        (o, extra) => {
          const name = Object.keys(o)[0]!;
          const text = `${JSON.stringify(o).slice(0, -1)},${JSON.stringify(name)}:${JSON.stringify(extra)}}`;
          expect(readStrictJson(text).ok).toBe(false);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('is a TypeError only for a text that is not a string', () => {
    expect(() => readStrictJson(undefined as unknown as string)).toThrow(TypeError);
  });
});
