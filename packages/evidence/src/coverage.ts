/**
 * Why a pathway is stale, for people: for each hop of each pathway, what of the window [a, b)
 * (§5.1) its records leave uncovered, cover twice, or cross, and whether they tile it (§5.2).
 * Not part of the rule (a decision never depends on it): `wai-steer decision inspect`, `verify`
 * and a server's status page use it to name the hop and the periods to fix.
 */
import { compareBytes, type PolicyFields } from '@wai-steering/wire';
import { type EvidenceRecord, tileHop } from './select.js';
import type { Window } from './window.js';

/** A span [start, end) of the room clock, µs. */
export interface Span {
  readonly start: bigint;
  readonly end: bigint;
}

/** One hop's coverage of the window. */
export interface HopCoverage {
  /** The hop's index in its pathway, and its key. */
  readonly hop: number;
  readonly key: Uint8Array;
  /** §5.2: some of its records tile [a, b) exactly. */
  readonly tiles: boolean;
  /** How many of its records lie in the window (§5.1: a ≤ start, end ≤ b). */
  readonly inWindow: number;
  /** The parts of [a, b) no record in the window covers (the periods to sign or ingest). */
  readonly missing: readonly Span[];
  /** The parts of [a, b) covered by two records of different spans (they cannot both be named). */
  readonly overlapping: readonly Span[];
  /** Records that cross a or b: partly in the window, so never named (they do not tile it). */
  readonly crossing: readonly Span[];
  /** In-window records that do not start or end on a period boundary of the policy. */
  readonly offPeriod: readonly Span[];
}

/** One pathway's coverage: each of its hops, in the pathway's hop order. */
export interface PathwayCoverage {
  readonly pathway: number;
  readonly id: string;
  /** Every hop tiles the window (the pathway has evidence to state, §5.2). */
  readonly covered: boolean;
  readonly hops: readonly HopCoverage[];
}

/** Where the explanation finds a hop's records: any of its records (it filters them itself). */
export interface CoverageSource {
  recordsOfHop(hop: Uint8Array, window: Window): Iterable<EvidenceRecord>;
}

/** The policy fields the explanation reads. */
export type CoveragePolicy = Pick<PolicyFields, 'pathways' | 'period_us'>;

function sameKey(x: Uint8Array, y: Uint8Array): boolean {
  return compareBytes(x, y) === 0;
}

/** The elementary pieces of [a, b) and how many distinct spans cover each, merged by kind. */
function pieces(spans: readonly Span[], window: Window, keep: (n: number) => boolean): Span[] {
  const { a, b } = window;
  const points = new Set<bigint>([a, b]);
  for (const s of spans) {
    points.add(s.start);
    points.add(s.end);
  }
  const sorted = [...points].filter((p) => p >= a && p <= b).sort((x, y) => (x < y ? -1 : 1));
  const out: Span[] = [];
  for (let i = 0; i + 1 < sorted.length; i++) {
    const start = sorted[i]!;
    const end = sorted[i + 1]!;
    const n = spans.filter((s) => s.start <= start && end <= s.end).length;
    if (!keep(n)) continue;
    const last = out[out.length - 1];
    if (last !== undefined && last.end === start) out[out.length - 1] = { start: last.start, end };
    else out.push({ start, end });
  }
  return out;
}

/**
 * For each pathway of the policy and each of its hops, its coverage of `window` by the records
 * `source` gives for it (records of another hop, and records that do not end after they start,
 * are skipped). Deterministic, whatever the order or duplicates of the source.
 */
export function explainCoverage(
  policy: CoveragePolicy,
  window: Window,
  source: CoverageSource,
): PathwayCoverage[] {
  const { a, b } = window;
  const P = policy.period_us;
  return policy.pathways.map((pathway, index) => {
    const hops = pathway.hops.map((hop, h): HopCoverage => {
      const own: EvidenceRecord[] = [];
      for (const c of source.recordsOfHop(hop.key, window)) {
        if (sameKey(c.record.hop, hop.key) && c.record.end > c.record.start) own.push(c);
      }
      const inside = own.filter((c) => a <= c.record.start && c.record.end <= b);
      // Distinct spans: two records of one span are one choice, not an overlap.
      const byKey = new Map<string, Span>();
      for (const c of inside) {
        byKey.set(`${c.record.start}:${c.record.end}`, {
          start: c.record.start,
          end: c.record.end,
        });
      }
      const spans = [...byKey.values()].sort((x, y) =>
        x.start < y.start ? -1 : x.start > y.start ? 1 : x.end < y.end ? -1 : 1,
      );
      const crossing = own
        .filter(
          (c) =>
            (c.record.start < a && c.record.end > a) || (c.record.start < b && c.record.end > b),
        )
        .map((c) => ({ start: c.record.start, end: c.record.end }));
      return {
        hop: h,
        key: hop.key,
        tiles: a < b && tileHop(inside, window) !== undefined,
        inWindow: inside.length,
        missing: a < b ? pieces(spans, window, (n) => n === 0) : [],
        overlapping: pieces(spans, window, (n) => n > 1),
        crossing,
        offPeriod: P > 0n ? spans.filter((s) => s.start % P !== 0n || s.end % P !== 0n) : [],
      };
    });
    return {
      pathway: index,
      id: pathway.id,
      covered: hops.every((x) => x.tiles),
      hops,
    };
  });
}
