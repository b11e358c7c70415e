// Room-clock instants for people: µs, RFC 3339, now±D; periods for `record sign --period`.
import { describe, expect, it } from 'vitest';
import { formatInstant, parseInstant, parsePeriod } from '../src/internal/time.js';

// 2000-01-01T00:00:00Z is 946 684 800 s after the epoch (a known figure, not computed here).
const Y2K = 946_684_800_000_000n;
const now = () => Y2K + 10_500_000n;

describe('instants', () => {
  it('reads µs, RFC 3339 (with a fraction and an offset), now and now±D', () => {
    expect(parseInstant('10500000')).toBe(10_500_000n);
    expect(parseInstant('1970-01-01T00:00:10.5Z')).toBe(10_500_000n);
    expect(parseInstant('2000-01-01T00:00:00Z')).toBe(Y2K);
    expect(parseInstant('2000-01-01T01:00:00+01:00')).toBe(Y2K);
    expect(parseInstant('1999-12-31T23:30:00-00:30')).toBe(Y2K);
    expect(parseInstant('2000-01-01T00:00:00.000001Z')).toBe(Y2K + 1n);
    expect(parseInstant('now', now)).toBe(Y2K + 10_500_000n);
    expect(parseInstant('now+6s', now)).toBe(Y2K + 16_500_000n);
    expect(parseInstant('now-1m', now)).toBe(Y2K + 10_500_000n - 60_000_000n);
    expect(parseInstant('now - 500ms', now)).toBe(Y2K + 10_000_000n);
  });

  it('refuses what is not an instant, with what it takes', () => {
    expect(parseInstant('yesterday')).toMatch(/expected room-clock microseconds .* RFC 3339/);
    expect(parseInstant('2000-02-30T00:00:00Z')).toMatch(/not a valid date/);
    expect(parseInstant('2000-01-01T00:00:00.0000001Z')).toMatch(/finer than a microsecond/);
    expect(parseInstant('1969-12-31T23:59:59Z')).toMatch(/before 1970/);
    expect(parseInstant('now+6')).toMatch(/with its unit/);
    expect(parseInstant('18446744073709551616')).toMatch(/above 2\^64/);
  });

  it('prints RFC 3339 in UTC, with the fraction it needs', () => {
    expect(formatInstant(Y2K)).toBe('2000-01-01T00:00:00Z');
    expect(formatInstant(10_500_000n)).toBe('1970-01-01T00:00:10.5Z');
    expect(formatInstant(Y2K + 1n)).toBe('2000-01-01T00:00:00.000001Z');
    for (const us of [0n, 1n, 999_999n, Y2K + 123_456n]) {
      expect(parseInstant(formatInstant(us))).toBe(us);
    }
  });
});

describe('periods', () => {
  const P = 2_000_000n;
  it('now-1 is the last complete period, aligned on the period (§5.1)', () => {
    // now = Y2K + 10.5 s: the period in progress is [Y2K + 10 s, Y2K + 12 s).
    expect(parsePeriod('now', P, now)).toEqual({
      start: Y2K + 10_000_000n,
      end: Y2K + 12_000_000n,
    });
    expect(parsePeriod('now-1', P, now)).toEqual({
      start: Y2K + 8_000_000n,
      end: Y2K + 10_000_000n,
    });
    expect(parsePeriod('now-3', P, now)).toEqual({
      start: Y2K + 4_000_000n,
      end: Y2K + 6_000_000n,
    });
    expect(parsePeriod('7000000', P, now)).toEqual({ start: 6_000_000n, end: 8_000_000n });
    expect(parsePeriod('1970-01-01T00:00:08Z', P, now)).toEqual({
      start: 8_000_000n,
      end: 10_000_000n,
    });
    expect(parsePeriod('now-1', P, () => 1_000_000n)).toMatch(/before the start/);
    expect(parsePeriod('later', P, now)).toMatch(/now-K/);
  });
});
