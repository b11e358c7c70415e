/**
 * The agent's deliveries: a courier for each steering server (`delivery.ts`), made when the spool
 * opens, each resending first what the spool holds for its server; every record spooled handed to
 * each; and the period's log line, which says where its record went. The line is written once
 * every server has settled the record (taken or refused it), or after min(L, 5 s) when one has
 * not: `sent`, `pending` and `refused` name the servers.
 */
import { Courier, httpTransport, type Transport } from '../delivery.js';
import type { SpooledRecord } from '../spool/record-file.js';
import type { Spool } from '../spool/spool.js';
import { bytesOut, type Traffic } from '../types.js';
import { instantField, type LogSink } from './log.js';
import { sleep } from './period-clock.js';
import type { CutRecord } from './record.js';

/** Options of {@link Deliveries}. */
export interface DeliveriesOptions {
  /** The steering servers' base URLs. */
  readonly servers: readonly string[];
  /** L, µs: a period's line waits for its record's settlement up to min(L, 5 s). */
  readonly lag: bigint;
  /** How records reach a server (default `POST <server>/records` with fetch). */
  readonly transport?: Transport | undefined;
  readonly backoff?: { readonly initialMs: number; readonly maxMs: number } | undefined;
  /** Cut and signed, neither spooled nor sent: the period's line says so. */
  readonly dryRun: boolean;
  readonly log: LogSink;
}

/** The couriers of an agent, and the period lines (see the module's comment). */
export class Deliveries {
  private couriers: Courier[] = [];
  /** The period lines waiting for their records' settlement. */
  private readonly lines = new Set<Promise<void>>();

  constructor(private readonly o: DeliveriesOptions) {}

  /** Makes a courier for each server on the spool, and starts it on what the spool holds. */
  open(spool: Spool): void {
    const transport = this.o.transport ?? httpTransport();
    this.couriers = this.o.servers.map(
      (server) =>
        new Courier({
          server,
          spool,
          transport,
          initialBackoffMs: this.o.backoff?.initialMs ?? 250,
          maxBackoffMs: this.o.backoff?.maxMs ?? 30_000,
          log: this.o.log,
        }),
    );
    for (const c of this.couriers) {
      if (c.pending > 0) {
        this.o.log({ msg: 'resending the spool', server: c.server, records: c.pending });
      }
      c.kick();
    }
  }

  /** The delivery workers, one per server (none before the spool opens, or in a dry run). */
  get servers(): readonly Courier[] {
    return this.couriers;
  }

  /** A record now durably in the spool: to every server. */
  push(rec: SpooledRecord): void {
    for (const c of this.couriers) c.push(rec);
  }

  /** Writes the period's line of a record once it is settled (see the module's comment). */
  logPeriod(rec: CutRecord, traffic: Traffic): void {
    const p = this.writeLine(rec, traffic).finally(() => this.lines.delete(p));
    this.lines.add(p);
  }

  private async writeLine(rec: CutRecord, traffic: Traffic): Promise<void> {
    if (this.couriers.length > 0) {
      await Promise.race([
        Promise.all(this.couriers.map((c) => c.settled(rec.name))),
        sleep(Math.min(Number(this.o.lag) / 1000, 5000)),
      ]);
    }
    const by = (o: string) =>
      this.couriers.filter((c) => c.outcome(rec.name) === o).map((c) => c.server);
    this.o.log({
      msg: 'period',
      ...instantField('start', rec.span.start),
      ...instantField('end', rec.span.end),
      class: rec.fields.class,
      joules_uj: String(rec.fields.joules),
      bytes: String(bytesOut(traffic)),
      sessions: traffic.sessions,
      digest: rec.digest,
      ...(rec.unmetered === undefined ? {} : { unmetered: rec.unmetered }),
      ...(rec.trafficUnknown === undefined ? {} : { traffic_unknown: rec.trafficUnknown }),
      sent: by('taken'),
      pending: by('pending'),
      refused: by('refused'),
      ...(this.o.dryRun ? { dryRun: true } : {}),
    });
  }

  /** Records each server has yet to take, by server. */
  pending(): Record<string, number> {
    const pending: Record<string, number> = {};
    for (const c of this.couriers) pending[c.server] = c.pending;
    return pending;
  }

  /** Resolves when every server has taken every record spooled so far (or `timeoutMs` passed). */
  async delivered(timeoutMs: number): Promise<boolean> {
    const until = Date.now() + timeoutMs;
    while (this.couriers.some((c) => c.pending > 0)) {
      if (Date.now() > until) return false;
      await sleep(20);
    }
    return true;
  }

  /** Stops the couriers (their requests in flight end), then writes the lines still waiting. */
  async stop(): Promise<void> {
    await Promise.all(this.couriers.map((c) => c.stop()));
    await Promise.all([...this.lines]);
  }
}
