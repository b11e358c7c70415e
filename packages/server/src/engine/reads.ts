/**
 * The engine's reads of the store by digest (§8.4 decisions, C1 records, §3.4 policies) and its
 * listing of decisions: each answered in the engine's own words (`types.ts`), a row that does not
 * rebuild its digest as `store_damaged` (counted and logged once per row, `health.ts`) and a store
 * that does not answer as `store_unavailable` (told once per state change).
 */
import { bytesEqual, type CryptoBackend, sha256, toHex } from '@wai-steering/wire';
import { describeError, type Health } from '../health.js';
import type { Metrics } from '../metrics.js';
import {
  type BlobStore,
  type DecisionCursor,
  type DecisionStore,
  type RecordStore,
  StoreDamagedError,
} from '../store/store.js';
import type {
  ListingResult,
  ReadResult,
  RecordListingResult,
  StoreDamaged,
  StoredRead,
  StoreUnavailable,
} from './types.js';

/** Bytes held, or none. */
export function found(bytes: Uint8Array | undefined): ReadResult {
  return bytes === undefined ? { kind: 'absent' } : { kind: 'found', bytes };
}

/** A {@link StoreUnavailable}: the store could not keep or give what was asked, and why. */
export function storeUnavailable(cause: StoreUnavailable['cause'], why: string): StoreUnavailable {
  return { kind: 'store_unavailable', cause, why };
}

/** What {@link StoreReads} reads from, and where it tells faults. */
export interface StoreReadsOptions {
  readonly store: DecisionStore & RecordStore & BlobStore;
  readonly backend: CryptoBackend;
  readonly health: Health;
  readonly metrics: Metrics;
}

/** Reads by digest and the listing of decisions, checked, their faults told. */
export class StoreReads {
  constructor(private readonly o: StoreReadsOptions) {}

  /**
   * `store_unavailable` while the embedded store's file is gone (removed or replaced while
   * running, `health.ts`): a decision served then could not be fetched after a restart (§8.4).
   */
  fileGone(): StoreUnavailable | undefined {
    if (!this.o.health.has('store')) return undefined;
    return storeUnavailable('file', 'the store file was removed or replaced');
  }

  /**
   * §8.4: the decision of a digest, its exact bytes; `store_damaged` when the store keeps a row
   * under it that does not rebuild it, `store_unavailable` when the store does not answer.
   */
  decision(digest: Uint8Array): Promise<StoredRead> {
    return this.read('decision', digest, () => this.o.store.getDecision(digest), false);
  }

  /** The per-hop record of a digest (C1), checked against it. */
  record(digest: Uint8Array): Promise<StoredRead> {
    return this.read('record', digest, () => this.o.store.getRecord(digest), true);
  }

  /** A policy kept under a digest (§3.4), checked against it; `check: false` reads it as kept. */
  policy(digest: Uint8Array, check = true): Promise<StoredRead> {
    return this.read('policy', digest, () => this.o.store.getBlob('policy', digest), check);
  }

  /**
   * The decisions with `from` ≤ `t` < `to`, by time, a page at a time (`GET /decisions`);
   * `store_damaged` at a row that does not rebuild its digest (never listed under another).
   */
  async listDecisions(
    from: bigint,
    to: bigint,
    after: DecisionCursor | null,
    limit: number,
  ): Promise<ListingResult> {
    try {
      const page = await this.o.store.listDecisions(from, to, after, limit);
      this.o.health.clear('store_queries');
      return { kind: 'page', ...page };
    } catch (e) {
      return this.readFailed(e);
    }
  }

  /**
   * The records whose span meets `[from, to)` (`end` > `from`, `start` < `to`), in order of
   * `start`, a page at a time (`GET /records`): at most `limit` and then the rest of the last
   * `start` listed (a page ends between two `start`s, whatever order the store gives records of
   * one `start` in); after `after` (the `start` of the last page's records), `next` the `start`
   * of this page's last records when more follow. Each checked against its digest.
   */
  async listRecords(
    from: bigint,
    to: bigint,
    after: bigint | null,
    limit: number,
  ): Promise<RecordListingResult> {
    const records: Uint8Array[] = [];
    let last: bigint | undefined;
    let more = false;
    try {
      const floor = after !== null && after > from ? after : from;
      for await (const r of this.o.store.recordsEndingAfter(floor)) {
        if (r.start >= to) break;
        if (after !== null && r.start <= after) continue;
        if (records.length >= limit && r.start !== last) {
          more = true;
          break;
        }
        const b = r.bytes;
        if (
          b.length < 64 ||
          !bytesEqual(sha256(b.subarray(0, b.length - 64), this.o.backend), r.digest)
        ) {
          return this.damaged(new StoreDamagedError('record', toHex(r.digest)));
        }
        records.push(b);
        last = r.start;
      }
    } catch (e) {
      return this.readFailed(e);
    }
    this.o.health.clear('store_queries');
    return { kind: 'records', records, next: more ? last! : null };
  }

  /**
   * A read by digest from the store. `check`: the bytes are a record of the family, whose digest
   * is the SHA-256 of all but its 64-byte signature (C1), checked here (a decision is checked by
   * the store, which rebuilds it).
   */
  private async read(
    what: StoreDamaged['what'],
    digest: Uint8Array,
    get: () => Promise<Uint8Array | undefined>,
    check: boolean,
  ): Promise<StoredRead> {
    let bytes: Uint8Array | undefined;
    try {
      bytes = await get();
    } catch (e) {
      return this.readFailed(e);
    }
    this.o.health.clear('store_queries');
    if (
      check &&
      bytes !== undefined &&
      (bytes.length < 64 ||
        !bytesEqual(sha256(bytes.subarray(0, bytes.length - 64), this.o.backend), digest))
    ) {
      return this.damaged(new StoreDamagedError(what, toHex(digest)));
    }
    return found(bytes);
  }

  /** A read of the store that threw: damage found, or the store not answering. */
  private readFailed(e: unknown): StoreDamaged | StoreUnavailable {
    if (e instanceof StoreDamagedError) return this.damaged(e);
    this.o.metrics.storeErrors.inc({ op: 'query' });
    this.o.health.fail('store_queries', `store queries fail: ${describeError(e)}`);
    return storeUnavailable('query', 'the store does not answer for now');
  }

  /** Damage of the store: raised, counted and logged once per row (`health.ts`). */
  private damaged(e: StoreDamagedError): StoreDamaged {
    if (this.o.health.damaged(e.what, e.digest)) this.o.metrics.storeDamaged.inc({ what: e.what });
    return { kind: 'store_damaged', what: e.what };
  }
}
