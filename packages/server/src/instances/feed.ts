/**
 * Records and key log heads across instances. A record posted to any instance reaches every
 * instance's evidence before a window that can name it is used:
 *
 * - a notification (`LISTEN wai_records`, sent by the committing transaction) starts a catch-up
 *   at once, so a record of the window in use (one that arrived after its lag) is named by the
 *   window's later decisions everywhere;
 * - at each window move the instance runs the catch-up before deciding over the new window, so
 *   that a notification that was missed (a dropped connection) is healed, never lost.
 *
 * The catch-up reads the records ending after the window's start committed since the previous
 * read's horizon (`PgStore.recordsSince`: a snapshot's `xmin`, so a record committed in any order
 * is read). A key log head another instance kept (`wai_blobs`, kind `key-log`) is offered to
 * `onKeyLog`, which adopts it when it verifies and is newer.
 */
import type { PgStore, StoreNotice } from '../store/postgres.js';
import type { StoredRecord } from '../store/store.js';

export interface StoreFeedOptions {
  /** The start of the current window (µs): records ending at or before it are not read. */
  readonly windowStart: () => bigint;
  /** A record committed by any instance (this one's included: dedupe by digest). */
  readonly onRecord: (record: StoredRecord) => void;
  /** A key log head kept by any instance. */
  readonly onKeyLog?: (bytes: Uint8Array) => void;
}

export class StoreFeed {
  private horizon: string | undefined;
  private running: Promise<void> | undefined;
  private again: Promise<void> | undefined;
  private unsubscribe: (() => void) | undefined;
  private lastWindow: bigint | undefined;
  /** Catch-up reads done, and records they passed on. */
  reads = 0;
  received = 0;

  private constructor(
    private readonly store: PgStore,
    private readonly o: StoreFeedOptions,
  ) {}

  /**
   * Subscribes, then reads from the current window on. (The caller loads the evidence at start
   * itself; records read twice are deduplicated by digest.)
   */
  static async start(store: PgStore, options: StoreFeedOptions): Promise<StoreFeed> {
    const feed = new StoreFeed(store, options);
    feed.unsubscribe = await store.subscribe((n) => feed.notice(n));
    await feed.sync();
    return feed;
  }

  private notice(n: StoreNotice): void {
    if (n.kind === 'record') {
      this.sync().catch(() => {});
    } else if (n.kind === 'blob' && n.blob === 'key-log' && this.o.onKeyLog !== undefined) {
      const onKeyLog = this.o.onKeyLog;
      this.store.getBlob('key-log', n.digest).then(
        (bytes) => {
          if (bytes !== undefined) onKeyLog(bytes);
        },
        () => {},
      );
    }
  }

  /**
   * Before deciding at a window of start `a`: the catch-up, once per window (the decisions of
   * a window move wait for the same read). Resolves at once within a window already read.
   */
  beforeWindow(a: bigint): Promise<void> | undefined {
    if (this.lastWindow === a) return undefined;
    this.lastWindow = a;
    return this.sync();
  }

  /**
   * A catch-up read. One runs at a time; a call while one runs is served by one more read after
   * it (that starts after the call, so it sees every commit before the call).
   */
  sync(): Promise<void> {
    if (this.running === undefined) {
      this.running = this.read().finally(() => {
        this.running = undefined;
      });
      return this.running;
    }
    this.again ??= this.running
      .catch(() => {})
      .then(() => {
        this.again = undefined;
        return this.sync();
      });
    return this.again;
  }

  private async read(): Promise<void> {
    const { records, horizon } = await this.store.recordsSince(this.horizon, this.o.windowStart());
    this.horizon = horizon;
    this.reads++;
    for (const r of records) {
      this.received++;
      this.o.onRecord(r);
    }
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
  }
}
