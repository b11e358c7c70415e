/**
 * The hops' consistency (§12, a report, not a failure): a hop's figure is its own statement, and
 * an upstream hop's record contradicts a downstream one's. Per pathway and span [start, end) of
 * the records, an interior hop's media bytes out against its edge hops' media bytes in: the same
 * bytes counted at both ends, which agree unless a hop misstates them. Their edge hops' media
 * bytes out (what the pathway delivered) are said beside them for scale: an edge serves most of
 * what it delivers from its cache, so both are a small part of it.
 */
import {
  type HopRecord,
  type Policy,
  readHopRecord,
  TRACK_DIRECTION,
  TRACK_KIND,
  toHex,
} from '@wai-steering/wire';

/** One pathway's span. */
export interface HopSpanResult {
  readonly pathway: string;
  readonly start: string;
  readonly end: string;
  /** Media bytes out, summed over the pathway's interior hops' records of the span (decimal). */
  readonly interior_out: string;
  /** Media bytes in, summed over its edge hops' records of the span (decimal). */
  readonly edge_in: string;
  /** Media bytes out, summed over its edge hops' records of the span: delivered (decimal). */
  readonly edge_out: string;
  readonly interior_records: number;
  readonly edge_records: number;
}

function mediaBytes(r: HopRecord, direction: number): bigint {
  let n = 0n;
  for (const t of r.tracks) {
    if (t.kind === TRACK_KIND.media && t.direction === direction) n += t.bytes;
  }
  return n;
}

interface Span {
  pathway: string;
  start: bigint;
  end: bigint;
  interiorOut: bigint;
  edgeIn: bigint;
  edgeOut: bigint;
  interior: number;
  edge: number;
}

export class HopReport {
  /** Hop key (hex) → its pathway's id and place, over every policy of the archive. */
  private readonly hops = new Map<string, { pathway: string; place: number }>();
  private readonly interior = new Set<string>();
  private readonly spans = new Map<string, Span>();

  constructor(policies: readonly Policy[]) {
    for (const p of policies) {
      for (const pw of p.pathways) {
        for (const h of pw.hops) {
          this.hops.set(toHex(h.key), { pathway: pw.id, place: h.place });
          if (h.place === 2) this.interior.add(pw.id);
        }
      }
    }
  }

  add(bytes: Uint8Array): void {
    const read = readHopRecord(bytes);
    if (!read.ok) return;
    const r = read.value;
    const hop = this.hops.get(toHex(r.hop));
    if (hop === undefined || !this.interior.has(hop.pathway)) return;
    const key = `${hop.pathway}\u0000${r.start}\u0000${r.end}`;
    let s = this.spans.get(key);
    if (s === undefined) {
      s = {
        pathway: hop.pathway,
        start: r.start,
        end: r.end,
        interiorOut: 0n,
        edgeIn: 0n,
        edgeOut: 0n,
        interior: 0,
        edge: 0,
      };
      this.spans.set(key, s);
    }
    if (hop.place === 2) {
      s.interiorOut += mediaBytes(r, TRACK_DIRECTION.out);
      s.interior++;
    } else {
      s.edgeIn += mediaBytes(r, TRACK_DIRECTION.in);
      s.edgeOut += mediaBytes(r, TRACK_DIRECTION.out);
      s.edge++;
    }
  }

  results(): HopSpanResult[] {
    return [...this.spans.values()]
      .sort((a, b) =>
        a.pathway !== b.pathway
          ? a.pathway < b.pathway
            ? -1
            : 1
          : a.start < b.start
            ? -1
            : a.start > b.start
              ? 1
              : 0,
      )
      .map((s) => ({
        pathway: s.pathway,
        start: s.start.toString(),
        end: s.end.toString(),
        interior_out: s.interiorOut.toString(),
        edge_in: s.edgeIn.toString(),
        edge_out: s.edgeOut.toString(),
        interior_records: s.interior,
        edge_records: s.edge,
      }));
  }
}
