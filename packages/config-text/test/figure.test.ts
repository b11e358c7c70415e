import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatBytes, readableFigure } from '../src/figure.js';

describe('readableFigure', () => {
  it('says J/D per gigabyte or per hour, with the digits a person compares', () => {
    // The figure of the report: 354648934 µJ over 348667883 bytes.
    expect(readableFigure(1, 354_648_934n, 348_667_883n).text).toBe('1017.1 J/GB');
    expect(readableFigure(1, 1_000_000n, 1_000_000_000n)).toEqual({
      value: 1,
      unit: 'J/GB',
      text: '1.000 J/GB',
    });
    expect(readableFigure(2, 3_600_000_000n, 3_600_000_000n).text).toBe('3600.0 J/h');
    expect(readableFigure(1, 2_000_000n, 3_000_000_000n).value).toBe(0.666);
    expect(readableFigure(1, 25_000_000n, 1_000_000_000n).text).toBe('25.00 J/GB');
    expect(() => readableFigure(1, 1n, 0n)).toThrow(TypeError);
  });

  it('is J × 10³ / D to the thousandth, cut off (property)', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 10n ** 9n }),
        fc.bigInt({ min: 1n, max: 10n ** 15n }),
        (j, d) => {
          const f = readableFigure(1, j, d);
          // Independently: the thousandths, by the definition (µJ / 10⁶) / (bytes / 10⁹).
          const thousandths = (j * 10n ** 6n) / d;
          expect(BigInt(Math.round(f.value * 1000))).toBe(thousandths);
          // The text is the value's leading digits, cut off.
          const [whole, frac] = f.text.replace(' J/GB', '').split('.') as [string, string];
          const shown = BigInt(whole) * 1000n + BigInt(frac.padEnd(3, '0'));
          expect(shown <= thousandths && thousandths - shown < 10n ** BigInt(3 - frac.length)).toBe(
            true,
          );
        },
      ),
    );
  });
});

describe('formatBytes', () => {
  it('in decimal units, one decimal at most, cut off', () => {
    expect(formatBytes(0n)).toBe('0 bytes');
    expect(formatBytes(1n)).toBe('1 byte');
    expect(formatBytes(999n)).toBe('999 bytes');
    expect(formatBytes(1000n)).toBe('1 kB');
    expect(formatBytes(1_599n)).toBe('1.5 kB');
    expect(formatBytes(348_667_883n)).toBe('348.6 MB');
    expect(formatBytes(2_000_000_000n)).toBe('2 GB');
    expect(formatBytes(5n * 10n ** 15n)).toBe('5000 TB');
  });
});
