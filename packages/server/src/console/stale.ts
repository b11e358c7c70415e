/**
 * Why a pathway is stale (§5.2), hop by hop, for the console: the periods of the window a hop has
 * no record of (missing), records whose spans overlap, and records that do not tile the window
 * (a span off the period grid, or reaching outside [a, b)). The rule needs none of this: a hop is
 * covered or it is not. This says what an operator should look at.
 */
import type { EvidenceRecord, Window } from '@wai-steering/evidence';

/** One thing wrong with a hop's records over the window. */
export interface HopProblem {
  /** `missing`: no record of these periods; `overlapping`: two records cover this span; `not_tiling`: a record's span is off the period grid or reaches outside the window. */
  readonly kind: 'missing' | 'overlapping' | 'not_tiling';
  /** Room clock µs. */
  readonly start: bigint;
  readonly end: bigint;
}

const ALL: Window = { a: 0n, b: (1n << 64n) - 1n };

/** The records a store holds of a hop that reach into `window`, in ascending `start`. */
export function recordsNear(
  store: { recordsOfHop(hop: Uint8Array, window: Window): Iterable<EvidenceRecord> },
  hop: Uint8Array,
  window: Window,
): EvidenceRecord[] {
  const out: EvidenceRecord[] = [];
  for (const r of store.recordsOfHop(hop, ALL)) {
    if (r.record.start < window.b && r.record.end > window.a) out.push(r);
  }
  return out.sort((x, y) =>
    x.record.start < y.record.start ? -1 : x.record.start > y.record.start ? 1 : 0,
  );
}

/**
 * The problems of a hop that is not covered, from the records held of it that reach into the
 * window (`records`, ascending `start`), with the policy's period P. An empty window (a = b)
 * gives one `missing` problem of no length.
 */
export function explainHop(
  records: readonly EvidenceRecord[],
  window: Window,
  period: bigint,
): HopProblem[] {
  const { a, b } = window;
  if (a >= b) return [{ kind: 'missing', start: a, end: b }];
  const problems: HopProblem[] = [];
  // Records that do not tile: off the period grid, or reaching outside the window.
  for (const { record: r } of records) {
    if (r.start < a || r.end > b || r.start % period !== 0n || r.end % period !== 0n) {
      problems.push({ kind: 'not_tiling', start: r.start, end: r.end });
    }
  }
  // Overlaps between consecutive records (by start), of distinct spans or duplicates.
  for (let i = 1; i < records.length; i++) {
    const prev = records[i - 1]!.record;
    const cur = records[i]!.record;
    if (cur.start < prev.end) {
      // biome-ignore lint/complexity/useMathMinMax: bigints (Math.min takes numbers)
      const end = cur.end < prev.end ? cur.end : prev.end;
      problems.push({ kind: 'overlapping', start: cur.start, end });
    }
  }
  // Periods of [a, b) that no record in the window covers, merged into runs.
  let runStart: bigint | undefined;
  for (let s = a; s < b; s += period) {
    const e = s + period;
    const covered = records.some(
      ({ record: r }) => r.start <= s && r.end >= e && r.start >= a && r.end <= b,
    );
    if (!covered) runStart ??= s;
    else if (runStart !== undefined) {
      problems.push({ kind: 'missing', start: runStart, end: s });
      runStart = undefined;
    }
  }
  if (runStart !== undefined) problems.push({ kind: 'missing', start: runStart, end: b });
  return problems.sort((x, y) => (x.start < y.start ? -1 : x.start > y.start ? 1 : 0));
}
