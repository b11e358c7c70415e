import { describe, expect, it } from 'vitest';
import { graceSeconds } from '../src/commands/audit.js';
import {
  formatBitrate,
  formatPpm,
  parseBitrate,
  parsePpm,
  parseU64,
} from '../src/internal/units.js';

describe('readable units, exact', () => {
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
    expect(formatBitrate(2_500_000n)).toBe('2.5M');
    expect(formatBitrate(800_000n)).toBe('800k');
    expect(formatBitrate(1_000_001n)).toBe('1.000001M');
    expect(formatBitrate(999n)).toBe('999');
    expect(formatPpm(50_000)).toBe('5%');
    expect(formatPpm(2500)).toBe('0.25%');
  });
});

describe('--grace', () => {
  it('reads a duration as every option does, in seconds rounded up; a bare number is refused', () => {
    expect(() => graceSeconds('10')).toThrow(
      /^--grace 10: a duration needs its unit: write "10s" \(or "10ms"\)$/,
    );
    expect(graceSeconds('10s')).toBe(10);
    expect(graceSeconds('1500ms')).toBe(2);
    expect(graceSeconds('2m')).toBe(120);
    expect(graceSeconds('1.5min')).toBe(90);
    expect(graceSeconds('1us')).toBe(1);
    expect(graceSeconds('0s')).toBe(0);
    expect(() => graceSeconds('soon')).toThrow(/^--grace soon: expected a duration with its unit/);
    expect(() => graceSeconds('10000w')).toThrow(/^--grace 10000w: at most 2\^32 − 1 seconds/);
  });
});
