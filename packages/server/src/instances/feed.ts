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
 * `onKeyLog`, which adopts it when it verifies and is newer; a capacity report kept or a policy
 * put in force (`wai_live`, `docs/live-policy.md`) to `onLive`, which reads them from the store.
 */
import type { PgStore, StoreNotice } from '../store/postgres/index.js';
import type { SteeringStore, StoredRecord } from '../store/store.js';

export interface StoreFeedOptions {
  /** The start of the current window (µs): records ending at or before it are not read. */
  readonly windowStart: () => bigint;
  /** A record committed by any instance (this one's included: dedupe by digest). */
  readonly onRecord: (record: StoredRecord) => void;
  /** A key log head kept by any instance. */
  readonly onKeyLog?: (bytes: Uint8Array) => void;
  /** A capacity report kept, or a policy put in force, by any instance, for the room `room`. */
  readonly onLive?: (what: 'capacity' | 'policy', room: Uint8Array) => void;
}

export class StoreFeed {
  private horizon: string | undefined;
  private running: Promise<void> | undefined;
  private again: Promise<void> | undefined;
  private unsubscribe: (() => void) | undefined;
  private lastWindow: bigint | undefined;
  /** The read of the latest window move, while it runs. */
  private windowRead: Promise<void> | undefined;
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
    // A record committed, or listening again after notifications may have been lost: a
    // catch-up (its failure is the window move's to tell: the next one reads the same again).
    if (n.kind === 'record' || n.kind === 'listening') {
      this.sync().catch(() => {});
    } else if (n.kind === 'live') {
      this.o.onLive?.(n.what, n.room);
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
    // The decisions that come while the window's read runs wait for it too.
    if (this.lastWindow === a) return this.windowRead;
    this.lastWindow = a;
    const read = this.sync().finally(() => {
      if (this.windowRead === read) this.windowRead = undefined;
    });
    this.windowRead = read;
    return read;
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

/**
 * The feed of worker processes on one SQLite file (`serve --workers N`), which has no
 * notifications: at each window move the window's records are read again from the file
 * (a handful: hops × periods of a window), and a record a sibling stored is announced through
 * the primary process (`announce`, then {@link WindowFeed.heard}).
 */
export class WindowFeed {
  private lastWindow: bigint | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly store: SteeringStore,
    private readonly onRecord: (record: StoredRecord) => void,
  ) {}

  beforeWindow(a: bigint): Promise<void> | undefined {
    if (this.lastWindow === a) return this.running;
    this.lastWindow = a;
    this.running = (async () => {
      for await (const r of this.store.recordsEndingAfter(a)) this.onRecord(r);
    })().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  /** A sibling stored the record of `digest`: read it from the file. */
  async heard(digest: Uint8Array): Promise<void> {
    const bytes = await this.store.getRecord(digest);
    if (bytes === undefined || bytes.length < 85) return;
    const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.onRecord({
      digest,
      bytes,
      hop: bytes.subarray(37, 69),
      start: v.getBigUint64(69, true),
      end: v.getBigUint64(77, true),
    });
  }
}
