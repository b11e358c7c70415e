/**
 * The store's asynchronous interface: the shape of {@link SteeringStore} with every method
 * returning a promise, which a store over the network (PostgreSQL) needs. `SqliteStore` is
 * adapted to it by {@link asAsync} (its calls complete before the promise is made).
 */
import type {
  BlobKind,
  CommitBatch,
  CommitResult,
  PruneResult,
  SteeringStore,
  StoredRecord,
  StoreStats,
} from './store.js';

export interface AsyncSteeringStore {
  /** Writes a batch in one transaction; durable when the promise resolves. */
  commit(batch: CommitBatch): Promise<CommitResult>;
  getRecord(digest: Uint8Array): Promise<Uint8Array | undefined>;
  /** The exact `WSD1` bytes of the decision of `digest`, rebuilt and checked against it. */
  getDecision(digest: Uint8Array): Promise<Uint8Array | undefined>;
  /** Records whose `end` is above `end` (µs): those a current or later window may name. */
  recordsEndingAfter(end: bigint): Promise<StoredRecord[]>;
  putBlob(kind: BlobKind, digest: Uint8Array, bytes: Uint8Array): Promise<void>;
  getBlob(kind: BlobKind, digest: Uint8Array): Promise<Uint8Array | undefined>;
  prune(recordsBefore: bigint, decisionsBefore: bigint): Promise<PruneResult>;
  stats(): Promise<StoreStats>;
  close(): Promise<void>;
}

/** A synchronous store behind the asynchronous interface. */
export function asAsync(
  store: SteeringStore & { whenClosed?(): Promise<void> },
): AsyncSteeringStore {
  const wrap =
    <A extends unknown[], R>(f: (...a: A) => R) =>
    async (...a: A): Promise<R> =>
      f(...a);
  return {
    commit: wrap((b: CommitBatch) => store.commit(b)),
    getRecord: wrap((d: Uint8Array) => store.getRecord(d)),
    getDecision: wrap((d: Uint8Array) => store.getDecision(d)),
    recordsEndingAfter: wrap((end: bigint) => [...store.recordsEndingAfter(end)]),
    putBlob: wrap((k: BlobKind, d: Uint8Array, b: Uint8Array) => store.putBlob(k, d, b)),
    getBlob: wrap((k: BlobKind, d: Uint8Array) => store.getBlob(k, d)),
    prune: wrap((r: bigint, d: bigint) => store.prune(r, d)),
    stats: wrap(() => store.stats()),
    close: async () => {
      store.close();
      await store.whenClosed?.();
    },
  };
}
