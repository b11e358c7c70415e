import { describe, expect, it } from 'vitest';
import { UserError } from '../src/internal/errors.js';
import { spanOf } from '../src/internal/export.js';
import { instantOption, parsePeriod, spanOption, spanText } from '../src/internal/time.js';

const Y2K = 946_684_800_000_000n; // 2000-01-01T00:00:00Z
const now = () => Y2K + 10_500_000n;

function userError(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(UserError);
    return (e as Error).message;
  }
  throw new Error('expected a UserError');
}

describe('instants of the options', () => {
  it('read every form of an instant, and name the option when one does not read', () => {
    expect(instantOption('10500000', 't')).toBe(10_500_000n);
    expect(instantOption('2000-01-01T01:00:00+01:00', 't')).toBe(Y2K);
    expect(instantOption('now-1m', 'from', now)).toBe(Y2K + 10_500_000n - 60_000_000n);
    expect(userError(() => instantOption('yesterday', 'from'))).toMatch(
      /^--from: yesterday: expected room-clock microseconds \(10500000\), an RFC 3339 time/,
    );
  });

  it('--from and --to: both read at one now, the end after the start', () => {
    expect(spanOf('now-1m', 'now', now)).toEqual({
      from: Y2K - 49_500_000n,
      to: Y2K + 10_500_000n,
    });
    expect(spanOf('2000-01-01T00:00:00Z', undefined, now)).toEqual({
      from: Y2K,
      to: (1n << 64n) - 1n,
    });
    expect(spanOf(undefined, undefined)).toEqual({ from: 0n, to: (1n << 64n) - 1n });
    let calls = 0;
    const ticking = () => Y2K + BigInt(++calls);
    expect(spanOf('now', 'now+1us', ticking)).toEqual({ from: Y2K + 1n, to: Y2K + 2n });
    expect(userError(() => spanOf('now', 'now-1s', now))).toBe('--to must be after --from');
    expect(userError(() => spanOf('2026-12-01t08:00:00.0000019z', undefined))).toMatch(
      /^--from: .*finer than a microsecond/,
    );
    expect(userError(() => spanOf(undefined, '99999999999999999999999'))).toMatch(
      /^--to: 99999999999999999999999 is above 2\^64 − 1 µs/,
    );
  });

  it('--span: START..END at one now', () => {
    expect(spanOption('now-4s..now-2s', 'span', now)).toEqual({
      start: Y2K + 6_500_000n,
      end: Y2K + 8_500_000n,
    });
    expect(userError(() => spanOption('now-2s..now-4s', 'span', now))).toBe(
      '--span: now-2s..now-4s: the end is not after the start',
    );
    expect(userError(() => spanOption('now', 'span', now))).toMatch(
      /^--span: now: expected START\.\.END/,
    );
  });

  it('prints a span with its exact bounds', () => {
    expect(spanText(6_000_000n, 8_000_000n)).toBe(
      '1970-01-01T00:00:06.000Z (6000000 µs) to 1970-01-01T00:00:08.000Z (8000000 µs)',
    );
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
