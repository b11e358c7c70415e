/**
 * Group commit: the decisions (and accepted records) of one event-loop turn are written in one
 * transaction, then every one of them is answered. A manifest is sent only once its decision is
 * durable (§8.4: a party holding the manifest must find the decision), and one transaction per
 * turn rather than per request is what makes that affordable.
 *
 * The queue is bounded: past `maxPending` items awaiting their commit, `full` is true and the
 * server answers 503 with `Retry-After` instead of queueing more.
 *
 * A loaded server's commit may wait a little for more (`delayMs`, `store.commit_delay`), as
 * PostgreSQL's own `commit_delay` does: a commit's cost is mostly the same whatever its size
 * on a store over the network (a round trip, the statement's start, the WAL's flush), and the
 * batches of one turn shrink as the requests are shared among more workers. It waits until as
 * many items came since the last commit was written as that commit held, or `delayMs`: clients
 * that each wait for their answer before asking again (a balancer's few connections) are all
 * back by then, and nothing is gained by waiting longer; requests that keep coming regardless
 * grow the batches until `delayMs` bounds them.
 */
import { describeError, type Health } from '../health.js';
import type { Metrics } from '../metrics.js';
import type { DecisionStore, StoredDecision, StoredRecord } from '../store/store.js';
import { type CommitTrace, commitChannel, cpuNow, traceNow } from '../trace.js';

/**
 * A commit waits `delayMs` only after one of at least this many items: a loaded server. An idle
 * one's commits, of a decision or two, go at once.
 */
export const COMMIT_DELAY_AFTER = 16;

/** `store.commit_delay` on PostgreSQL when the configuration names none (ms). */
export const PG_COMMIT_DELAY_MS = 2;

/** Options of {@link CommitQueue}. */
export interface CommitQueueOptions {
  /** The most items awaiting a commit. */
  readonly maxPending: number;
  /**
   * How long a commit waits for more items (ms) after a commit of at least
   * {@link COMMIT_DELAY_AFTER}; 0 (the default) never waits.
   */
  readonly delayMs?: number;
  /** Called after each commit with its size and whether it was written. */
  readonly onCommit?: (size: number, ok: boolean, error?: unknown) => void;
}

interface Waiter<T> {
  resolve(value: T): void;
  reject(error: unknown): void;
}

/** The decisions of one batch share one promise: settled once, when the batch is written. */
interface Batch {
  readonly done: Promise<void>;
  resolve(): void;
  reject(error: unknown): void;
}

function newBatch(): Batch {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const done = new Promise<void>((yes, no) => {
    resolve = yes;
    reject = no;
  });
  // Each decision's caller handles the outcome; this one keeps a batch nobody awaits quiet.
  done.catch(() => {});
  return { done, resolve, reject };
}

export class CommitQueue {
  private decisions: StoredDecision[] = [];
  /** The promise of the decisions queued, made with the first of them. */
  private decisionBatch: Batch | undefined;
  private records: StoredRecord[] = [];
  private recordWaiters: Waiter<boolean>[] = [];
  private scheduled = false;
  private closed = false;
  /** The commit in flight, settled once its promises are. */
  private inFlight: Promise<void> | undefined;
  /** The items of the commit in flight. */
  private writing = 0;
  /** The items of the latest commit. */
  private lastSize = 0;
  /** Items queued since the latest commit was settled. */
  private sinceCommit = 0;
  /** The delayed commit's timer. */
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** The scheduled commit, at the next turn or once its delay has passed. */
  private readonly run = (): void => {
    this.timer = undefined;
    this.scheduled = false;
    this.flush();
  };

  constructor(
    private readonly store: DecisionStore,
    private readonly options: CommitQueueOptions,
  ) {}

  /** Items awaiting their commit, those of the commit in flight included. */
  get pending(): number {
    return this.queued + this.writing;
  }

  /** Items queued for the next commit. */
  private get queued(): number {
    return this.decisions.length + this.records.length;
  }

  /** Whether the queue holds `maxPending` items: the server answers 503 rather than add more. */
  get full(): boolean {
    return this.pending >= this.options.maxPending;
  }

  /**
   * Queues a signed decision; resolves once it is durable. The decisions of one commit share
   * one promise (made once per batch, not once per decision).
   */
  addDecision(decision: StoredDecision): Promise<void> {
    if (this.closed) return Promise.reject(new Error('the store is closed'));
    this.decisions.push(decision);
    this.arrived();
    let batch = this.decisionBatch;
    if (batch === undefined) {
      batch = newBatch();
      this.decisionBatch = batch;
    }
    this.schedule();
    return batch.done;
  }

