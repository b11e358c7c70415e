// Random accounts of the shape of docs/energy.md, *The JSON*, for the JSON and comparison properties.
import fc from 'fast-check';
import type { EnergyAccount, PathwayAccount } from '../../src/index.js';

const unsigned = fc.bigInt({ min: 0n, max: (1n << 130n) - 1n });
const signed = fc.bigInt({ min: -(1n << 130n), max: (1n << 130n) - 1n });
const float = fc.double({ noNaN: true, noDefaultInfinity: true });
const interval = fc.tuple(float, float);
const id = fc.stringMatching(/^[A-Za-z0-9._-]{1,64}$/);

export const pathwayAccount: fc.Arbitrary<PathwayAccount> = fc.record({
  id,
  periods: fc.nat(),
  periods_unusable: fc.nat(),
  joules_uj: unsigned,
  delivery: unsigned,
  average_pj_per_unit: fc.option(unsigned),
  marginal_pj_per_unit: fc.option(signed),
  marginal_ci95_pj_per_unit: fc.option(interval),
  idle_uj_per_period: fc.option(signed),
  r2: fc.option(float),
  marginal_why: fc.constantFrom(null, 'too_few_periods' as const, 'no_variance' as const),
  sessions_served: unsigned,
  sessions_placed: fc.option(unsigned),
});

export const energyAccountArb: fc.Arbitrary<EnergyAccount> = fc.record({
  room: fc.stringMatching(/^[0-9a-f]{64}$/),
  from: fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }),
  to: fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }),
  period_us: fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }),
  basis: fc.constantFrom(1, 2),
  baseline: fc.record({ pathway: id, why: fc.constant('initial' as const) }),
  pathways: fc.array(pathwayAccount, { maxLength: 5 }),
  saved_average_uj: fc.option(signed),
  saved_marginal_uj: fc.option(signed),
  saved_marginal_ci95_uj: fc.option(interval),
});
