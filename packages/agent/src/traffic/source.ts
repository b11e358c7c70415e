import type { Span, Traffic } from '../types.js';

/**
 * A hop's traffic. The agent calls `start` once, `mark` at each period boundary (a counter
 * reads there), then `take` for each period once it is over: the period's traffic, which is not
 * given again.
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
  /** The traffic of a period, or `undefined` when the source cannot state it. */
  take(span: Span): Promise<Traffic | undefined>;
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
