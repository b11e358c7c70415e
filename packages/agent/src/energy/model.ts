/**
 * A stated model: idle watts plus joules per byte delivered, class `ModelBased` (companion C5.2
 * tag 2). Exact: watts are held as whole microwatts and nanojoules per byte as whole picojoules
 * per byte, so a span's energy is picojoules (µW × µs = pJ) summed exactly, then cut to whole
 * microjoules.
 */
import { CLASS } from '@wai-steering/wire';
import { floorScaled, isWhole, parseDecimal } from '../internal/decimal.js';
import { AgentConfigError, bytesOut } from '../types.js';
import type { SpanEnergySource } from './source.js';

/** Options of {@link modelSource}: decimal strings (or numbers) as a config writes them. */
export interface ModelOptions {
  /** The hop's draw when it delivers nothing, watts (to the microwatt). */
  readonly idleWatts: string | number;
  /** The energy of each byte sent out, nanojoules (to the picojoule). */
  readonly nanojoulesPerByte: string | number;
}

function exact(value: string | number, shift: number, what: string): bigint {
  const d = parseDecimal(String(value));
  if (typeof d === 'string') throw new AgentConfigError(`${what}: ${d}`);
  if (!isWhole(d, shift)) {
    throw new AgentConfigError(`${what}: ${value} has more than ${shift} decimals`);
  }
  return floorScaled(d, shift);
}

/** A model energy source. */
export function modelSource(o: ModelOptions): SpanEnergySource {
  const microwatts = exact(o.idleWatts, 6, 'energy.idleWatts');
  const picojoulesPerByte = exact(o.nanojoulesPerByte, 3, 'energy.nanojoulesPerByte');
  return {
    kind: 'span',
    class: CLASS.ModelBased,
    describe: `model ${o.idleWatts} W idle + ${o.nanojoulesPerByte} nJ/B`,
    energy(span, traffic) {
      const pJ = microwatts * (span.end - span.start) + picojoulesPerByte * bytesOut(traffic);
      return pJ / 1_000_000n;
    },
  };
}
