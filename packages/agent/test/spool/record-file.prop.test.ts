import { toHex } from '@wai-steering/wire';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseRecordFileName, recordFileName } from '../../src/spool/record-file.js';

const start = fc.bigInt({ min: 0n, max: (1n << 64n) - 1n });
const digest = fc.uint8Array({ minLength: 32, maxLength: 32 }).map(toHex);

describe("a record file's name", () => {
  it('reads back as the start and digest it was written from', () => {
    fc.assert(
      fc.property(start, digest, (s, d) => {
        const name = recordFileName(s, d);
        expect(name).toMatch(/^\d{20}-[0-9a-f]{64}\.wmh$/);
        expect(parseRecordFileName(name)).toEqual({ start: s, digest: d });
      }),
    );
  });

  it('sorts in the order of the starts', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(start, digest), { maxLength: 20 }), (items) => {
        const byName = items.map(([s, d]) => recordFileName(s, d)).sort();
        const byStart = [...items]
          .sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0))
          .map(([s, d]) => recordFileName(s, d));
        expect(byName).toEqual(byStart);
      }),
    );
  });

  it('another form of name reads as none', () => {
    fc.assert(
      fc.property(fc.string(), (name) => {
        fc.pre(!/^\d{20}-[0-9a-f]{64}\.wmh$/.test(name));
        expect(parseRecordFileName(name)).toBeUndefined();
      }),
    );
    for (const name of [
      `${'0'.repeat(19)}-${'a'.repeat(64)}.wmh`,
      `${'0'.repeat(20)}-${'A'.repeat(64)}.wmh`,
      `${'0'.repeat(20)}-${'a'.repeat(64)}.wmh.1`,
      'cursor.json',
    ]) {
      expect(parseRecordFileName(name), name).toBeUndefined();
    }
  });
});
