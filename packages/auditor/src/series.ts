/**
 * What the HTML report plots over time, in bounded memory however many decisions: the span is cut
 * into at most {@link MAX_BINS} bins whose width doubles (merging bins pairwise) as the span grows.
 * Per bin: each pathway's stated and replayed load at the bin's last decision, and the decisions
 * by reason, and refused.
 */

export const MAX_BINS = 256;

/** One bin of the series. */
export interface SeriesBin {
  /** Its start, room clock µs (decimal). */
  readonly start: string;
  /** Per pathway id: [stated, replayed] at the bin's last decision that states it. */
  readonly loads: Readonly<Record<string, readonly [number, number]>>;
  /** Decisions by §6.4 reason name, and `refused`. */
  readonly reasons: Readonly<Record<string, number>>;
}

/** The series of an audit. */
export interface Series {
  readonly width_us: string;
  readonly pathways: readonly string[];
  readonly bins: readonly SeriesBin[];
}

interface Bin {
  loads: Map<string, [number, number]>;
  reasons: Map<string, number>;
}

function emptyBin(): Bin {
  return { loads: new Map(), reasons: new Map() };
}

export class SeriesBuilder {
  private origin: bigint | undefined;
  private width = 1_000_000n;
  private bins: Bin[] = [];
  private readonly pathways: string[] = [];
  private readonly known = new Set<string>();

  private binAt(t: bigint): Bin {
    if (this.origin === undefined) this.origin = t;
    while ((t - this.origin) / this.width >= BigInt(MAX_BINS)) this.merge();
    const i = Number((t - this.origin) / this.width);
    while (this.bins.length <= i) this.bins.push(emptyBin());
    return this.bins[i]!;
  }

  private merge(): void {
    const merged: Bin[] = [];
    for (let i = 0; i < this.bins.length; i += 2) {
      const a = this.bins[i]!;
      const b = this.bins[i + 1];
      if (b === undefined) {
        merged.push(a);
        continue;
      }
      for (const [k, v] of b.loads) a.loads.set(k, v);
      for (const [k, v] of b.reasons) a.reasons.set(k, (a.reasons.get(k) ?? 0) + v);
      merged.push(a);
    }
    this.bins = merged;
    this.width *= 2n;
  }

  /**
   * A decision at `t`: its reason name (or `refused`), and for each pathway `ids[i]` its stated
   * and replayed load.
   */
  add(
    t: bigint,
    reason: string,
    ids: readonly string[],
    stated: ArrayLike<number>,
    replayed: ArrayLike<number>,
  ): void {
    const bin = this.binAt(t);
    bin.reasons.set(reason, (bin.reasons.get(reason) ?? 0) + 1);
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i]!;
      let pair = bin.loads.get(id);
      if (pair === undefined) {
        if (!this.known.has(id)) {
          this.known.add(id);
          this.pathways.push(id);
        }
        pair = [0, 0];
        bin.loads.set(id, pair);
      }
      pair[0] = stated[i]!;
      pair[1] = replayed[i]!;
    }
  }

  result(): Series {
    const origin = this.origin ?? 0n;
    return {
      width_us: this.width.toString(),
      pathways: [...this.pathways],
      bins: this.bins.map((b, i) => ({
        start: (origin + BigInt(i) * this.width).toString(),
        loads: Object.fromEntries(b.loads),
        reasons: Object.fromEntries(b.reasons),
      })),
    };
  }
}
