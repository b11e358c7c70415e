import { describe, expect, it } from 'vitest';
import { durationMs, readDurationMs } from '../../src/config/schema.js';

describe('configuration', () => {
  it('reads durations as the policy YAML does (one parser); a bare number is refused', () => {
    expect(durationMs('7d')).toBe(604_800_000);
    expect(durationMs('2w')).toBe(1_209_600_000);
    expect(durationMs('500ms')).toBe(500);
    expect(durationMs('1.5s')).toBe(1500);
    expect(durationMs('5min')).toBe(300_000);
    expect(durationMs(10)).toBeUndefined();
    expect(readDurationMs(10)).toBe('a duration needs its unit: write "10s" (or "10ms")');
    expect(readDurationMs('10')).toBe('a duration needs its unit: write "10s" (or "10ms")');
    expect(durationMs('7 days')).toBeUndefined();
    expect(durationMs('1.5ms')).toBeUndefined(); // not whole in ms: refused, never rounded
    expect(durationMs(-1)).toBeUndefined();
  });
});
