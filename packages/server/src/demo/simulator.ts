/**
 * The demo's hops: each cuts a signed per-hop record (`WMH1`, companion C5) of every period of the
 * room clock, [kP, (k+1)P), and POSTs it to the server's `/records` shortly after the period ends
 * (well within the policy's lag L, §5.1). Its figures follow the demo's power model (`power.ts`):
 * the media bytes a pathway delivers from its audience (a base audience plus the sessions the
 * server steers to it), each hop's share of them, and each hop's energy from its fixed power and
 * its energy per byte sent, with noise; the unmetered hop signs the unmetered marker.
 */
import {
  type HopRecordFields,
  type PolicyFields,
  signHopRecord,
  TRACK_DIRECTION,
  TRACK_KIND,
} from '@wai-steering/wire';
import { nodeBackend } from '@wai-steering/wire/node';
import { BYTES_NOISE, ENERGY_NOISE, hopEnergyUj, OTHER_PER_MEDIA, SESSION_BPS } from './power.js';
import type { DemoHop } from './setup.js';

/** Options of {@link HopSimulator}. */
export interface SimulatorOptions {
  readonly policy: PolicyFields;
  readonly roomId: Uint8Array;
  readonly hops: readonly DemoHop[];
  /** Where to POST (`http://host:port`). */
  readonly base: string;
  /** The room clock, µs. */
  readonly clock: () => bigint;
  /** Sessions steered to each pathway now (the server's loads); none by default. */
  readonly loads?: () => ArrayLike<number>;
  /** Periods of history to cut at start, so that the first window is covered (default W / P). */
  readonly history?: number;
  /** Called after each period is posted, with its refusals (none expected). */
  readonly onPeriod?: (end: bigint, refused: readonly string[]) => void;
  /** Uniform random numbers in [0, 1) for the noise (default `Math.random`). */
  readonly random?: () => number;
}

/** Sessions each pathway serves whatever the server steers to it (other clients, other rooms). */
const BASE_AUDIENCE = [120, 90, 45];
function noise(spread: number, random: () => number = Math.random): number {
  return 1 + (random() * 2 - 1) * spread;
}

/**
 * The sessions a demo pathway serves now: its base audience (other clients, other rooms), ±10 %,
 * plus those the server steers to it first.
 */
export function demoAudience(pathway: number, steered: number): number {
  return Math.max(1, Math.round((BASE_AUDIENCE[pathway] ?? 30) * noise(0.1)) + steered);
}

export class HopSimulator {
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private readonly P: bigint;
  private nextEnd = 0n;
  private inflight: Promise<void> = Promise.resolve();
  /** Records posted, and refused (expected none). */
  posted = 0;
  refused = 0;

  constructor(private readonly o: SimulatorOptions) {
    this.P = o.policy.period_us;
  }

  private noise(spread: number): number {
    return noise(spread, this.o.random);
  }

  /**
   * The media bytes a pathway delivers over `seconds` to `sessions` sessions: their bitrate,
   * with noise (the power model's `BYTES_NOISE`).
   */
  delivered(sessions: number, seconds: number): bigint {
    return BigInt(Math.round(((sessions * SESSION_BPS) / 8) * seconds * this.noise(BYTES_NOISE)));
  }

