/**
 * Energy from a Prometheus exposition scraped over HTTP: a counter of energy, selected by name
 * and labels, the matching series summed. Values are read as the exact decimal they are written
 * as (`1.5e+06` is 1 500 000 exactly), never through a float.
 *
 * A counter's class is what its source can back (companion C5.2): the agent knows the counters
 * of node_exporter's RAPL collector, Kepler and Scaphandre, and what each may claim
 * ({@link counterClaim}); a counter of any other exporter is an `Estimator`. Its unit is what
 * its name says (Prometheus names a counter's base unit before `_total`: `_joules_total`), or,
 * for a name that states none, what the configuration states; a name that states another unit
 * (`node_cpu_seconds_total`) is not energy, and is refused.
 */
import { CLASS, CLASS_LABEL } from '@wai-steering/wire';
import { floorScaled, parseDecimal } from '../internal/decimal.js';
import { type Sample, seriesKey } from '../internal/exposition.js';
import { type Selector, scrape } from '../internal/scrape.js';
import { AgentConfigError, SourceError } from '../types.js';
import { type CounterEnergySource, type CounterReading, counterIncrease } from './source.js';

/** The unit of an energy counter, and so its scale to microjoules. */
export type EnergyUnit = 'joules' | 'millijoules' | 'microjoules';

const SHIFT: Readonly<Record<EnergyUnit, number>> = { joules: 6, millijoules: 3, microjoules: 0 };

/** The presets: the counters of node_exporter, Kepler and Scaphandre, and the class each states. */
export const ENERGY_PRESETS = {
  /** node_exporter's RAPL collector: the package counters of the CPU, read from powercap. */
  node_rapl: {
    metric: 'node_rapl_package_joules_total',
    unit: 'joules',
    class: CLASS.OnChipCounter,
  },
  /**
   * Kepler's node CPU energy, its package zone (the zones overlap: the cores are inside the
   * package). An `Estimator` unless Kepler's exposition says the value was read from RAPL
   * (see {@link counterClaim}).
   */
  kepler: {
    metric: 'kepler_node_cpu_joules_total',
    unit: 'joules',
    class: CLASS.Estimator,
    labels: { zone: 'package' },
  },
  /**
   * Scaphandre's host energy: RAPL's counters on a bare-metal host, but in a virtual machine a
   * share of the host's that the hypervisor's Scaphandre computed, and its exposition does not
   * say which: an `Estimator`.
   */
  scaphandre: {
    metric: 'scaph_host_energy_microjoules',
    unit: 'microjoules',
    class: CLASS.Estimator,
  },
} as const satisfies Record<
  string,
  {
    metric: string;
    unit: EnergyUnit;
    class: number;
    labels?: Readonly<Record<string, string>>;
  }
>;

/** A preset's name. */
export type EnergyPreset = keyof typeof ENERGY_PRESETS;

/** Units a metric's name may state (Prometheus's naming: the base unit, then `_total`). */
const NOT_ENERGY = [
  'seconds',
  'milliseconds',
  'microseconds',
  'nanoseconds',
  'us',
  'ms',
  'bytes',
  'bits',
  'watts',
  'milliwatts',
  'microwatts',
  'ratio',
  'percent',
  'percentage',
  'celsius',
  'volts',
  'amperes',
  'hertz',
  'meters',
  'grams',
  'packets',
  'requests',
  'errors',
  'info',
];

/** Units of energy the agent does not read (it reads joules, millijoules, microjoules). */
const OTHER_ENERGY = ['kwh', 'wh', 'watthours', 'kilowatthours', 'kilojoules', 'megajoules'];

/**
 * The unit a metric's name states: an energy unit the agent reads, `{ not }` a unit it does not
 * read (another quantity, or energy in another unit), or `undefined` when its name states none.
 */
export function unitOfMetric(
  metric: string,
): EnergyUnit | { not: string; energy: boolean } | undefined {
  const m = /_([a-z]+)(?:_total)?$/.exec(metric);
  const unit = m?.[1];
  if (unit === 'joules' || unit === 'millijoules' || unit === 'microjoules') return unit;
  if (unit !== undefined && NOT_ENERGY.includes(unit)) return { not: unit, energy: false };
  if (unit !== undefined && OTHER_ENERGY.includes(unit)) return { not: unit, energy: true };
  return undefined;
}

