/**
 * A set of simulated hops, each a {@link HopAgent} with a {@link SimulatedSource}: what a demo
 * runs in place of real hops, through the agent's code path (periods, signing, spool, delivery).
 * Each hop's audience is given by the caller (the sessions its pathway serves now).
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { RoomContext } from '@wai-steering/verifier';
import { HopAgent } from './agent/agent.js';
import type { Transport } from './delivery.js';
import type { HopKey } from './keys.js';
import { SimulatedSource } from './simulated.js';
import type { Span } from './types.js';

/** A session's mean bitrate, bits per second (the simulated source's default). */
const SESSION_BPS = 4_200_000;
/** How many periods' draws a pathway keeps. */
const KEEP_DRAWS = 64;

/** A simulated hop: its key, pathway, place and how it is simulated. */
export interface SimulatedHopSpec {
  readonly name: string;
  readonly key: HopKey;
  readonly pathway: number;
  /** §3.2: 1 edge, 2 interior. */
  readonly place: 1 | 2;
  /** C5.2 class tag; 0 for an unmetered hop. */
  readonly class: number;
  readonly nanojoulesPerByte: number;
  readonly idleWatts: number;
  /** Its media bytes as a share of its pathway's sessions' (default 1: an edge hop). */
  readonly share?: number;
}

/** Options of {@link SimulatedHops}. */
export interface SimulatedHopsOptions {
  /** The room (opened: each key is checked against the key log), or its id. */
  readonly room: RoomContext | Uint8Array;
  /** P and L, µs (the policy's). */
  readonly period: bigint;
  readonly lag?: bigint;
  readonly hops: readonly SimulatedHopSpec[];
  /** The steering servers' base URLs. */
  readonly servers: readonly string[];
  /** A directory for the hops' spools (`<dir>/<name>`), emptied at start: a fresh run. */
  readonly spoolDir: string;
  /** The sessions the pathway serves now. */
  readonly audience: (pathway: number) => number;
  readonly clock?: () => bigint;
  /** Periods before the current one to cut at start (so that a first window is covered). */
  readonly history?: number;
  readonly transport?: Transport;
  readonly log?: (line: Record<string, unknown>) => void;
  /**
   * Called once each period's records of every hop are settled, or their lag passed: the hops
   * and servers that refused a record, and those that had not yet taken it (it is retried).
   */
  readonly onPeriod?: (end: bigint, refused: readonly string[], pending: readonly string[]) => void;
}

/** Simulated hops as agents. */
export class SimulatedHops {
  readonly agents: readonly HopAgent[];
  private readonly periods = new Map<
    bigint,
    { left: number; refused: string[]; pending: string[] }
  >();

  /** Each pathway's delivery by period start, drawn once for all its hops. */
  private readonly deliveries = new Map<number, Map<bigint, bigint>>();

  /**
   * The media bytes pathway `pathway` delivers over `span`: its audience's bitrate, with noise
   * (5 %), drawn at the first of its hops to ask and kept for the others.
   */
  private delivered(pathway: number, span: Span): bigint {
    let byStart = this.deliveries.get(pathway);
    if (byStart === undefined) {
      byStart = new Map();
      this.deliveries.set(pathway, byStart);
    }
    const held = byStart.get(span.start);
    if (held !== undefined) return held;
    const sessions = Math.max(0, Math.round(this.o.audience(pathway)));
    const seconds = Number(span.end - span.start) / 1e6;
    const bytes = BigInt(
      Math.round(((sessions * SESSION_BPS) / 8) * seconds * (1 + (Math.random() * 2 - 1) * 0.05)),
    );
    byStart.set(span.start, bytes);
    // A period's draw is kept while its hops may still ask (they cut it at once, or retry).
    for (const start of byStart.keys()) {
      if (byStart.size <= KEEP_DRAWS) break;
      byStart.delete(start);
    }
    return bytes;
  }

  constructor(private readonly o: SimulatedHopsOptions) {
    this.agents = o.hops.map((hop) => {
      // An edge behind shields receives what they send it (their shares of the delivery).
      const shields = o.hops.filter((h) => h.pathway === hop.pathway && h.place === 2);
      const inShare =
        hop.place === 1 && shields.length > 0
          ? shields.reduce((n, h) => n + (h.share ?? 1), 0)
          : undefined;
      const sim = new SimulatedSource({
        class: hop.class,
        place: hop.place,
        nanojoulesPerByte: hop.nanojoulesPerByte,
        idleWatts: hop.idleWatts,
        ...(hop.share === undefined ? {} : { share: hop.share }),
        ...(inShare === undefined ? {} : { inShare }),
        sessions: () => o.audience(hop.pathway),
        delivered: (span) => this.delivered(hop.pathway, span),
      });
      return new HopAgent({
        room: o.room,
        key: hop.key,
        period: o.period,
        ...(o.lag === undefined ? {} : { lag: o.lag }),
        energy: sim.energy,
        traffic: sim,
        servers: o.servers,
        spool: join(o.spoolDir, hop.name),
        ...(o.clock === undefined ? {} : { clock: o.clock }),
        ...(o.transport === undefined ? {} : { transport: o.transport }),
        history: o.history ?? 0,
        log: (line) => {
          o.log?.({ hop: hop.name, ...line });
          if (line.msg === 'period') this.settled(hop.name, line);
        },
      });
    });
  }

  private settled(name: string, line: Record<string, unknown>): void {
    const end = BigInt(String(line.end_us));
    const p = this.periods.get(end) ?? { left: this.agents.length, refused: [], pending: [] };
    for (const s of (line.refused as string[] | undefined) ?? []) p.refused.push(`${name}: ${s}`);
    for (const s of (line.pending as string[] | undefined) ?? []) p.pending.push(`${name}: ${s}`);
    p.left--;
    if (p.left > 0) this.periods.set(end, p);
    else {
      this.periods.delete(end);
      this.o.onPeriod?.(end, p.refused, p.pending);
    }
  }

  /** Records every server took, over every hop. */
  get posted(): number {
    return this.agents.reduce((n, a) => n + a.servers.reduce((m, c) => m + c.sent, 0), 0);
  }

  /** Records a server refused, over every hop (none expected). */
  get refused(): number {
    return this.agents.reduce((n, a) => n + a.servers.reduce((m, c) => m + c.refused, 0), 0);
  }

  /** Empties the spools, starts every hop (the history cut and sent first). */
  async start(): Promise<void> {
    rmSync(this.o.spoolDir, { recursive: true, force: true });
    for (const a of this.agents) await a.start();
  }

  async stop(): Promise<void> {
    await Promise.all(this.agents.map((a) => a.stop()));
  }
}