  /**
   * One record of `hop` for [start, end), its pathway serving `sessions` sessions and delivering
   * `delivered` media bytes (drawn for this hop alone when not given): the hop sends its share of
   * them, and spends by the power model.
   */
  record(
    hop: DemoHop,
    start: bigint,
    end: bigint,
    sessions: number,
    delivered: bigint = this.delivered(sessions, Number(end - start) / 1e6),
  ): Uint8Array {
    const seconds = Number(end - start) / 1e6;
    const part = (share: number): bigint =>
      share === 1 ? delivered : BigInt(Math.round(Number(delivered) * share));
    const bytes = part(hop.share);
    // An edge behind shields receives what they send it (their shares of the same delivery); a
    // shield, what its own cache misses of what it sends.
    const shields = this.o.hops.filter((h) => h.pathway === hop.pathway && h.place === 2);
    const received =
      hop.place === 1 && shields.length > 0
        ? part(shields.reduce((n, h) => n + h.share, 0))
        : bytes / 20n;
    const other = BigInt(Math.floor(Number(bytes) * OTHER_PER_MEDIA));
    const subscriber = new Array<bigint>(8).fill(0n);
    if (hop.place === 1) {
      // Delivery time per layer class: most sessions at the top tier, some lower.
      const us = BigInt(Math.round(sessions * seconds * 1e6));
      subscriber[2] = (us * 7n) / 10n;
      subscriber[1] = (us * 2n) / 10n;
      subscriber[0] = us - subscriber[2]! - subscriber[1]!;
    }
    const joules =
      hop.class === 0
        ? 0n
        : hopEnergyUj(hop, seconds, Number(bytes + other), this.noise(ENERGY_NOISE));
    const fields: HopRecordFields = {
      room: this.o.roomId,
      hop: hop.key.publicKey,
      start,
      end,
      sessions,
      class: hop.class,
      joules,
      subscriber_us: subscriber,
      tracks: [
        // What the hop received from upstream and what it sent on, media and other.
        { track: 1, kind: TRACK_KIND.media, direction: TRACK_DIRECTION.in, bytes: received },
        { track: 1, kind: TRACK_KIND.media, direction: TRACK_DIRECTION.out, bytes },
        { track: 2, kind: TRACK_KIND.other, direction: TRACK_DIRECTION.out, bytes: other },
      ],
    };
    return signHopRecord(fields, hop.key.secretKey, { backend: nodeBackend });
  }

  private audience(pathway: number): number {
    const loads = this.o.loads?.();
    return demoAudience(pathway, loads === undefined ? 0 : (loads[pathway] ?? 0));
  }

  /** Cuts and posts every hop's record of [end − P, end). */
  async period(end: bigint): Promise<void> {
    const start = end - this.P;
    const audience = this.o.policy.pathways.map((_, i) => this.audience(i));
    // Each pathway's delivery is drawn once: its hops send their shares of the same bytes.
    const seconds = Number(this.P) / 1e6;
    const delivered = audience.map((n) => this.delivered(n, seconds));
    const refused: string[] = [];
    await Promise.all(
      this.o.hops.map(async (hop) => {
        const sessions = audience[hop.pathway] ?? 1;
        const bytes = this.record(hop, start, end, sessions, delivered[hop.pathway]);
        try {
          const res = await fetch(`${this.o.base}/records`, {
            method: 'POST',
            headers: { 'content-type': 'application/octet-stream' },
            body: bytes,
          });
          const text = await res.text();
          if (res.status === 200 || res.status === 201) this.posted++;
          else {
            this.refused++;
            refused.push(`${hop.name}: ${res.status} ${text.trim()}`);
          }
        } catch (e) {
          this.refused++;
          refused.push(`${hop.name}: ${(e as Error).message}`);
        }
      }),
    );
    this.o.onPeriod?.(end, refused);
  }

  /** Posts the history, then one period at each period's end (plus 50 ms). */
  async start(): Promise<void> {
    const P = this.P;
    const now = this.o.clock();
    const lastEnd = (now / P) * P;
    const history = this.o.history ?? Number(this.o.policy.window_us / P) + 1;
    for (let k = history - 1; k >= 0; k--) await this.period(lastEnd - BigInt(k) * P);
    this.nextEnd = lastEnd + P;
    this.schedule();
  }

  private schedule(): void {
    if (this.stopped) return;
    const delayMs = Number(this.nextEnd - this.o.clock()) / 1000 + 50;
    this.timer = setTimeout(
      () => {
        const end = this.nextEnd;
        this.nextEnd += this.P;
        this.inflight = this.period(end);
        this.schedule();
      },
      Math.max(0, delayMs),
    );
  }

  /** Stops cutting records; resolves when the last period's posts are done. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    await this.inflight;
  }
}
