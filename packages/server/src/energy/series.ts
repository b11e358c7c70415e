/**
 * The per-period figures behind an account, for people (`GET /energy/series`, the console's
 * Energy page): the span's periods summed into at most `buckets` buckets of whole periods (each
 * pathway's joules, delivery, usable periods and sessions served over its usable periods), and
 * an even sample of at most `samples` periods (each pathway's J and D, `null` where the period
 * is not usable for it), for the scatter of each pathway's fit. Exact integers are decimal
 * strings, as in the account.
 */
import type { PeriodView } from '@wai-steering/energy';

/** One pathway's columns of the series. */
export interface PathwaySeriesJson {
  readonly id: string;
  /** Per bucket: Σ D, Σ J (µJ) and Σ sessions served over its usable periods; usable periods. */
  readonly delivery: string[];
  readonly joules_uj: string[];
  readonly sessions_served: string[];
  readonly usable: number[];
  /** Per sampled period: J (µJ) and D, `null` where the period is not usable for it. */
  readonly sample_joules_uj: (string | null)[];
  readonly sample_delivery: (string | null)[];
}

/** The series of an account. */
export interface SeriesJson {
  /** The buckets: the i-th is [from + i × bucket_us, from + (i + 1) × bucket_us) ∩ the span. */
  readonly bucket_us: string;
  readonly buckets: number;
  /** The sampled periods: every `stride`-th of the span from the first, by index k. */
  readonly sample_stride: number;
  readonly sample_periods: number[];
  readonly pathways: PathwaySeriesJson[];
}

/** The most buckets and samples a series may be asked for. */
export const MAX_BUCKETS = 2000;
export const MAX_SAMPLES = 5000;
export const DEFAULT_BUCKETS = 720;
export const DEFAULT_SAMPLES = 1500;

interface Columns {
  delivery: bigint[];
  joules: bigint[];
  served: bigint[];
  usable: number[];
  sJ: (string | null)[];
  sD: (string | null)[];
}

/** Builds a series from the periods an accumulator closes (`onPeriod`). */
export class SeriesBuilder {
  private readonly per: bigint;
  private readonly stride: number;
  private readonly nBuckets: number;
  private readonly cols: Columns[];
  private readonly sampled: number[] = [];

  constructor(
    private readonly o: {
      readonly from: bigint;
      readonly to: bigint;
      readonly periodUs: bigint;
      readonly pathways: readonly string[];
      readonly buckets: number;
      readonly samples: number;
    },
  ) {
    const periods = Number((o.to - o.from) / o.periodUs);
    this.per = BigInt(Math.max(1, Math.ceil(periods / o.buckets)));
    this.nBuckets = Math.ceil(periods / Number(this.per));
    this.stride = Math.max(1, Math.ceil(periods / o.samples));
    this.cols = o.pathways.map(() => ({
      delivery: new Array<bigint>(this.nBuckets).fill(0n),
      joules: new Array<bigint>(this.nBuckets).fill(0n),
      served: new Array<bigint>(this.nBuckets).fill(0n),
      usable: new Array<number>(this.nBuckets).fill(0),
      sJ: [],
      sD: [],
    }));
  }

  /** An accumulator's `onPeriod`. */
  readonly onPeriod = (v: PeriodView): void => {
    const b = Math.floor(v.index / Number(this.per));
    const sample = v.index % this.stride === 0;
    if (sample) this.sampled.push(v.index);
    v.pathways.forEach((p, i) => {
      const c = this.cols[i];
      if (c === undefined) return;
      if (p.usable) {
        c.delivery[b]! += p.delivery;
        c.joules[b]! += p.joules;
        c.served[b]! += BigInt(p.sessions);
        c.usable[b]!++;
      }
      if (sample) {
        c.sJ.push(p.usable ? p.joules.toString() : null);
        c.sD.push(p.usable ? p.delivery.toString() : null);
      }
    });
  };

  json(): SeriesJson {
    const s = (xs: bigint[]) => xs.map((x) => x.toString());
    return {
      bucket_us: (this.per * this.o.periodUs).toString(),
      buckets: this.nBuckets,
      sample_stride: this.stride,
      sample_periods: this.sampled,
      pathways: this.o.pathways.map((id, i) => {
        const c = this.cols[i]!;
        return {
          id,
          delivery: s(c.delivery),
          joules_uj: s(c.joules),
          sessions_served: s(c.served),
          usable: c.usable,
          sample_joules_uj: c.sJ,
          sample_delivery: c.sD,
        };
      }),
    };
  }
}
