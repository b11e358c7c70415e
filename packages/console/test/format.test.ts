import { describe, expect, it } from 'vitest';
import {
  abbrev,
  ago,
  bytes,
  clockTime,
  delivery,
  duration,
  groupDigits,
  joules,
  percent,
} from '../src/common/format.js';

describe('format', () => {
  it('abbreviates long hex and leaves short hex alone', () => {
    expect(abbrev('0123456789abcdef0123')).toBe('01234567…0123');
    expect(abbrev('0123456789ab')).toBe('0123456789ab');
  });

  it('groups digits by thousands', () => {
    expect(groupDigits('1234567')).toBe('1\u202f234\u202f567');
    expect(groupDigits('999')).toBe('999');
    expect(groupDigits('-1000')).toBe('-1\u202f000');
  });

  it('writes a room-clock instant as a UTC time of day', () => {
    // 2027-01-15T12:34:56.789Z
    const us = BigInt(Date.UTC(2027, 0, 15, 12, 34, 56, 789)) * 1000n;
    expect(clockTime(us)).toBe('12:34:56.789');
    expect(clockTime(String(us))).toBe('12:34:56.789');
  });

  it('writes durations in ms below a second and in s above', () => {
    expect(duration(250_000n)).toBe('250 ms');
    expect(duration(60_000_000n)).toBe('60 s');
    expect(duration(1_500_000n)).toBe('1.50 s');
    expect(duration(-2_000_000n)).toBe('−2 s');
  });

  it('writes bytes, joules, deliveries and shares in readable units', () => {
    expect(bytes('999')).toBe('999 B');
    expect(bytes('1234567')).toBe('1.23 MB');
    expect(bytes('8531073132')).toBe('8.53 GB');
    expect(joules('5993942064')).toBe('5.99 kJ');
    expect(joules('99143000')).toBe('99.143 J');
    expect(delivery('7200000000', 2)).toBe('2.00 h delivered');
    expect(delivery('1500000', 2)).toBe('1.5 s delivered');
    expect(percent(100_000)).toBe('10 %');
    expect(percent(50_000)).toBe('5.0 %');
  });

  it('writes an age as how long ago, and never for none', () => {
    expect(ago(null)).toBe('never');
    expect(ago(0)).toBe('just now');
    expect(ago(0.4)).toBe('just now');
    expect(ago(-2)).toBe('just now');
    expect(ago(3.9)).toBe('3 s ago');
    expect(ago(59.99)).toBe('59 s ago');
    expect(ago(60)).toBe('1 min ago');
    expect(ago(185)).toBe('3 min 5 s ago');
    expect(ago(3600)).toBe('1 h ago');
    expect(ago(7800)).toBe('2 h 10 min ago');
    expect(ago(86_400 * 3 + 3600 * 4 + 59)).toBe('3 d 4 h ago');
  });
});
