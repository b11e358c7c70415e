/**
 * A simulated hop, for the demo and tests: its traffic from an audience (sessions × a mean
 * bitrate, with some noise), its energy from a per-byte cost and an idle draw (with some noise),
 * stated as the class it is given (0: the unmetered marker). It is both the energy source and
 * the traffic source of a {@link HopAgent}, so a simulated hop runs the agent's code path:
 * periods, signing, spool, delivery.
 */
import { TRACK_DIRECTION, TRACK_KIND } from '@wai-steering/wire';
import type { SpanEnergySource, UnmeteredSource } from './energy/source.js';
import type { TrafficSource } from './traffic/source.js';
import { bytesOut, type Span, type Traffic } from './types.js';

/** Options of {@link SimulatedSource}. */
export interface SimulatedOptions {
  /** The class tag to state (companion C5.2); 0 for an unmetered hop. */
  readonly class: number;
  /** §3.2 place: 1 edge (states `subscriber_us`), 2 interior. */
  readonly place: 1 | 2;
  /** Energy per delivered byte, nanojoules (before noise). */
  readonly nanojoulesPerByte: number;
  /** Fixed power, watts. */
  readonly idleWatts: number;
  /** The sessions served now. */
  readonly sessions: () => number;
  /** Mean bitrate of a session, bits per second (default 4 200 000). */
  readonly sessionBps?: number;
  /**
   * The hop's media bytes as a share of its sessions' (default 1: an edge hop sends them all; a
   * shield sends its edges what their caches miss, 0.05 in the demo).
   */
  readonly share?: number;
  /**
   * The media bytes its pathway delivers over a span, drawn once for all the pathway's hops, so
   * that what a shield sends and what its edges receive are the same bytes (default: drawn by
   * this hop alone, from its sessions).
   */
  readonly delivered?: (span: Span) => bigint;
  /**
   * The media bytes it receives from upstream, as a share of its pathway's delivery (default
   * `share` / 20: its own cache misses). An edge behind a shield receives what the shield sends
   * it: the shield's share.
   */
  readonly inShare?: number;
  /** Relative spread of the noise (default 0.05 on bytes, 0.03 on energy); 0 for none. */
  readonly noise?: number;
  /** Uniform random numbers in [0, 1) (default `Math.random`). */
  readonly random?: () => number;
}

/** A simulated energy and traffic source. */
export class SimulatedSource implements TrafficSource {
  readonly describe: string;
  readonly energy: SpanEnergySource | UnmeteredSource;

  constructor(private readonly o: SimulatedOptions) {
    this.describe = `simulated (class ${o.class})`;
    const spread = o.noise ?? 1;
    const rnd = o.random ?? Math.random;
    const noise = (s: number) => 1 + (rnd() * 2 - 1) * s * spread;
    this.noise = noise;
    this.energy =
      o.class === 0
        ? { kind: 'none', class: 0, describe: this.describe }
        : {
            kind: 'span',
            class: o.class,
            describe: this.describe,
            energy: (span: Span, traffic: Traffic) => {
              const seconds = Number(span.end - span.start) / 1e6;
              const uj =
                (Number(bytesOut(traffic)) * o.nanojoulesPerByte * 1e-3 +
                  o.idleWatts * seconds * 1e6) *
                noise(0.03);
              return BigInt(Math.max(1, Math.round(uj)));
            },
          };
  }

  private readonly noise: (s: number) => number;

  async start(): Promise<void> {}

  /** Traffic given for periods not yet committed: the same again if asked again. */
  private readonly given = new Map<bigint, Traffic>();

  async take(span: Span): Promise<Traffic> {
    const again = this.given.get(span.start);
    if (again !== undefined) return again;
    const t = this.draw(span);
    this.given.set(span.start, t);
    return t;
  }

  commit(span: Span): void {
    this.given.delete(span.start);
  }

  private draw(span: Span): Traffic {
    const sessions = Math.max(0, Math.round(this.o.sessions()));
    const seconds = Number(span.end - span.start) / 1e6;
    const bps = this.o.sessionBps ?? 4_200_000;
    const share = this.o.share ?? 1;
    const delivered =
      this.o.delivered?.(span) ??
      BigInt(Math.round(((sessions * bps) / 8) * seconds * this.noise(0.05)));
    const part = (s: number): bigint =>
      s === 1 ? delivered : BigInt(Math.round(Number(delivered) * s));
    const bytes = part(share);
    const received = this.o.inShare === undefined ? bytes / 20n : part(this.o.inShare);
    const subscriber = new Array<bigint>(8).fill(0n);
    if (this.o.place === 1) {
      // Delivery time per layer class: most sessions at the top tier, some lower.
      const us = BigInt(Math.round(sessions * seconds * 1e6));
      subscriber[2] = (us * 7n) / 10n;
      subscriber[1] = (us * 2n) / 10n;
      subscriber[0] = us - subscriber[2]! - subscriber[1]!;
    }
    return {
      sessions,
      subscriber_us: subscriber,
      tracks: [
        // What the hop received from upstream and what it sent on, media and other.
        { track: 1, kind: TRACK_KIND.media, direction: TRACK_DIRECTION.in, bytes: received },
        { track: 1, kind: TRACK_KIND.media, direction: TRACK_DIRECTION.out, bytes },
        { track: 2, kind: TRACK_KIND.other, direction: TRACK_DIRECTION.out, bytes: bytes / 200n },
      ],
    };
  }

  async close(): Promise<void> {}
}
