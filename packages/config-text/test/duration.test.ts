import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  bareNumber,
  DURATION_UNITS,
  type DurationUnit,
  formatDuration,
  formatDurationExact,
  parseDuration,
} from '../src/duration.js';

// The units, as the documentation states them (independent of the parser's table).
const US_OF: Readonly<Record<string, bigint>> = {
  us: 1n,
  µs: 1n,
  ms: 1000n,
  s: 1_000_000n,
  m: 60_000_000n,
  min: 60_000_000n,
  h: 3_600_000_000n,
  d: 86_400_000_000n,
  w: 604_800_000_000n,
};
const STORED: Readonly<Record<DurationUnit, bigint>> = { us: 1n, ms: 1000n, s: 1_000_000n };
const unit = fc.constantFrom(...Object.keys(US_OF));
const stored = fc.constantFrom<DurationUnit>('us', 'ms', 's');
const whole = fc.bigInt({ min: 0n, max: (1n << 70n) - 1n });

describe('parseDuration', () => {
  it('reads every unit, with blanks and decimals', () => {
    expect(parseDuration('2s', 'us')).toBe(2_000_000n);
    expect(parseDuration('500ms', 'us')).toBe(500_000n);
    expect(parseDuration('1.5s', 'ms')).toBe(1500n);
    expect(parseDuration('250us', 'us')).toBe(250n);
    expect(parseDuration('250µs', 'us')).toBe(250n);
    expect(parseDuration('5m', 's')).toBe(300n);
    expect(parseDuration('5min', 's')).toBe(300n);
    expect(parseDuration('1h', 's')).toBe(3600n);
    expect(parseDuration('7d', 'ms')).toBe(604_800_000n);
    expect(parseDuration('2w', 's')).toBe(1_209_600n);
    expect(parseDuration(' 2 s ', 'us')).toBe(2_000_000n);
    expect(parseDuration('18446744073709551616us', 'us')).toBe(18446744073709551616n); // range is the caller's
  });

  it('refuses a value that is not whole in the unit stored, never rounding it', () => {
    expect(parseDuration('1500ms', 's')).toBe('1500ms is not a whole number of seconds');
    expect(parseDuration('250us', 'ms')).toBe('250us is not a whole number of milliseconds');
    expect(parseDuration('0.0001ms', 'us')).toBe('0.0001ms is not a whole number of microseconds');
    expect(parseDuration('1.5ms', 'ms')).toBe('1.5ms is not a whole number of milliseconds');
  });

  it('refuses what is not a duration with its unit, naming the units', () => {
    for (const bad of ['-2s', '1e3s', '2 sec', '.5s', '5.s', '1,5s', '', 's', '2s2', '0x10s']) {
      expect(parseDuration(bad, 'us'), bad).toBe(
        `expected a duration with its unit (${DURATION_UNITS}), such as "2s" or "500ms"`,
      );
    }
  });

  it('refuses a bare number everywhere, saying what to write', () => {
    expect(parseDuration('30', 's')).toBe('a duration needs its unit: write "30s" (or "30ms")');
    expect(parseDuration(' 2.5 ', 'us')).toBe(
      'a duration needs its unit: write "2.5s" (or "2.5ms")',
    );
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 20n }), stored, (n, into) => {
        const said = parseDuration(String(n), into);
        expect(said).toBe(bareNumber(String(n)));
        // What it says to write reads.
        expect(typeof parseDuration(`${n}ms`, 'ms')).toBe('bigint');
      }),
    );
  });

  it('is exact on whole numbers of any size (property)', () => {
    fc.assert(
      fc.property(whole, unit, stored, fc.boolean(), (n, u, into, blank) => {
        const us = n * US_OF[u]!;
        const text = blank ? ` ${n} ${u} ` : `${n}${u}`;
        const expected =
          us % STORED[into] === 0n
            ? us / STORED[into]
            : `${text.trim()} is not a whole number of ${{ us: 'microseconds', ms: 'milliseconds', s: 'seconds' }[into]}`;
        expect(parseDuration(text, into)).toEqual(expected);
      }),
    );
  });

  it('reads a decimal as the fraction it writes, whole or refused (property)', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 10n ** 12n }),
        fc.stringMatching(/^[0-9]{1,9}$/),
        unit,
        stored,
        (w, frac, u, into) => {
          // w.frac units = (w·10^k + frac) · unit / 10^k µs.
          const den = 10n ** BigInt(frac.length);
          const num = (w * den + BigInt(frac)) * US_OF[u]!;
          const got = parseDuration(`${w}.${frac}${u}`, into);
          if (num % (den * STORED[into]) === 0n) expect(got).toEqual(num / (den * STORED[into]));
          else expect(got).toMatch(/ is not a whole number of /);
        },
      ),
    );
  });

  it('refuses junk: anything outside the grammar is a message, never a number (property)', () => {
    const grammar = /^\s*\d+(\.\d+)?\s*(us|µs|ms|s|min|m|h|d|w)\s*$/;
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.stringMatching(/^[-+]?[0-9.eE]{0,6}\s?[a-zµ]{0,4}$/),
          fc.string({ unit: fc.constantFrom('1', '.', 's', 'm', 'i', 'n', ' ', '-', 'µ', 'u') }),
        ),
        (text) => {
          const got = parseDuration(text, 'us');
          if (grammar.test(text)) expect(typeof got).toBe('bigint');
          else expect(typeof got).toBe('string');
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe('formatDuration: the one readable form', () => {
  it('writes µs below a millisecond, ms and s with one decimal below a minute', () => {
    expect(formatDuration(0n)).toBe('0 µs');
    expect(formatDuration(250n)).toBe('250 µs');
    expect(formatDuration(999n)).toBe('999 µs');
    expect(formatDuration(1000n)).toBe('1 ms');
    expect(formatDuration(2_500n)).toBe('2.5 ms');
    expect(formatDuration(250_000n)).toBe('250 ms');
    expect(formatDuration(999_999n)).toBe('999.9 ms');
    expect(formatDuration(1_000_000n)).toBe('1 s');
    expect(formatDuration(2_614_000n)).toBe('2.6 s');
    expect(formatDuration(59_999_999n)).toBe('59.9 s');
  });

  it('writes the two largest of d, h, min and s from a minute on', () => {
    expect(formatDuration(60_000_000n)).toBe('1 min');
    expect(formatDuration(90_000_000n)).toBe('1 min 30 s');
    expect(formatDuration(5_400_000_000n)).toBe('1 h 30 min');
    expect(formatDuration(3_600_000_000n)).toBe('1 h');
    expect(formatDuration(3_659_000_000n)).toBe('1 h'); // the seconds are the third unit: cut off
    expect(formatDuration(86_400_000_000n + 3n * 3_600_000_000n)).toBe('1 d 3 h');
    expect(formatDuration(2_614_513_321_766n)).toBe('30 d 6 h');
    expect(formatDuration(604_800_000_000n)).toBe('7 d');
    expect(formatDuration((1n << 64n) - 1n)).toBe('213503982 d 8 h');
  });

  it('writes a negative duration with a leading minus', () => {
    expect(formatDuration(-2_614_000n)).toBe('-2.6 s');
    expect(formatDuration(-90_000_000n)).toBe('-1 min 30 s');
  });

  it('refuses what is not a bigint (caller misuse)', () => {
    expect(() => formatDuration(2 as unknown as bigint)).toThrow(TypeError);
    expect(() => formatDurationExact('2s' as unknown as bigint)).toThrow(TypeError);
  });

  it('adds the exact µs only where the readable form cuts some off', () => {
    expect(formatDurationExact(2_000_000n)).toBe('2 s');
    expect(formatDurationExact(90_000_000n)).toBe('1 min 30 s');
    expect(formatDurationExact(2_614_000n)).toBe('2.6 s (2614000 µs)');
    expect(formatDurationExact(60_000_001n)).toBe('1 min (60000001 µs)');
    expect(formatDurationExact(-2_614_000n)).toBe('-2.6 s (-2614000 µs)');
  });

  it('reads back with parseDuration to at most the duration, less than its last figure short (property)', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.bigInt({ min: 0n, max: 10n ** 8n }),
          fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }),
        ),
        (us) => {
          const text = formatDuration(us);
          // Each part `N unit` reads with the one parser; their sum is the duration, cut.
          const parts = [...text.matchAll(/(\d+(?:\.\d)?) (µs|ms|s|min|h|d)/g)];
          expect(parts.map((p) => p[0]).join(' ')).toBe(text);
          const read = parts.map((p) => parseDuration(p[0], 'us') as bigint);
          const sum = read.reduce((a, b) => a + b, 0n);
          // What is cut off is less than a tenth of the unit below a minute, and less than the
          // second unit from a minute on.
          const first = parts[0]![2]!;
          const compound = first === 'min' || first === 'h' || first === 'd';
          const next: Record<string, string> = { d: 'h', h: 'min', min: 's' };
          const step = compound
            ? US_OF[parts.length === 2 ? parts[1]![2]! : next[first]!]!
            : US_OF[first]! >= 10n
              ? US_OF[first]! / 10n
              : 1n;
          expect({ sum, cut: us - sum >= 0n && us - sum < step }).toEqual({ sum, cut: true });
          // The exact form adds the µs exactly when something was cut off.
          expect(formatDurationExact(us)).toBe(sum === us ? text : `${text} (${us} µs)`);
          // And the figures are no wider than the rule says.
          expect(parts.length).toBeLessThanOrEqual(2);
        },
      ),
      { numRuns: 2000 },
    );
  });
});
