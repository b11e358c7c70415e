// The strict JSON reader of report payloads against the library's own parse (JSON.parse): the
// same value for every JSON text without a repeated name, the same refusal for what is not JSON,
// and a refusal (where JSON.parse takes the last value) for a name given twice.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readStrictJson } from '../../src/live/json.js';

/** JSON.parse's answer, as readStrictJson words it. */
function platform(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

describe('readStrictJson', () => {
  it('reads what JSON.parse reads, to the same value', () => {
    fc.assert(
      fc.property(fc.json(), (text) => {
        expect(readStrictJson(text)).toEqual(platform(text));
      }),
      { numRuns: 500 },
    );
  });

  it('refuses what JSON.parse refuses', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const mine = readStrictJson(text);
        const theirs = platform(text);
        if (!theirs.ok) expect(mine.ok).toBe(false);
        // JSON text: the same value, unless a name is given twice (refused here alone).
        else if (!mine.ok) expect(mine.problem).toMatch(/is given twice in one object/);
        else expect(mine).toEqual(theirs);
      }),
      { numRuns: 2000 },
    );
    for (const text of ['', '{', '{"a":1,}', '[1,]', "{'a':1}", '{a:1}', 'NaN', '01', '\ufeff{}']) {
      expect([text, readStrictJson(text).ok]).toEqual([text, platform(text).ok]);
    }
  });

  it('refuses a name given twice in any object, where JSON.parse keeps the last value', () => {
    const cases = [
      '{"gas":1,"gas":2}',
      '{"a":{"b":1,"b":1}}',
      '[{"x":0},{"y":1,"y":1}]',
      '{"g\\u0061s":1,"gas":2}', // the same name, escaped once
    ];
    for (const text of cases) {
      expect(platform(text).ok).toBe(true);
      const r = readStrictJson(text);
      expect(r.ok).toBe(false);
      expect(r.ok ? '' : r.problem).toMatch(/is given twice in one object/);
    }
    // Arbitrary objects with one name repeated.
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
    );
  });
});