/** What the agent knows of a counter, by its name: whose it is, and what it may claim. */
export interface CounterClaim {
  /** Whose counter it is. */
  readonly source: 'node_rapl' | 'kepler' | 'scaphandre' | 'other';
  /** The class it states unless configured otherwise. */
  readonly class: number;
  /** The classes it may be stated as; the first is what its source backs. */
  readonly classes: readonly number[];
  /**
   * For a class the exposition itself must back at every scrape (Kepler's `OnChipCounter`):
   * why a scrape's series do not, or `undefined` when they do.
   */
  readonly check?: (samples: readonly Sample[], selector: Selector) => string | undefined;
  /** Why its source backs no more, for a refusal. */
  readonly why: string;
}

/** A powercap RAPL zone's path, as Kepler 0.10 and later label a zone it read (`path`). */
const RAPL_ZONE_PATH = /\/[a-z]+-rapl(?:-mmio)?:\d+(?::\d+)*$/;
/** Kepler up to 0.9 labels each energy series with what it came from (`source`). */
const KEPLER_RAPL_SOURCES = ['rapl-sysfs', 'rapl-msr'];
/** Kepler's node counters that may be a RAPL reading (not an attribution to a process). */
const KEPLER_NODE_RAPL = /^kepler_node_(?:cpu|package|core|uncore|dram)_joules_total$/;

/** Why Kepler's series do not back `OnChipCounter`, or `undefined` when they do. */
function keplerMeasured(samples: readonly Sample[], selector: Selector): string | undefined {
  for (const s of samples) {
    if (s.name === 'kepler_node_cpu_joules_total') {
      if (!RAPL_ZONE_PATH.test(s.labels.path ?? '')) {
        return `${seriesKey(s)}: Kepler does not say it read this from a RAPL zone (its path label names none)`;
      }
    } else if (!KEPLER_RAPL_SOURCES.includes(s.labels.source ?? '')) {
      return `${seriesKey(s)}: Kepler does not say it read this from RAPL (its source label is ${JSON.stringify(s.labels.source ?? '')}, not rapl-sysfs or rapl-msr)`;
    } else if (selector.labels?.mode !== undefined) {
      // Up to 0.9, `mode` splits a node's reading into Kepler's dynamic and idle estimates.
      return `${seriesKey(s)}: its mode "${selector.labels.mode}" is Kepler's share of the reading, not the reading (select both modes)`;
    }
  }
  return undefined;
}

/**
 * What a counter may claim (companion C5.2), by its name:
 * - node_exporter's RAPL collector (`node_rapl_*`): `OnChipCounter`, the CPU's own counters;
 * - Kepler (`kepler_*`): `Estimator`; `OnChipCounter` for a node counter only while Kepler's
 *   exposition says the value was read from RAPL (a `path` label naming a powercap RAPL zone,
 *   Kepler 0.10 and later; a `source` label `rapl-sysfs` or `rapl-msr`, up to 0.9), checked at
 *   every scrape;
 * - Scaphandre (`scaph_*`): `Estimator` (in a virtual machine its host energy is a share the
 *   hypervisor computed, and its exposition does not say which); its raw RAPL PSYS counter
 *   (`scaph_host_rapl_psys_microjoules`) `OnChipCounter`;
 * - any other exporter's counter: `Estimator`, as far as the agent can tell.
 * Any counter may be stated as `Estimator`, the lowest rank of a figure (§6.2); none as
 * `ModelBased` (a counter is not a model) or above what its source backs.
 */
