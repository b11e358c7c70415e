import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseDuration } from '../src/duration.js';
import {
  formatInstant,
  formatInstantExact,
  nowUs,
  parseInstant,
  parseSpan,
  toRfc3339,
} from '../src/instant.js';

const Y2K = 946_684_800_000_000n; // 2000-01-01T00:00:00Z
const now = () => Y2K + 10_500_000n;
const LAST = 253_402_300_799_999_999n; // 9999-12-31T23:59:59.999999Z

/**
 * The oracle: days since 1970-01-01 of a civil date, by the proleptic Gregorian calendar's
 * arithmetic (Howard Hinnant's `days_from_civil`), on bigints, so that the tests check the
 * readers and writers against a calendar that is not `Date`.
 */
function daysFromCivil(y: bigint, m: bigint, d: bigint): bigint {
  const yy = m <= 2n ? y - 1n : y;
  const era = (yy >= 0n ? yy : yy - 399n) / 400n;
  const yoe = yy - era * 400n;
  const doy = (153n * (m > 2n ? m - 3n : m + 9n) + 2n) / 5n + d - 1n;
  const doe = yoe * 365n + yoe / 4n - yoe / 100n + doy;
  return era * 146_097n + doe - 719_468n;
}

/** The civil date and time of room-clock µs, by the inverse (`civil_from_days`). */
function civilOf(us: bigint): string {
  const days = us / 86_400_000_000n;
  const rest = us % 86_400_000_000n;
  const z = days + 719_468n;
  const era = z / 146_097n;
  const doe = z - era * 146_097n;
  const yoe = (doe - doe / 1460n + doe / 36_524n - doe / 146_096n) / 365n;
  const doy = doe - (365n * yoe + yoe / 4n - yoe / 100n);
  const mp = (5n * doy + 2n) / 153n;
  const d = doy - (153n * mp + 2n) / 5n + 1n;
  const m = mp < 10n ? mp + 3n : mp - 9n;
  const y = yoe + era * 400n + (m <= 2n ? 1n : 0n);
  const p = (n: bigint, w: number) => n.toString().padStart(w, '0');
  const h = rest / 3_600_000_000n;
  const mi = (rest / 60_000_000n) % 60n;
  const s = (rest / 1_000_000n) % 60n;
  return `${p(y, 4)}-${p(m, 2)}-${p(d, 2)}T${p(h, 2)}:${p(mi, 2)}:${p(s, 2)}`;
}

const instant = fc.bigInt({ min: 0n, max: LAST });

