/**
 * Energy from a Prometheus exposition scraped over HTTP: a counter in joules or microjoules,
 * selected by name and labels, the matching series summed. Values are read as the exact decimal
 * they are written as (`1.5e+06` is 1 500 000 exactly), never through a float.
 */
import { CLASS } from '@wai-steering/wire';
import { floorScaled, parseDecimal } from '../internal/decimal.js';
import { seriesKey } from '../internal/exposition.js';
import { type Selector, scrape } from '../internal/scrape.js';
import { SourceError } from '../types.js';
import { type CounterEnergySource, type CounterReading, counterIncrease } from './source.js';

/** The unit of an energy counter. */
export type EnergyUnit = 'joules' | 'microjoules';

/** The presets: the counters of node_exporter, Kepler and Scaphandre, and the class each states. */
export const ENERGY_PRESETS = {
  /** node_exporter's RAPL collector: the package counters of the CPU, read from powercap. */
  node_rapl: {
    metric: 'node_rapl_package_joules_total',
    unit: 'joules',
    class: CLASS.OnChipCounter,
  },
  /**
   * Kepler's node CPU energy. Kepler reads RAPL when it can and models the energy otherwise;
   * `Estimator` is the class it may always state (say `OnChipCounter` when it reads RAPL).
   */
  kepler: { metric: 'kepler_node_cpu_joules_total', unit: 'joules', class: CLASS.Estimator },
  /** Scaphandre's host energy: RAPL's counters (psys, or the packages summed). */
  scaphandre: {
    metric: 'scaph_host_energy_microjoules',
    unit: 'microjoules',
    class: CLASS.OnChipCounter,
  },
} as const satisfies Record<string, { metric: string; unit: EnergyUnit; class: number }>;

/** A preset's name. */
export type EnergyPreset = keyof typeof ENERGY_PRESETS;

/** Options of {@link prometheusEnergySource}. */
export interface PrometheusEnergyOptions extends Selector {
  readonly url: string;
  readonly unit: EnergyUnit;
  /** The class tag the counter may be stated as (companion C5.2). */
  readonly class: number;
  readonly timeoutMs?: number;
}

/** A Prometheus energy source. */
export function prometheusEnergySource(o: PrometheusEnergyOptions): CounterEnergySource {
  const shift = o.unit === 'joules' ? 6 : 0;
  return {
    kind: 'counter',
    class: o.class,
    describe: `prometheus ${o.url} ${o.metric}`,
    async read(): Promise<CounterReading> {
      const samples = await scrape(o.url, o, o.timeoutMs);
      const values: Record<string, string> = {};
      for (const s of samples) {
        const d = parseDecimal(s.value);
        if (typeof d === 'string') throw new SourceError(`${o.url} ${seriesKey(s)}: ${d}`);
        // Whole microjoules: a digit below the microjoule is cut here and counted when the
        // counter's next whole microjoule is reached (the periods' sum is the counter's).
        values[seriesKey(s)] = String(floorScaled(d, shift));
      }
      return { values };
    },
    between(prev, cur) {
      // A counter that went down was reset (the exporter restarted): as Prometheus's `increase`,
      // what it counted since is its value.
      return counterIncrease(prev, cur, (_s, _p, c) => c);
    },
  };
}
