import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { readCursor, writeCursor } from '../../src/spool/cursor.js';
import { makeUnwritable, type Unwritable } from '../helpers/read-only.js';
import { tempDir } from '../helpers/room.js';

let unwritable: Unwritable | undefined;
afterEach(() => {
  unwritable?.restore();
  unwritable = undefined;
});

/** What `cursor.json` holding `text` reads as. */
function cursorOf(text: string) {
  const dir = tempDir();
  writeFileSync(join(dir, 'cursor.json'), text);
  return readCursor(dir);
}

describe('cursor.json', () => {
  it('none: no cursor', () => {
    expect(readCursor(tempDir())).toBeUndefined();
  });

  it('reads the end, and the reading at it', () => {
    expect(cursorOf('{"end":"1800000000000000"}\n')).toEqual({ end: 1_800_000_000_000_000n });
    expect(
      cursorOf('{"end":"12","reading":{"values":{"a":"40","b":"0"},"ranges":{"a":"99"}}}'),
    ).toEqual({ end: 12n, reading: { values: { a: '40', b: '0' }, ranges: { a: '99' } } });
  });

  it('does not read, and says why', () => {
    const cases: [string, string][] = [
      ['{"end": "18446744073709551615"', 'cursor.json is not JSON'],
      [
        '{"end": "12", "end": "13"}',
        'cursor.json does not read: the name "end" is given twice in one object',
      ],
      ['null', 'cursor.json states no end (µs, a decimal string)'],
      ['[]', 'cursor.json states no end (µs, a decimal string)'],
      ['{"end": 12}', 'cursor.json states no end (µs, a decimal string)'],
      ['{"end": "-1"}', 'cursor.json states no end (µs, a decimal string)'],
      [
        '{"end": "12", "reading": {"values": {"a": 1}}}',
        "cursor.json's reading is not whole microjoules by series",
      ],
      [
        '{"end": "12", "reading": {"values": ["1"]}}',
        "cursor.json's reading is not whole microjoules by series",
      ],
      [
        '{"end": "12", "reading": null}',
        "cursor.json's reading is not whole microjoules by series",
      ],
      [
        '{"end": "12", "reading": {"values": {"a": "1"}, "ranges": {"a": "1.5"}}}',
        "cursor.json's reading is not whole microjoules by series",
      ],
    ];
    for (const [text, why] of cases) expect(cursorOf(text), text).toBe(why);
  });

  it('a cursor.json that cannot be read: why, with the code', () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'cursor.json'));
    expect(readCursor(dir)).toBe('cursor.json cannot be read (EISDIR)');
  });

  it('reads back what was written', () => {
    const dir = tempDir();
    const series = fc.dictionary(
      fc.stringMatching(/^[a-z][a-z0-9:-]{0,15}$/),
      fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }).map(String),
    );
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }),
        fc.option(fc.record({ values: series, ranges: fc.option(series, { nil: undefined }) }), {
          nil: undefined,
        }),
        (end, reading) => {
          const r =
            reading === undefined
              ? undefined
              : reading.ranges === undefined
                ? { values: reading.values }
                : { values: reading.values, ranges: reading.ranges };
          expect(writeCursor(dir, end, r)).toBe(true);
          expect(readCursor(dir)).toEqual(r === undefined ? { end } : { end, reading: r });
        },
      ),
      { numRuns: 50 },
    );
    expect(readdirSync(dir)).toEqual(['cursor.json']);
    expect(readFileSync(join(dir, 'cursor.json'), 'utf8')).toMatch(/^\{"end":"\d+".*\}\n$/);
  });

  it('a cursor that cannot be written: false, and no temporary file left', () => {
    const dir = join(tempDir(), 'spool');
    mkdirSync(dir);
    writeCursor(dir, 5n, undefined);
    unwritable = makeUnwritable(dir);
    expect(writeCursor(dir, 6n, undefined)).toBe(false);
    expect(readCursor(dir)).toEqual({ end: 5n });
    unwritable.restore();
    unwritable = undefined;
    expect(readdirSync(dir)).toEqual(['cursor.json']);
  });
});
