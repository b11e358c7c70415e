import type { Span, Traffic } from '../types.js';

/**
 * A hop's traffic. The agent calls `start` once, `mark` at each period boundary (a counter
 * reads there), then `take` for each period once it is over, and `commit` once the period's
 * record is durably in the spool. Until then the period's traffic is not consumed: a record that
 * could not be spooled is cut again later, and `take` gives the same traffic again (a line
 * logged after its period was taken joins the next period).
 */
export interface TrafficSource {
  /** What it reads, for logs and errors. */
  readonly describe: string;
  /**
   * Begins counting what is delivered from `from` on (room clock µs), in periods of `period`
   * from `from`. A source that keeps history (a log) counts what it holds from `from`.
   */
  start(from: bigint, period: bigint): Promise<void>;
  /** A period boundary has been reached (room clock µs). */
  mark?(at: bigint): Promise<void>;
  /**
   * The traffic of a period, or `undefined` when the source has no reading that covers it (the
   * period began before it could read); a `SourceError` when what it read of the period is
   * incomplete (a log lost, a counter unreadable), naming why. The period is then signed with
   * the unmetered marker, and states no traffic.
   */
  take(span: Span): Promise<Traffic | undefined>;
  /** The record of `span` is durably in the spool: its traffic is given no more. */
  commit?(span: Span): void;
  close(): Promise<void>;
}

/** No traffic source: every record states no session and no track. */
export function noTraffic(): TrafficSource {
  return {
    describe: 'none',
    async start() {},
    async take() {
      return { sessions: 0, subscriber_us: new Array<bigint>(8).fill(0n), tracks: [] };
    },
    async close() {},
  };
}