export function counterClaim(metric: string): CounterClaim {
  const { OnChipCounter, Estimator } = CLASS;
  if (metric.startsWith('node_rapl_')) {
    return {
      source: 'node_rapl',
      class: OnChipCounter,
      classes: [OnChipCounter, Estimator],
      why: "node_exporter's RAPL collector reads the CPU's own counters (powercap): OnChipCounter",
    };
  }
  if (metric.startsWith('kepler_')) {
    const node = KEPLER_NODE_RAPL.test(metric);
    return {
      source: 'kepler',
      class: Estimator,
      classes: node ? [Estimator, OnChipCounter] : [Estimator],
      ...(node ? { check: keplerMeasured } : {}),
      why: node
        ? "Kepler's node counter is an estimate unless its exposition says it read RAPL"
        : `Kepler's ${metric} is Kepler's attribution of a reading, an estimate`,
    };
  }
  if (metric.startsWith('scaph_')) {
    if (metric === 'scaph_host_rapl_psys_microjoules') {
      return {
        source: 'scaphandre',
        class: OnChipCounter,
        classes: [OnChipCounter, Estimator],
        why: "Scaphandre's raw RAPL PSYS counter: OnChipCounter",
      };
    }
    return {
      source: 'scaphandre',
      class: Estimator,
      classes: [Estimator],
      why: "Scaphandre's exposition does not say whether its value is the host's RAPL counter or, in a virtual machine, a share the hypervisor computed: an estimate (read RAPL with source: rapl for OnChipCounter)",
    };
  }
  return {
    source: 'other',
    class: Estimator,
    classes: [Estimator],
    why: "the agent cannot tell how an exporter it does not know acquired its value: an estimate (read RAPL with source: rapl, or node_exporter's node_rapl_* counters, for OnChipCounter)",
  };
}

/**
 * Checks a counter's unit and claimed class; returns the unit, or why the counter is refused
 * (one line). `unit` is the configured unit, if any; `cls` the configured class, if any.
 */
export function checkEnergyCounter(
  metric: string,
  unit: EnergyUnit | undefined,
  cls: number | undefined,
): { unit: EnergyUnit; class: number } | string {
  const named = unitOfMetric(metric);
  if (typeof named === 'object' && named.energy) {
    return `${metric} is in ${named.not}, as its name says, which the agent does not read: use a counter in joules, millijoules or microjoules`;
  }
  if (typeof named === 'object') {
    return `${metric} is not a counter of energy: its name says ${named.not} (an energy counter is in joules: its name ends in _joules_total, or it states no unit and the config gives unit: joules, millijoules or microjoules)`;
  }
  if (named !== undefined && unit !== undefined && unit !== named) {
    return `${metric} is in ${named}, as its name says, not in ${unit}: give unit: ${named}, or none`;
  }
  const u = named ?? unit;
  if (u === undefined) {
    return `${metric} states no unit in its name: give its unit (unit: joules, millijoules or microjoules), or use a counter whose name ends in _joules_total`;
  }
  const claim = counterClaim(metric);
  const c = cls ?? claim.class;
  if (!claim.classes.includes(c)) {
    const label = CLASS_LABEL[c] ?? String(c);
    const may = claim.classes.map((k) => CLASS_LABEL[k]).join(' or ');
    return `class ${label} is more than ${metric} can back (${claim.why}): state ${may}`;
  }
  return { unit: u, class: c };
}

/** Options of {@link prometheusEnergySource}. */
export interface PrometheusEnergyOptions extends Selector {
  readonly url: string;
  /** The counter's unit; by default what its name says (`_joules_total`). */
  readonly unit?: EnergyUnit;
  /** The class tag the counter is stated as (companion C5.2); by default what it backs. */
  readonly class?: number;
  readonly timeoutMs?: number;
}

/**
 * A Prometheus energy source. Throws an {@link AgentConfigError} for a counter that is not of
 * energy, or a class its source cannot back (see {@link checkEnergyCounter}).
 */
export function prometheusEnergySource(o: PrometheusEnergyOptions): CounterEnergySource {
  const checked = checkEnergyCounter(o.metric, o.unit, o.class);
  if (typeof checked === 'string') throw new AgentConfigError(checked);
  const shift = SHIFT[checked.unit];
  const claim = counterClaim(o.metric);
  // A class above what the source backs by itself must be backed by each scrape.
  const check = checked.class !== claim.class ? claim.check : undefined;
  return {
    kind: 'counter',
    class: checked.class,
    describe: `prometheus ${o.url} ${o.metric}`,
    async read(): Promise<CounterReading> {
      const samples = await scrape(o.url, o, o.timeoutMs);
      const notCounter = samples.find(
        (s) => s.type !== undefined && s.type !== 'counter' && s.type !== 'untyped',
      );
      if (notCounter !== undefined) {
        throw new SourceError(
          `${o.url} ${o.metric} is a ${notCounter.type}, not a counter: its increase over a period is not the energy spent`,
        );
      }
      const unbacked = check?.(samples, o);
      if (unbacked !== undefined) {
        throw new SourceError(
          `${o.url} ${unbacked}: class ${CLASS_LABEL[checked.class]} is not backed (state ${CLASS_LABEL[claim.class]})`,
        );
      }
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