  /** Queues an accepted record; resolves once it is durable, with whether it was new. */
  addRecord(record: StoredRecord): Promise<boolean> {
    return new Promise<boolean>((resolve, reject) => {
      if (this.closed) {
        reject(new Error('the store is closed'));
        return;
      }
      this.records.push(record);
      this.arrived();
      this.recordWaiters.push({ resolve, reject });
      this.schedule();
    });
  }

  /**
   * An item queued: a delayed commit goes at the next turn once as many came as the last held,
   * or once the queue is full (the server would refuse requests while it waits).
   */
  private arrived(): void {
    if ((++this.sinceCommit < this.lastSize && !this.full) || this.timer === undefined) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    setImmediate(this.run);
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight !== undefined) return;
    this.scheduled = true;
    const delay = this.options.delayMs ?? 0;
    if (
      delay > 0 &&
      this.lastSize >= COMMIT_DELAY_AFTER &&
      this.sinceCommit < this.lastSize &&
      !this.full
    ) {
      // Loaded: the requests of the next few turns join this commit.
      this.timer = setTimeout(this.run, delay);
      return;
    }
    // After the I/O callbacks of this turn: every request parsed in it joins the batch.
    setImmediate(this.run);
  }

  /**
   * An empty commit (a transaction that writes nothing), when nothing else is queued or in
   * flight: whether the store commits again, told to `onCommit` with a size of 0. The server
   * tries it while commits fail, so that a store that came back is noticed without a request.
   */
  probe(): Promise<void> {
    if (this.closed || this.inFlight !== undefined || this.queued > 0) return Promise.resolve();
    return this.flush(true);
  }

  /**
   * Writes what is queued now, in one transaction, and settles its promises. One commit is in
   * flight at a time: what is queued while it is joins the next, started when it settles. The
   * embedded store settles in the same turn, so its batches are one turn's requests each.
   */
  flush(empty = false): Promise<void> {
    if (this.inFlight !== undefined) return this.inFlight;
    const decisions = this.decisions;
    const decisionBatch = this.decisionBatch;
    const records = this.records;
    const recordWaiters = this.recordWaiters;
    if (decisions.length === 0 && records.length === 0 && !empty) return Promise.resolve();
    this.decisions = [];
    this.decisionBatch = undefined;
    this.records = [];
    this.recordWaiters = [];
    const size = decisions.length + records.length;
    this.writing = size;
    this.lastSize = size;
    const start = commitChannel.hasSubscribers ? traceNow() : -1;
    const cpu = start >= 0 ? cpuNow() : 0;
    let written: Promise<{ readonly inserted: readonly boolean[] }>;
    try {
      written = this.store.commit({ records, decisions });
    } catch (error) {
      written = Promise.reject(error);
    }
    const done = written.then(
      ({ inserted }) => {
        if (start >= 0) {
          commitChannel.publish({
            start,
            end: traceNow(),
            size,
            cpu: cpuNow() - cpu,
          } satisfies CommitTrace);
        }
        this.options.onCommit?.(size, true);
        decisionBatch?.resolve();
        for (let i = 0; i < recordWaiters.length; i++) {
          recordWaiters[i]!.resolve(inserted[i] ?? false);
        }
      },
      (error: unknown) => {
        this.options.onCommit?.(size, false, error);
        decisionBatch?.reject(error);
        for (const w of recordWaiters) w.reject(error);
      },
    );
    this.inFlight = done.then(() => {
      this.inFlight = undefined;
      this.writing = 0;
      this.sinceCommit = 0;
      // What arrived while the commit was in flight.
      if (this.queued > 0) {
        if (this.closed) return this.flush();
        this.schedule();
      }
      return undefined;
    });
    return this.inFlight;
  }

  /** Refuses anything more, and resolves once what is queued is written. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
      this.scheduled = false;
    }
    while (this.inFlight !== undefined || this.queued > 0) await this.flush();
  }
}

/**
 * What each commit tells: counted (`wai_steering_commits_total`, the batch sizes), and a failure
 * raises the `commit` cause of health, logged once per cause, never a stack trace per request.
 */
export function commitObserver(
  metrics: Metrics,
  health: Health,
): NonNullable<CommitQueueOptions['onCommit']> {
  return (size, ok, error) => {
    // A probe (size 0) tells health only.
    if (size > 0) {
      metrics.commits.inc({ outcome: ok ? 'ok' : 'error' });
      metrics.batch.observe(size);
    }
    if (ok) health.clear('commit');
    else {
      metrics.storeErrors.inc({ op: 'commit' });
      health.fail('commit', `group commits fail: ${describeError(error)}`);
    }
  };
}