describe('parseInstant', () => {
  it('reads µs, RFC 3339 (with a fraction and an offset), now and now±D', () => {
    expect(parseInstant('10500000')).toBe(10_500_000n);
    expect(parseInstant('1970-01-01T00:00:10.5Z')).toBe(10_500_000n);
    expect(parseInstant('2000-01-01T00:00:00Z')).toBe(Y2K);
    expect(parseInstant('2000-01-01T01:00:00+01:00')).toBe(Y2K);
    expect(parseInstant('1999-12-31T23:30:00-00:30')).toBe(Y2K);
    expect(parseInstant('2000-01-01T00:00:00.000001Z')).toBe(Y2K + 1n);
    expect(parseInstant('2000-01-01t00:00:00.0000010z')).toBe(Y2K + 1n);
    expect(parseInstant('2000-01-01 00:00:00Z')).toBe(Y2K);
    expect(parseInstant('now', now)).toBe(Y2K + 10_500_000n);
    expect(parseInstant('NOW', now)).toBe(Y2K + 10_500_000n);
    expect(parseInstant('now+6s', now)).toBe(Y2K + 16_500_000n);
    expect(parseInstant('now-1m', now)).toBe(Y2K + 10_500_000n - 60_000_000n);
    expect(parseInstant('now - 500ms', now)).toBe(Y2K + 10_000_000n);
    expect(parseInstant('now-1.5min', now)).toBe(Y2K + 10_500_000n - 90_000_000n);
    expect(parseInstant(' 18446744073709551615 ')).toBe((1n << 64n) - 1n);
  });

  it('reads now from the wall clock by default', () => {
    const before = nowUs();
    const got = parseInstant('now') as bigint;
    const after = nowUs();
    expect(got >= before && got <= after).toBe(true);
  });

  it('refuses anything else with one line naming what is wrong', () => {
    const forms = /expected room-clock microseconds \(10500000\), an RFC 3339 time/;
    expect(parseInstant('yesterday')).toMatch(forms);
    expect(parseInstant('')).toMatch(forms);
    expect(parseInstant('-1')).toMatch(forms);
    expect(parseInstant('2026-12-01')).toMatch(forms);
    expect(parseInstant('2026-12-01T08:00:00')).toMatch(forms); // no zone: refused
    expect(parseInstant('2000-02-30T00:00:00Z')).toMatch(/not a valid date/);
    expect(parseInstant('2000-01-01T24:00:00Z')).toMatch(/not a valid date/);
    expect(parseInstant('2000-01-01T00:00:60Z')).toMatch(/not a valid date/);
    expect(parseInstant('2000-01-01T00:00:00+24:00')).toMatch(/not a valid offset/);
    expect(parseInstant('2000-01-01T00:00:00.0000001Z')).toMatch(/finer than a microsecond/);
    expect(parseInstant('1969-12-31T23:59:59Z')).toMatch(/before 1970/);
    expect(parseInstant('now-1s', () => 999_999n)).toMatch(/before 1970/);
    expect(parseInstant('now+6')).toMatch(/needs its unit: write "6s"/);
    expect(parseInstant('now+-6s')).toMatch(/with its unit/);
    expect(parseInstant('18446744073709551616')).toMatch(/above 2\^64/);
    expect(parseInstant('now+1s', () => (1n << 64n) - 1n)).toMatch(/above 2\^64/);
  });

  it('reads an RFC 3339 time as the calendar counts it (property)', () => {
    fc.assert(
      fc.property(
        fc.record({
          y: fc.integer({ min: 1970, max: 9999 }),
          m: fc.integer({ min: 1, max: 12 }),
          d: fc.integer({ min: 1, max: 31 }),
          h: fc.integer({ min: 0, max: 23 }),
          mi: fc.integer({ min: 0, max: 59 }),
          s: fc.integer({ min: 0, max: 59 }),
          frac: fc.stringMatching(/^[0-9]{0,6}$/),
          offset: fc.integer({ min: -(23 * 60 + 59), max: 23 * 60 + 59 }),
        }),
        (t) => {
          const p = (n: number, w = 2) => String(n).padStart(w, '0');
          const zone =
            t.offset === 0
              ? 'Z'
              : `${t.offset < 0 ? '-' : '+'}${p(Math.floor(Math.abs(t.offset) / 60))}:${p(Math.abs(t.offset) % 60)}`;
          const text = `${p(t.y, 4)}-${p(t.m)}-${p(t.d)}T${p(t.h)}:${p(t.mi)}:${p(t.s)}${t.frac === '' ? '' : `.${t.frac}`}${zone}`;
          const monthDays = [31, t.y % 4 === 0 && (t.y % 100 !== 0 || t.y % 400 === 0) ? 29 : 28];
          const days = [...monthDays, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][t.m - 1]!;
          const got = parseInstant(text);
          if (t.d > days) {
            expect(got).toMatch(/not a valid date/);
            return;
          }
          const us =
            daysFromCivil(BigInt(t.y), BigInt(t.m), BigInt(t.d)) * 86_400_000_000n +
            BigInt(((t.h * 60 + t.mi) * 60 + t.s) * 1_000_000) +
            BigInt(t.frac.padEnd(6, '0')) -
            BigInt(t.offset) * 60_000_000n;
          if (us < 0n) expect(got).toMatch(/before 1970/);
          else expect(got).toEqual(us);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('reads now±D as now moved by the one duration parser (property)', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 1n << 60n }),
        fc.bigInt({ min: 0n, max: 10n ** 9n }),
        fc.constantFrom('us', 'µs', 'ms', 's', 'm', 'min', 'h', 'd', 'w'),
        fc.constantFrom('+', '-'),
        (at, n, unit, sign) => {
          const d = parseDuration(`${n}${unit}`, 'us') as bigint;
          const want = sign === '+' ? at + d : at - d;
          const got = parseInstant(`now${sign}${n}${unit}`, () => at);
          if (want < 0n) expect(got).toMatch(/before 1970/);
          else if (want >= 1n << 64n) expect(got).toMatch(/above 2\^64/);
          else expect(got).toEqual(want);
        },
      ),
    );
  });

  it('refuses junk: a message, never an instant (property)', () => {
    const valid =
      /^\s*(\d+|now|now\s*[+-]\s*.+|\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2}))\s*$/i;
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.string({
            unit: fc.constantFrom('2', '0', '-', ':', 'T', 'Z', '.', '+', 'n', 'o', 'w'),
          }),
        ),
        (text) => {
          const got = parseInstant(text, now);
          if (!valid.test(text)) expect(typeof got).toBe('string');
          if (typeof got === 'string') expect(got).not.toMatch(/\n/);
        },
      ),
      { numRuns: 3000 },
    );
  });
});

