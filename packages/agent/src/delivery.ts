/**
 * Delivery: each steering server has a worker that sends the spool's records it has yet to take,
 * in the order of periods, one at a time, retrying with backoff until the server takes it (`201`
 * new, `200` already held: records are idempotent by digest) or refuses it (a `4xx` with a
 * reason, which is logged once and moves the record to `refused/`). A server that is down, or
 * answers `5xx` or `429`, is retried; a later record is never sent before an earlier one is taken.
 */
import { readStrictJson } from '@wai-steering/config-text';
import { causeOf } from './internal/cause.js';
import { SpoolWriteError } from './spool/directories.js';
import type { SpooledRecord } from './spool/record-file.js';
import type { Spool } from './spool/spool.js';

/** What a server answered. */
export interface PostResult {
  readonly status: number;
  readonly body: string;
}

/** How records reach a server: `POST <server>/records` by default. */
export type Transport = (server: string, bytes: Uint8Array) => Promise<PostResult>;

/** The default transport: `fetch`, bounded in time. */
export function httpTransport(timeoutMs = 10_000): Transport {
  return async (server, bytes) => {
    const res = await fetch(`${server.replace(/\/+$/, '')}/records`, {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream' },
      body: bytes,
      signal: AbortSignal.timeout(timeoutMs),
    });
    return { status: res.status, body: await res.text() };
  };
}

/** Options of a {@link Courier}. */
export interface CourierOptions {
  readonly server: string;
  readonly spool: Spool;
  readonly transport: Transport;
  readonly initialBackoffMs: number;
  readonly maxBackoffMs: number;
  readonly log: (line: Record<string, unknown>) => void;
  /** Called when the server took a record (`201` or `200`). */
  readonly onTaken?: (rec: SpooledRecord, status: number) => void;
}

/** The delivery worker of one server. */
export class Courier {
  private queue: SpooledRecord[] = [];
  private running: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  private stopped = false;
  private backoff: number;
  private failing = false;
  private markFailing = false;
  sent = 0;
  refused = 0;
  errors = 0;
  /** When the last record was taken, ms since the epoch. */
  lastTakenMs: number | undefined;
  /** What became of the records lately settled, by name. */
  private readonly outcomes = new Map<string, 'taken' | 'refused'>();
  private readonly waiters = new Map<string, Array<() => void>>();

  constructor(private readonly o: CourierOptions) {
    this.backoff = o.initialBackoffMs;
    this.queue = o.spool.pending(o.server);
  }

  get server(): string {
    return this.o.server;
  }

  /** Records this server has yet to take. */
  get pending(): number {
    return this.queue.length;
  }

  /** A new record to send (after those queued). */
  push(rec: SpooledRecord): void {
    this.queue.push(rec);
    this.kick();
  }

  /** What became of a record: taken, refused, or still pending. */
  outcome(name: string): 'taken' | 'refused' | 'pending' {
    return this.outcomes.get(name) ?? 'pending';
  }

  /** Resolves when a record is settled (taken or refused). */
  settled(name: string): Promise<void> {
    if (this.outcomes.has(name)) return Promise.resolve();
    return new Promise((resolve) => {
      const list = this.waiters.get(name) ?? [];
      list.push(resolve);
      this.waiters.set(name, list);
    });
  }

  private settle(name: string, outcome: 'taken' | 'refused'): void {
    this.outcomes.set(name, outcome);
    if (this.outcomes.size > 1000) {
      const first = this.outcomes.keys().next().value;
      if (first !== undefined) this.outcomes.delete(first);
    }
    for (const w of this.waiters.get(name) ?? []) w();
    this.waiters.delete(name);
  }

  /** Starts (or wakes) the worker. */
  kick(): void {
    if (this.stopped) return;
    if (this.wake !== undefined) {
      const w = this.wake;
      this.wake = undefined;
      w();
      return;
    }
    if (this.running === undefined) {
      this.running = this.loop().finally(() => {
        this.running = undefined;
        // A record pushed as the loop ended (its last `kick` found it still running) is sent
        // now, not at the next push.
        if (!this.stopped && this.queue.length > 0) this.kick();
      });
    }
  }

  /** Sends the first queued record once; whether it is settled (taken or refused). */
  async attempt(): Promise<boolean> {
    const rec = this.queue[0];
    if (rec === undefined) return true;
    let res: PostResult;
    try {
      res = await this.o.transport(this.o.server, rec.bytes);
    } catch (e) {
      const cause = causeOf(e);
      return this.retry(rec, `unreachable: ${cause}`);
    }
    if (res.status === 200 || res.status === 201) {
      this.keep(() => this.o.spool.markTaken(this.o.server, rec.name));
      this.queue.shift();
      this.sent++;
      this.lastTakenMs = Date.now();
      this.backoff = this.o.initialBackoffMs;
      if (this.failing) {
        this.failing = false;
        this.o.log({ level: 'info', msg: 'server back', server: this.o.server });
      }
      this.settle(rec.name, 'taken');
      this.o.onTaken?.(rec, res.status);
      return true;
    }
    if (res.status >= 400 && res.status < 500 && res.status !== 408 && res.status !== 429) {
      const reason = reasonOf(res);
      this.keep(() => this.o.spool.markRefused(this.o.server, rec.name, rec.bytes, reason));
      this.queue.shift();
      this.refused++;
      this.settle(rec.name, 'refused');
      this.o.log({
        level: 'error',
        msg: 'record refused',
        server: this.o.server,
        record: rec.name,
        status: res.status,
        reason,
      });
      return true;
    }
    return this.retry(rec, `HTTP ${res.status} ${res.body.trim().slice(0, 200)}`);
  }

  /**
   * Records an outcome in the spool. A spool that cannot be written loses only the mark: the
   * record stays in `records/` and is sent again at a restart, which a server takes as already
   * held (or refuses again). Said once until the spool takes a mark again.
   */
  private keep(mark: () => void): void {
    try {
      mark();
      this.markFailing = false;
    } catch (e) {
      if (!(e instanceof SpoolWriteError)) throw e;
      if (!this.markFailing) {
        this.o.log({
          level: 'error',
          msg: "spool not writable: a server's answer is not kept (the record is sent again at a restart)",
          server: this.o.server,
          error: e.message,
        });
      }
      this.markFailing = true;
    }
  }

  private retry(rec: SpooledRecord, why: string): false {
    this.errors++;
    if (!this.failing) {
      this.failing = true;
      this.o.log({
        level: 'warn',
        msg: 'server not taking records; retrying with backoff',
        server: this.o.server,
        record: rec.name,
        error: why,
      });
    }
    return false;
  }

  private async loop(): Promise<void> {
    while (!this.stopped && this.queue.length > 0) {
      const settled = await this.attempt();
      if (settled || this.stopped) continue;
      const delay = this.backoff;
      this.backoff = Math.min(this.o.maxBackoffMs, this.backoff * 2);
      await new Promise<void>((resolve) => {
        const t = setTimeout(() => {
          this.wake = undefined;
          resolve();
        }, delay);
        this.wake = () => {
          clearTimeout(t);
          resolve();
        };
      });
    }
  }

  /** Stops the worker after its request in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.running;
  }
}

function reasonOf(res: PostResult): string {
  const read = readStrictJson(res.body);
  const j = (read.ok ? read.value : undefined) as { reason?: unknown; where?: unknown } | undefined;
  if (j !== null && typeof j === 'object' && typeof j.reason === 'string') {
    return j.where === undefined ? j.reason : `${j.reason} ${JSON.stringify(j.where)}`;
  }
  return `HTTP ${res.status} ${res.body.trim().slice(0, 200)}`;
}
