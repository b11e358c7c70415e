import { describe, expect, it } from 'vitest';
import { timeTickLabels } from '../src/console/time-axis.js';

// 2026-12-01T18:00:00Z: six in the evening, UTC (unix seconds).
const T = Date.UTC(2026, 11, 1, 18, 0, 0) / 1000;

describe('timeTickLabels', () => {
  it('writes 24-hour UTC clock times, minutes when the ticks are a minute apart', () => {
    expect(timeTickLabels([T, T + 60, T + 120], 60)).toEqual(['18:00', '18:01', '18:02']);
    expect(timeTickLabels([T + 6 * 3600], 3600)).toEqual(['00:00']);
  });

  it('writes seconds when the ticks are seconds apart, and milliseconds below', () => {
    expect(timeTickLabels([T, T + 15, T + 30], 15)).toEqual(['18:00:00', '18:00:15', '18:00:30']);
    expect(timeTickLabels([T + 0.25], 0.25)).toEqual(['18:00:00.250']);
  });

  it('leaves no tick blank, and never writes a date or am/pm', () => {
    expect(timeTickLabels([null, T], 60)).toEqual(['', '18:00']);
    for (const label of timeTickLabels([T, T + 43200], 60)) expect(label).toMatch(/^\d\d:\d\d$/);
  });
});
