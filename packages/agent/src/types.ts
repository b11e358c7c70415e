import type { TrackEntry } from '@wai-steering/wire';

/** A span of the room clock, [start, end), in microseconds since the epoch (companion C3). */
export interface Span {
  readonly start: bigint;
  readonly end: bigint;
}

/** What a hop delivered over a span: the traffic fields of a `WMH1` (companion C5.1). */
export interface Traffic {
  /** The sessions served in the span (distinct clients). */
  readonly sessions: number;
  /** Eight u64: microseconds of delivery for each layer class (tier) 0 to 7. */
  readonly subscriber_us: readonly bigint[];
  /** The track entries, in ascending order of track then direction. */
  readonly tracks: readonly TrackEntry[];
}

/** A traffic of nothing: no session, no byte. */
export function emptyTraffic(): Traffic {
  return { sessions: 0, subscriber_us: new Array<bigint>(8).fill(0n), tracks: [] };
}

/** The bytes a traffic sent out (direction 2), every track. */
export function bytesOut(t: Traffic): bigint {
  let n = 0n;
  for (const e of t.tracks) if (e.direction === 2) n += e.bytes;
  return n;
}

/** A source could not be read: one line naming it and why (an unreadable file, a scrape). */
export class SourceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SourceError';
  }
}

/**
 * A configuration or key check the agent refuses to start with: one line naming what to fix;
 * `issues`, each problem on its own (a config that breaks several rules names them all).
 */
export class AgentConfigError extends Error {
  readonly issues: readonly string[];
  constructor(message: string, issues?: readonly string[]) {
    super(message);
    this.name = 'AgentConfigError';
    this.issues = issues ?? [message];
  }
}