describe('toRfc3339: the exact form, what parseInstant reads back', () => {
  it('writes UTC with the fraction it needs', () => {
    expect(toRfc3339(Y2K)).toBe('2000-01-01T00:00:00Z');
    expect(toRfc3339(10_500_000n)).toBe('1970-01-01T00:00:10.5Z');
    expect(toRfc3339(Y2K + 1n)).toBe('2000-01-01T00:00:00.000001Z');
    expect(toRfc3339(LAST)).toBe('9999-12-31T23:59:59.999999Z');
    expect(toRfc3339(LAST + 1n)).toBeUndefined();
    expect(toRfc3339(-1n)).toBeUndefined();
  });

  it('round-trips every instant it writes, and agrees with the calendar (property)', () => {
    fc.assert(
      fc.property(instant, (us) => {
        const text = toRfc3339(us)!;
        expect(parseInstant(text)).toEqual(us);
        expect(text.slice(0, 19)).toBe(civilOf(us));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('formatInstant: the one form of human output', () => {
  it('writes RFC 3339 in UTC to the millisecond', () => {
    expect(formatInstant(1_796_112_000_250_000n)).toBe('2026-12-01T08:00:00.250Z');
    expect(formatInstant(1_796_112_000_250_999n)).toBe('2026-12-01T08:00:00.250Z'); // cut, not rounded
    expect(formatInstant(0n)).toBe('1970-01-01T00:00:00.000Z');
    expect(formatInstant(LAST)).toBe('9999-12-31T23:59:59.999Z');
    expect(formatInstant(LAST + 1n)).toBe('253402300800000000 µs');
    expect(formatInstant(-1n)).toBe('-1 µs');
  });

  it('adds the exact µs in parentheses where exactness matters', () => {
    expect(formatInstantExact(1_796_112_000_250_000n)).toBe(
      '2026-12-01T08:00:00.250Z (1796112000250000 µs)',
    );
    expect(formatInstantExact((1n << 64n) - 1n)).toBe('18446744073709551615 µs');
  });

  it('refuses what is not a bigint (caller misuse)', () => {
    expect(() => formatInstant(1 as unknown as bigint)).toThrow(TypeError);
    expect(() => formatInstantExact('1' as unknown as bigint)).toThrow(TypeError);
    expect(() => toRfc3339(1 as unknown as bigint)).toThrow(TypeError);
  });

  it('reads back as the instant cut to the millisecond, with the calendar (property)', () => {
    fc.assert(
      fc.property(instant, (us) => {
        const text = formatInstant(us);
        expect(text).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
        expect(text.slice(0, 19)).toBe(civilOf(us));
        expect(parseInstant(text)).toEqual(us - (us % 1000n));
        expect(formatInstantExact(us)).toBe(`${text} (${us} µs)`);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('parseSpan', () => {
  it('reads START..END, both ends at one now', () => {
    expect(parseSpan('now-4s..now-2s', now)).toEqual({
      start: Y2K + 6_500_000n,
      end: Y2K + 8_500_000n,
    });
    expect(parseSpan('2000-01-01T00:00:00Z..2000-01-01T00:00:02.5Z')).toEqual({
      start: Y2K,
      end: Y2K + 2_500_000n,
    });
    expect(parseSpan(' 6000000..8000000 ')).toEqual({ start: 6_000_000n, end: 8_000_000n });
    let calls = 0;
    const ticking = () => Y2K + BigInt(++calls);
    expect(parseSpan('now..now+1us', ticking)).toEqual({ start: Y2K + 1n, end: Y2K + 2n });
  });

  it('refuses a span that is not two instants, or ends before it starts', () => {
    expect(parseSpan('6000000')).toMatch(/^6000000: expected START\.\.END, two instants/);
    expect(parseSpan('..8000000')).toMatch(/expected START\.\.END/);
    expect(parseSpan('6000000..')).toMatch(/expected START\.\.END/);
    expect(parseSpan('1..2..3')).toMatch(/expected START\.\.END/);
    expect(parseSpan('yesterday..now')).toMatch(/^the start, yesterday: expected room-clock/);
    expect(parseSpan('now..later')).toMatch(/^the end, later: expected room-clock/);
    expect(parseSpan('now..now-1s', now)).toBe('now..now-1s: the end is not after the start');
    expect(parseSpan('8000000..8000000')).toMatch(/the end is not after the start/);
  });

  it('reads any two instants written exactly (property)', () => {
    fc.assert(
      fc.property(instant, instant, fc.boolean(), (a, b, rfc) => {
        const w = (us: bigint) => (rfc ? toRfc3339(us)! : String(us));
        const got = parseSpan(`${w(a)}..${w(b)}`);
        if (b > a) expect(got).toEqual({ start: a, end: b });
        else expect(got).toMatch(/the end is not after the start/);
      }),
    );
  });
});
