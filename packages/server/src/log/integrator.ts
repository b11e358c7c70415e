/**
 * The decision log's integrator: every `log.interval`, in one instance of the deployment at a
 * time, the decisions committed since its last run are appended to the log and a checkpoint is
 * signed (`docs/server.md`, *The decision log*).
 *
 * - **One at a time.** The instance holding the lease (a row of the store, taken when it has
 *   expired, renewed at each run, given up on a clean stop) integrates; the others try at each
 *   interval and take it over once a dead holder's lease expires (3 intervals and a second; on
 *   SQLite at once when the holder was a process of this machine that has exited).
 *   The store's integration locks the log's head, so two integrators never both write: the lease
 *   only spares the others' work.
 * - **All or nothing.** One integration is one transaction of the store (`integrateLog`): a
 *   kill at any point leaves every entry, tile, checkpoint and pending row as before, or all of
 *   the new ones.
 * - **The delay.** A checkpoint is signed at the end of each run that appended (or when none is
 *   of the head's size), stamped with the time the run began reading: every decision committed
 *   `log.max_delay` or more before that is in it (the store says when it cannot be, and then no
 *   checkpoint is signed until it is).
 */
import { describeError, type Health } from '../health.js';
import type { Metrics } from '../metrics.js';
import type { LogWrites, StoredCheckpoint } from '../store/store.js';
import { type LogSigning, planIntegration, type WriterMemo } from './plan.js';

export interface IntegratorOptions {
  readonly store: LogWrites;
  readonly signing: LogSigning;
  /** `log.interval`, ms. */
  readonly intervalMs: number;
  /** `log.max_delay`, ms. */
  readonly maxDelayMs: number;
  /** The room clock, µs since the epoch (a checkpoint's `issued`). */
  readonly clock: () => bigint;
  /** This instance's name in the lease (unique per process). */
  readonly holder: string;
  /** How long a lease lasts without renewal, ms; 3 intervals and a second by default. */
  readonly leaseMs?: number;
  /**
   * Entries appended per transaction at most (a backlog takes several, a turn of the event loop
   * apart; the checkpoint is signed by the last); default 100,000.
   */
  readonly maxEntries?: number;
  readonly health?: Health;
  readonly metrics?: Metrics;
  /** Each checkpoint signed here (the witnesses are sent it). */
  readonly onCheckpoint?: (checkpoint: StoredCheckpoint) => void;
}

export class LogIntegrator {
  /** Whether this instance held the lease at its latest run. */
  holding = false;
  /** Runs done, entries appended, checkpoints signed, runs that failed, by this instance. */
  runs = 0;
  appended = 0;
  checkpoints = 0;
  failures = 0;
  /** The latest checkpoint this instance signed. */
  latest: StoredCheckpoint | undefined;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<number> | undefined;
  private stopped = false;
  private readonly leaseMs: number;
  /** The writer's state after this instance's latest plan (`plan.ts`). */
  private readonly memo: WriterMemo = {};

  constructor(private readonly o: IntegratorOptions) {
    this.leaseMs = o.leaseMs ?? 3 * o.intervalMs + 1000;
  }

  /** Runs every `log.interval` from now (a run still going when the next is due is not doubled). */
  start(): void {
    if (this.timer !== undefined || this.stopped) return;
    this.timer = setInterval(() => {
      void this.run();
    }, this.o.intervalMs);
    this.timer.unref();
    void this.run();
  }

  /**
   * One run now (or the one under way): the lease, then integrations until nothing pending is
   * left past a batch's limit. The entries it appended; a failure raises the `log` cause of
   * health (logged once) and is tried again at the next run.
   */
  run(): Promise<number> {
    if (this.stopped) return Promise.resolve(0);
    this.running ??= this.once().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async once(): Promise<number> {
    const { store, health } = this.o;
    try {
      this.holding = await store.takeLogLease(this.o.holder, this.leaseMs);
      if (!this.holding) return 0;
      let total = 0;
      for (;;) {
        // Before the store reads what is pending: every commit before it is read.
        const issued = this.o.clock();
        const done = await store.integrateLog(
          (input) => planIntegration(input, this.o.signing, issued, this.memo),
          { maxEntries: this.o.maxEntries ?? 100_000, maxDelayMs: this.o.maxDelayMs },
        );
        if (done === undefined) break;
        total += done.appended;
        this.appended += done.appended;
        if (done.checkpoint !== undefined) {
          this.checkpoints++;
          this.latest = done.checkpoint;
          this.o.onCheckpoint?.(done.checkpoint);
        }
        if (!done.more || this.stopped) break;
        // A turn of the event loop between transactions: an embedded store integrates on it, a
        // slice at a time (`maxEntries`), and requests are answered between the slices.
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
      health?.clear('log');
      return total;
    } catch (e) {
      this.failures++;
      this.o.metrics?.storeErrors.inc({ op: 'log' });
      health?.fail('log', `the decision log's integration fails: ${describeError(e)}`);
      return 0;
    } finally {
      this.runs++;
    }
  }

  /**
   * Stops the runs; the one under way finishes; a holder (or an instance that can take the lease
   * now) integrates once more what is pending (the
   * decisions committed since its last run: the engine has drained its commits before the log
   * stops, so a clean stop leaves every stored decision logged); the lease is given up for
   * another to take.
   */
  async stop(): Promise<void> {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
    // A holder integrates what is pending; an instance that does not hold the lease asks for it
    // once more (its holder may have died since: then the decisions this instance committed are
    // logged before it stops, not at the next start).
    if (!this.stopped) await this.run();
    this.stopped = true;
    if (this.holding) {
      this.holding = false;
      await this.o.store.releaseLogLease(this.o.holder).catch(() => {});
    }
  }
}
