import type { Span, Traffic } from '../types.js';

/**
 * A reading of a counter: for each series (a RAPL zone, a Prometheus series) its cumulative
 * value in whole microjoules, as a decimal string (JSON-safe, so a reading can be kept in the
 * spool across a restart), and, for a counter that wraps, its range.
 */
export interface CounterReading {
  readonly values: Readonly<Record<string, string>>;
  readonly ranges?: Readonly<Record<string, string>>;
}

/**
 * An energy source that reads a cumulative counter: the energy of a period is the increase of
 * the counter between its readings at the period's two boundaries.
 */
export interface CounterEnergySource {
  readonly kind: 'counter';
  /** The class tag it states (companion C5.2). */
  readonly class: number;
  /** What it reads, for logs and errors. */
  readonly describe: string;
  /** Reads the counter now; throws a `SourceError` when it cannot. */
  read(): Promise<CounterReading>;
  /** The microjoules between two readings, or why the span cannot be stated. */
  between(prev: CounterReading, cur: CounterReading): bigint | string;
}

/** An energy source that states a span's energy from the span and its traffic (a model). */
export interface SpanEnergySource {
  readonly kind: 'span';
  readonly class: number;
  readonly describe: string;
  /** The microjoules of the span. */
  energy(span: Span, traffic: Traffic): bigint;
}

/** No energy source: every record is the unmetered marker (class 0, joules 0; C5.2). */
export interface UnmeteredSource {
  readonly kind: 'none';
  readonly class: 0;
  readonly describe: string;
}

/** An energy source of a hop. */
export type EnergySource = CounterEnergySource | SpanEnergySource | UnmeteredSource;

/** C5.2: the unmetered marker as a source. */
export function unmetered(): UnmeteredSource {
  return { kind: 'none', class: 0, describe: 'none (the unmetered marker)' };
}

/**
 * The increase of a set of counters between two readings, series by series: a series that went
 * down was reset (or, with a range, wrapped). A change in the set of series is not a span the
 * source can state.
 */
export function counterIncrease(
  prev: CounterReading,
  cur: CounterReading,
  onDecrease: (series: string, prev: bigint, cur: bigint) => bigint | string,
): bigint | string {
  const a = Object.keys(prev.values).sort();
  const b = Object.keys(cur.values).sort();
  if (a.length !== b.length || a.some((k, i) => k !== b[i])) {
    return `the series changed (${a.join(' ')} → ${b.join(' ')})`;
  }
  let sum = 0n;
  for (const k of b) {
    const p = BigInt(prev.values[k]!);
    const c = BigInt(cur.values[k]!);
    if (c >= p) sum += c - p;
    else {
      const d = onDecrease(k, p, c);
      if (typeof d === 'string') return d;
      sum += d;
    }
  }
  return sum;
}
