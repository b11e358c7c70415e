/**
 * Traffic from Prometheus counters of bytes, where no per-request log is at hand (an exporter
 * of a proxy or of the network interface). Per-tier detail is not available, so a record then
 * states one track entry (the configured track, direction out) with the counter's increase
 * between the period's two boundaries, `subscriber_us` all zero, and `sessions` from an optional
 * gauge read at the period's end (0 without one). A period without a reading at both
 * boundaries (the agent started within it, the exporter could not be scraped) has no traffic the
 * source can state: it is signed with the unmetered marker, and states no track.
 */
import { TRACK_DIRECTION } from '@wai-steering/wire';
import { floorScaled, parseDecimal } from '../internal/decimal.js';
import { seriesKey } from '../internal/exposition.js';
import { type Selector, scrape } from '../internal/scrape.js';
import { SourceError, type Span, type Traffic } from '../types.js';
import type { TrafficSource } from './source.js';

/** Options of {@link prometheusTrafficSource}. */
export interface PrometheusTrafficOptions {
  readonly url: string;
  /** The counter of bytes sent. */
  readonly bytes: Selector;
  /** A gauge of the sessions (clients) now. */
  readonly sessions?: Selector;
  readonly track: number;
  /** C5.1 kind: 1 media, 2 other. */
  readonly kind: 1 | 2;
  readonly timeoutMs?: number;
}

async function readSum(url: string, s: Selector, timeoutMs?: number): Promise<Map<string, bigint>> {
  const out = new Map<string, bigint>();
  for (const sample of await scrape(url, s, timeoutMs)) {
    const d = parseDecimal(sample.value);
    if (typeof d === 'string') throw new SourceError(`${url} ${seriesKey(sample)}: ${d}`);
    out.set(seriesKey(sample), floorScaled(d, 0));
  }
  return out;
}

/** The most boundaries' readings kept for periods not yet committed. */
const MARKS_KEPT = 10_002;

/** A Prometheus traffic source. */
export function prometheusTrafficSource(o: PrometheusTrafficOptions): TrafficSource {
  const marks = new Map<bigint, { bytes: Map<string, bigint>; sessions: number }>();
  /** Boundaries whose reading failed, and why. */
  const failed = new Map<bigint, string>();
  return {
    describe: `prometheus ${o.url} ${o.bytes.metric}`,
    async start() {},
    async mark(at) {
      try {
        const bytes = await readSum(o.url, o.bytes, o.timeoutMs);
        let sessions = 0;
        if (o.sessions !== undefined) {
          for (const v of (await readSum(o.url, o.sessions, o.timeoutMs)).values()) {
            sessions += Number(v);
          }
        }
        marks.set(at, { bytes, sessions });
        failed.delete(at);
      } catch (e) {
        marks.delete(at);
        failed.set(at, (e as Error).message);
      }
      // Kept until the periods they bound are committed; bounded all the same.
      while (marks.size > MARKS_KEPT) marks.delete(marks.keys().next().value!);
      while (failed.size > MARKS_KEPT) failed.delete(failed.keys().next().value!);
    },
    async take(span: Span): Promise<Traffic | undefined> {
      const a = marks.get(span.start);
      const b = marks.get(span.end);
      const why = failed.get(span.start) ?? failed.get(span.end);
      if (why !== undefined) throw new SourceError(why);
      if (a === undefined || b === undefined) return undefined;
      let bytes = 0n;
      for (const [k, v] of b.bytes) {
        const p = a.bytes.get(k);
        if (p === undefined) {
          throw new SourceError(
            `${o.url}: the series of ${o.bytes.metric} changed within the period`,
          );
        }
        bytes += v >= p ? v - p : v; // a counter that went down was reset
      }
      return {
        sessions: Math.min(b.sessions, 0xffff_ffff),
        subscriber_us: new Array<bigint>(8).fill(0n),
        tracks: [{ track: o.track, kind: o.kind, direction: TRACK_DIRECTION.out, bytes }],
      };
    },
    commit(span: Span) {
      for (const k of [...marks.keys()]) if (k <= span.start) marks.delete(k);
      for (const k of [...failed.keys()]) if (k <= span.start) failed.delete(k);
    },
    async close() {},
  };
}
