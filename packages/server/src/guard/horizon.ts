/**
 * The records' horizon: which per-hop records (`WMH1`) the server takes at all. A record that no
 * window the server will use can name is refused with `outside_horizon` (a server refusal, not a
 * companion C7 code, since the record itself is sound):
 *
 * - it ends more than `maxAheadUs` after the room clock (no window reaches that far before the
 *   record would be pruned from memory, and a hop's clock that far ahead is wrong);
 * - it ends before the records' retention (`now − retention`): pruned at the next pass, and no
 *   window the server will use reaches back that far (epoch 0 is this case);
 * - its span is longer than the window `W` (§5.1: a record is in a window when a ≤ start and
 *   end ≤ b, with b − a = W, so no window names it), or empty (`end ≤ start`).
 *
 * And the records one hop may have for one period are bounded: a second record of the same hop
 * for the same span that differs is taken (§5.2 decides with both), but not more than
 * `maxPerPeriod` records of one hop whose spans end in one period.
 *
 * The refusals' messages state spans of time as readable durations (docs/decisions.md, "Times
 * for people").
 */
import { formatDuration, formatDurationExact } from '@wai-steering/config-text';

/** Options of {@link RecordHorizon}. */
export interface RecordHorizonOptions {
  /** The policy's period P and window W, µs. */
  readonly periodUs: bigint;
  readonly windowUs: bigint;
  /** How far after the room clock a record may end, µs. */
  readonly maxAheadUs: bigint;
  /** The records' retention, µs. */
  readonly retentionUs: bigint;
  /** The most records of one hop whose spans end in one period. */
  readonly maxPerPeriod: number;
}

/** Why a record is refused. */
export type HorizonRefusal =
  | { readonly error: 'outside_horizon'; readonly message: string }
  | { readonly error: 'too_many_records'; readonly message: string };

/** A record's span and hop, as the horizon reads them. */
export interface HorizonRecord {
  readonly hop: Uint8Array;
  readonly start: bigint;
  readonly end: bigint;
}

/**
 * A value beyond a limit, both as readable durations; with their µs beside them where the
 * readable forms would read the same (`1 min (60000001 µs)`, more than `1 min`).
 */
function beyond(value: bigint, limit: bigint): { value: string; limit: string } {
  const v = formatDuration(value);
  const l = formatDuration(limit);
  return v === l
    ? { value: formatDurationExact(value), limit: formatDurationExact(limit) }
    : { value: v, limit: l };
}

function hex(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex');
}

/** The horizon and the per-hop, per-period counts of the records taken. */
export class RecordHorizon {
  /** Records taken per `hop:period`, where the period is the one its span ends in. */
  private readonly counts = new Map<string, number>();

  constructor(private readonly o: RecordHorizonOptions) {
    if (o.periodUs <= 0n) throw new TypeError('RecordHorizon: the period is above 0');
  }

  /** Entries of the per-period counts. */
  get size(): number {
    return this.counts.size;
  }

  private keyOf(r: HorizonRecord): string {
    const period = r.end <= 0n ? 0n : (r.end - 1n) / this.o.periodUs;
    return `${hex(r.hop)}:${period}`;
  }

  /** Whether a record may be taken at `now` (µs); `undefined` when it may. */
  check(r: HorizonRecord, now: bigint): HorizonRefusal | undefined {
    const o = this.o;
    if (r.end <= r.start) {
      return { error: 'outside_horizon', message: 'the record spans no time (end ≤ start)' };
    }
    if (r.end - r.start > o.windowUs) {
      const d = beyond(r.end - r.start, o.windowUs);
      return {
        error: 'outside_horizon',
        message: `the record spans ${d.value}, more than the window W (${d.limit}): no window names it`,
      };
    }
    if (r.end > now + o.maxAheadUs) {
      const d = beyond(r.end - now, o.maxAheadUs);
      return {
        error: 'outside_horizon',
        message: `the record ends ${d.value} after the room clock, more than ${d.limit}`,
      };
    }
    if (r.end < now - o.retentionUs) {
      const d = beyond(now - r.end, o.retentionUs);
      return {
        error: 'outside_horizon',
        message: `the record ended ${d.value} ago, before the records' retention (${d.limit})`,
      };
    }
    if ((this.counts.get(this.keyOf(r)) ?? 0) >= o.maxPerPeriod) {
      return {
        error: 'too_many_records',
        message: `this hop has ${o.maxPerPeriod} records for this period already`,
      };
    }
    return undefined;
  }

  /** Counts a record taken (a new one; a duplicate by digest is not counted again). */
  taken(r: HorizonRecord): void {
    const key = this.keyOf(r);
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
  }

  /** Forgets the counts of periods that end before `beforeUs` (older records are refused). */
  prune(beforeUs: bigint): void {
    const limit = beforeUs <= 0n ? 0n : beforeUs / this.o.periodUs;
    for (const key of this.counts.keys()) {
      const period = BigInt(key.slice(key.indexOf(':') + 1));
      if (period + 1n < limit) this.counts.delete(key);
    }
  }
}
