import { describe, expect, it } from 'vitest';
import { parseInstant } from '../src/internal/export.js';
import {
  formatBitrate,
  formatPpm,
  formatUs,
  parseBitrate,
  parseDuration,
  parsePpm,
  parseU64,
} from '../src/internal/units.js';

describe('readable units, exact', () => {
  it('durations', () => {
    expect(parseDuration('2s', 'us')).toBe(2_000_000n);
    expect(parseDuration('500ms', 'us')).toBe(500_000n);
    expect(parseDuration('1.5s', 'ms')).toBe(1500n);
    expect(parseDuration('250us', 'us')).toBe(250n);
    expect(parseDuration('250µs', 'us')).toBe(250n);
    expect(parseDuration('5m', 's')).toBe(300n);
    expect(parseDuration('5min', 's')).toBe(300n);
    expect(parseDuration('1h', 's')).toBe(3600n);
    expect(parseDuration(' 2 s ', 'us')).toBe(2_000_000n);
    expect(parseDuration('1500ms', 's')).toBe('1500ms is not a whole number of seconds');
    expect(parseDuration('0.0001ms', 'us')).toBe('0.0001ms is not a whole number of microseconds');
    expect(parseDuration('2', 'us')).toMatch(/with its unit/);
    expect(parseDuration('-2s', 'us')).toMatch(/with its unit/);
    expect(parseDuration('1e3s', 'us')).toMatch(/with its unit/);
    expect(parseDuration('18446744073709551616us', 'us')).toBe(18446744073709551616n); // range is the caller's
  });

  it('bitrates', () => {
    expect(parseBitrate('800k')).toBe(800_000n);
    expect(parseBitrate('2.5M')).toBe(2_500_000n);
    expect(parseBitrate('6M')).toBe(6_000_000n);
    expect(parseBitrate('1G')).toBe(1_000_000_000n);
    expect(parseBitrate('6000000')).toBe(6_000_000n);
    expect(parseBitrate('2.5Mbps')).toBe(2_500_000n);
    expect(parseBitrate('128 kbit/s')).toBe(128_000n);
    expect(parseBitrate(6_000_000)).toBe(6_000_000n);
    expect(parseBitrate('0.5')).toBe('0.5 is not a whole number of bits per second');
    expect(parseBitrate('1.0000001M')).toBe('1.0000001M is not a whole number of bits per second');
    expect(parseBitrate(1.5)).toMatch(/whole bits/);
    expect(parseBitrate('fast')).toMatch(/expected a bitrate/);
  });

  it('shares', () => {
    expect(parsePpm('5%')).toBe(50_000n);
    expect(parsePpm('0.25%')).toBe(2500n);
    expect(parsePpm('2.0001%')).toBe(20_001n);
    expect(parsePpm('50000ppm')).toBe(50_000n);
    expect(parsePpm('50000 ppm')).toBe(50_000n);
    expect(parsePpm('0.00001%')).toBe('0.00001% is not a whole number of ppm');
    expect(parsePpm('5')).toMatch(/with its unit/);
  });

  it('u64 and u128 as decimal strings', () => {
    expect(parseU64('18446744073709551615')).toBe(18446744073709551615n);
    expect(parseU64('18446744073709551616')).toBe('above 2^64 − 1');
    expect(parseU64('340282366920938463463374607431768211455', 128)).toBe((1n << 128n) - 1n);
    expect(parseU64(12)).toBe(12n);
    expect(parseU64(-1)).toMatch(/0 or above/);
    expect(parseU64('1e3')).toMatch(/decimal digits/);
    expect(parseU64('0x10')).toMatch(/decimal digits/);
  });

  it('formats back', () => {
    expect(formatUs(2_000_000n)).toBe('2s');
    expect(formatUs(500_000n)).toBe('500ms');
    expect(formatUs(1_500n)).toBe('1500us');
    expect(formatBitrate(2_500_000n)).toBe('2.5M');
    expect(formatBitrate(800_000n)).toBe('800k');
    expect(formatBitrate(1_000_001n)).toBe('1.000001M');
    expect(formatBitrate(999n)).toBe('999');
    expect(formatPpm(50_000)).toBe('5%');
    expect(formatPpm(2500)).toBe('0.25%');
  });
});

describe('instants of --from and --to', () => {
  it('reads room clock µs and RFC 3339 times, to the microsecond', () => {
    expect(parseInstant('1800000000000000', 'from')).toBe(1_800_000_000_000_000n);
    expect(parseInstant('2026-12-01T08:00:00Z', 'from')).toBe(
      BigInt(Date.UTC(2026, 11, 1, 8)) * 1000n,
    );
    expect(parseInstant('2026-12-01T08:00:00.250+01:00', 'to')).toBe(
      BigInt(Date.UTC(2026, 11, 1, 7)) * 1000n + 250_000n,
    );
    expect(parseInstant('2026-12-01t08:00:00.0000019z', 'to')).toBe(
      BigInt(Date.UTC(2026, 11, 1, 8)) * 1000n + 1n,
    );
  });
  it('refuses anything else, naming the option', () => {
    for (const bad of [
      'yesterday',
      '-1',
      '2026-12-01',
      '2026-12-01T08:00:00',
      '99999999999999999999999',
    ]) {
      expect(() => parseInstant(bad, 'from'), bad).toThrow(/--from/);
    }
  });
});
