import { describe, expect, it } from 'vitest';
import {
  deliveryText,
  energy,
  energyUnit,
  exactPerUnit,
  exactUj,
  marginalWhy,
  perUnit,
  threeFigures,
} from '../../src/energy/units.js';

describe('the Energy page’s units', () => {
  it('writes energy in J, Wh, kWh or MWh by its size, with its sign', () => {
    expect(energy(3.6e9)).toBe('1.00 Wh'); // 3 600 J
    expect(energy('300000000')).toBe('300 J'); // 0.1 Wh is 360 J: below it, joules
    expect(energy(0.1 * 3.6e9)).toBe('0.100 Wh');
    expect(energy(-5e12)).toBe('−1.39 kWh');
    expect(energy(2.5e15)).toBe('694 kWh');
    expect(energy(7.2e15)).toBe('2.00 MWh');
    expect(energy(0)).toBe('0.000 J');
    expect(energyUnit(-4e12)).toEqual({ unit: 'kWh', scale: 3.6e12 });
  });

  it('writes an energy per byte as J/GB and kWh/GB, and per µs as watts a stream', () => {
    // 73 976 pJ/B = 73.976 J/GB = 73.976 / 3.6e6 kWh/GB.
    expect(perUnit('73976', 1)).toEqual({ main: '74.0 J/GB', also: '2.05 × 10⁻⁵ kWh/GB' });
    expect(perUnit(1_500_000, 1)).toEqual({ main: '1500 J/GB', also: '0.000417 kWh/GB' });
    expect(perUnit(-2000, 1).main).toBe('−2.00 J/GB');
    // 5 000 000 pJ/µs = 5 W.
    expect(perUnit('5000000', 2).main).toBe('5.00 W a stream');
    expect(exactPerUnit('-73976', 1)).toBe('−73\u202f976 pJ/B');
    expect(exactUj('1859173770')).toBe('1\u202f859\u202f173\u202f770 µJ');
    expect(threeFigures(0.00012345)).toBe('0.000123');
    expect(threeFigures(2.0548e-7)).toBe('2.05 × 10⁻⁷');
  });

  it('writes a delivery on its basis', () => {
    expect(deliveryText('12200000000', 1)).toBe('12.2 GB');
    expect(deliveryText('999', 1)).toBe('999 B');
    expect(deliveryText(String(7_200_000_000), 2)).toBe('2.00 h delivered');
    expect(deliveryText(String(90_000_000), 2)).toBe('1.50 min delivered');
  });

  it('says why a marginal figure is not stated', () => {
    expect(marginalWhy(null, 40)).toBeNull();
    expect(marginalWhy('too_few_periods', 12)).toBe(
      'no marginal figure: 12 usable periods, 30 needed',
    );
    expect(marginalWhy('too_few_periods', 1)).toBe(
      'no marginal figure: 1 usable period, 30 needed',
    );
    expect(marginalWhy('too_few_periods', 0)).toMatch(/^no marginal figure: no usable period/);
    expect(marginalWhy('no_variance', 40)).toMatch(/the same delivery every period/);
  });
});
