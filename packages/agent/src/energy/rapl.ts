/**
 * Linux RAPL through powercap: each configured zone's `energy_uj` (cumulative microjoules) and
 * `max_energy_range_uj` (where it wraps), under `/sys/class/powercap` (or another root, for a
 * test or a container's mount). Class `OnChipCounter` (companion C5.2 tag 4).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLASS } from '@wai-steering/wire';
import { SourceError } from '../types.js';
import { type CounterEnergySource, type CounterReading, counterIncrease } from './source.js';

/** Options of {@link raplSource}. */
export interface RaplOptions {
  /** The powercap directory (default `/sys/class/powercap`). */
  readonly root?: string;
  /**
   * The zones to sum, by directory name (`intel-rapl:0`). Default: every top-level zone
   * (`intel-rapl:N`, `amd-rapl:N`; not their subzones, whose energy the package already counts).
   */
  readonly zones?: readonly string[];
}

function readInteger(path: string): bigint {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? String(e);
    const hint =
      code === 'EACCES' ? ' (energy_uj is readable by root only on Linux 5.10 and later)' : '';
    throw new SourceError(`cannot read ${path}: ${code}${hint}`);
  }
  const t = text.trim();
  if (!/^\d{1,20}$/.test(t))
    throw new SourceError(`${path} does not hold a whole number: ${JSON.stringify(t)}`);
  return BigInt(t);
}

/** The top-level RAPL zones of a powercap directory. */
export function raplZones(root: string): string[] {
  let names: string[];
  try {
    names = readdirSync(root);
  } catch (e) {
    throw new SourceError(`cannot read ${root}: ${(e as NodeJS.ErrnoException).code ?? e}`);
  }
  return names.filter((n) => /^[a-z]+-rapl:\d+$/.test(n)).sort();
}

/** A RAPL energy source. */
export function raplSource(options: RaplOptions = {}): CounterEnergySource {
  const root = options.root ?? '/sys/class/powercap';
  const zones = options.zones ?? raplZones(root);
  if (zones.length === 0) throw new SourceError(`no RAPL zone under ${root}`);
  return {
    kind: 'counter',
    class: CLASS.OnChipCounter,
    describe: `rapl ${zones.map((z) => join(root, z)).join(' ')}`,
    async read(): Promise<CounterReading> {
      const values: Record<string, string> = {};
      const ranges: Record<string, string> = {};
      for (const z of zones) {
        values[z] = String(readInteger(join(root, z, 'energy_uj')));
        ranges[z] = String(readInteger(join(root, z, 'max_energy_range_uj')));
      }
      return { values, ranges };
    },
    between(prev, cur) {
      // A zone's counter that went down wrapped at max_energy_range_uj: the increase is what it
      // counted up to the range and what it counted from 0 (one wrap a period at most: at the
      // ~262 kJ range of a package that is many minutes at any power a CPU draws).
      return counterIncrease(prev, cur, (zone, p, c) => {
        const max = BigInt(cur.ranges?.[zone] ?? '0');
        if (max === 0n || p > max) return `zone ${zone} went down with no range to wrap at`;
        return max - p + c;
      });
    },
  };
}
