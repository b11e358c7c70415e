/**
 * The decision log's reads, as every instance serves them from the store (C2SP tlog-tiles): the
 * latest checkpoint (read from the store once asked, so that the answers through one address never
 * go back, whichever worker or instance gives them), the tiles and entry bundles (level 0 and the
 * bundles derived from the entries, 256 rows; levels above as stored; full ones immutable, kept in
 * memory), and an entry's proof (tlog-proof) against the latest checkpoint.
 */
import {
  encodeEntry,
  encodeEntryBundle,
  formatTlogProof,
  HASH_SIZE,
  leafHash,
  parseCheckpoint,
  parseNote,
  TILE_WIDTH,
  type Tile,
  TileHashReader,
  tileOf,
  tilePath,
} from '@wai-steering/tlog';
import type { CryptoBackend } from '@wai-steering/wire';
import type { DecisionStore, LogReads, StoredCheckpoint } from '../store/store.js';

/** A tile or bundle asked for. */
export type TileAnswer =
  | { readonly kind: 'found'; readonly bytes: Uint8Array; readonly full: boolean }
  /** The log has no such tile (yet): beyond its size, or a partial width it never had. */
  | { readonly kind: 'absent' }
  /** tlog-tiles, *Pruning*: the tile ends at or below the minimum index. */
  | { readonly kind: 'pruned'; readonly minIndex: bigint };

/** An entry's proof asked for by its decision's digest. */
export type ProofAnswer =
  | { readonly kind: 'proof'; readonly text: string; readonly index: bigint }
  /** A decision the store holds that no checkpoint holds yet: ask again after `retryAfterS`. */
  | { readonly kind: 'pending'; readonly retryAfterS: number }
  | { readonly kind: 'absent' };

/** A checkpoint read, with a tile reader of its tree. */
interface Current {
  readonly checkpoint: StoredCheckpoint;
  readonly root: Uint8Array;
  reader?: TileHashReader;
}

export interface LogReaderOptions {
  /** `log.interval`, ms: when to ask again for a decision's proof not yet logged (`Retry-After`). */
  readonly intervalMs: number;
  readonly backend?: CryptoBackend;
  /** Full tiles and bundles kept in memory (each up to 10 KiB); default 2048. */
  readonly cacheSize?: number;
}

export class LogReader {
  /** The largest checkpoint read, with its tree's reader (kept while the log does not grow). */
  private current: Current | undefined;
  /** The store's read of the latest checkpoint under way, and the one asked for after it began. */
  private reading: Promise<Current | undefined> | undefined;
  private next: Promise<Current | undefined> | undefined;
  /** Full tiles and bundles by path: they never change. */
  private readonly full = new Map<string, Uint8Array>();
  private readonly cacheSize: number;
  /** The tile fetcher of `@wai-steering/tlog`'s `TileHashReader`, over the store. */
  readonly fetchTile = async (tile: Tile): Promise<Uint8Array | undefined> => {
    const a = await this.tile(tile);
    return a.kind === 'found' ? a.bytes : undefined;
  };

  constructor(
    private readonly store: LogReads & DecisionStore,
    private readonly o: LogReaderOptions,
  ) {
    this.cacheSize = o.cacheSize ?? 2048;
  }

  /** The latest checkpoint the store holds once asked; `undefined` before the first. */
  async checkpoint(): Promise<StoredCheckpoint | undefined> {
    return (await this.latest())?.checkpoint;
  }

  /**
   * The latest checkpoint, from a read of the store begun after the call. The store's latest only
   * grows, so an answer is never older than one that any instance on the store (a worker of
   * `serve --workers N`, an instance behind the same balancer) gave before the call: a client
   * that asks again, wherever its request lands, never sees the log go back. A read already under
   * way may have begun before the call: the calls made meanwhile share the next one, begun once it
   * is done (one read in flight at a time).
   */
  private latest(): Promise<Current | undefined> {
    if (this.reading === undefined) return this.begin();
    this.next ??= this.reading.then(
      () => this.again(),
      () => this.again(),
    );
    return this.next;
  }

  private again(): Promise<Current | undefined> {
    this.next = undefined;
    return this.begin();
  }

  private begin(): Promise<Current | undefined> {
    const reading = this.read().finally(() => {
      if (this.reading === reading) this.reading = undefined;
    });
    this.reading = reading;
    return reading;
  }

  private async read(): Promise<Current | undefined> {
    const checkpoint = await this.store.latestLogCheckpoint();
    if (checkpoint === undefined) return undefined;
    const held = this.current;
    if (held !== undefined && held.checkpoint.size === checkpoint.size) {
      // The same tree (its cosignatures may have grown): the tile reader stays.
      this.current = { ...held, checkpoint };
      return this.current;
    }
    const note = parseNote(checkpoint.text);
    const read = note.ok ? parseCheckpoint(note.value.text) : undefined;
    if (read === undefined || !read.ok) {
      throw new Error(`the decision log's checkpoint of size ${checkpoint.size} does not read`);
    }
    const current: Current = { checkpoint, root: read.value.root };
    if (held === undefined || checkpoint.size > held.checkpoint.size) this.current = current;
    return current;
  }

  /**
   * A tile (`level` 0 to 63) or an entry bundle (`level: 'entries'`) of the log as it is now:
   * a partial tile of a width the log has passed is the first hashes of the wider one.
   */
  async tile(tile: Tile): Promise<TileAnswer> {
    const path = tilePath(tile);
    const cached = this.full.get(path);
    if (cached !== undefined) return { kind: 'found', bytes: cached, full: true };
    const head = await this.store.logHead();
    if (head === undefined) return { kind: 'absent' };
    const level = tile.level === 'entries' ? 0 : tile.level;
    const has = tileOf(head.size, tile.level, tile.index);
    if (has === undefined || has.width < tile.width) return { kind: 'absent' };
    // tlog-tiles, Pruning: the full tile's end index at or below the minimum index.
    if ((tile.index + 1n) << BigInt(8 * (level + 1)) <= head.minIndex) {
      return { kind: 'pruned', minIndex: head.minIndex };
    }
    let bytes: Uint8Array | undefined;
    if (level === 0) {
      const first = tile.index * BigInt(TILE_WIDTH);
      const rows = await this.store.logEntries(first, first + BigInt(tile.width));
      if (rows.length !== tile.width) return { kind: 'absent' };
      const entries = rows.map((r) => encodeEntry({ t: r.t, digest: r.digest }));
      if (tile.level === 'entries') bytes = encodeEntryBundle(entries);
      else {
        const leaves = new Uint8Array(tile.width * HASH_SIZE);
        entries.forEach((e, i) => {
          leaves.set(leafHash(e, this.o.backend), i * HASH_SIZE);
        });
        bytes = leaves;
      }
    } else {
      const stored = await this.store.logTile(level, tile.index);
      if (stored === undefined || stored.length < tile.width * HASH_SIZE) return { kind: 'absent' };
      bytes = stored.slice(0, tile.width * HASH_SIZE);
    }
    const full = tile.width === TILE_WIDTH;
    if (full) this.keep(path, bytes);
    return { kind: 'found', bytes, full };
  }

  private keep(path: string, bytes: Uint8Array): void {
    if (this.full.size >= this.cacheSize) this.full.delete(this.full.keys().next().value!);
    this.full.set(path, bytes);
  }

  /**
   * The proof (tlog-proof@v1, no `extra` line) of the entry of a decision the store holds, by
   * its digest, against the latest checkpoint: its index, its inclusion proof computed from the
   * tiles (each checked against the checkpoint's root by the tile reader), the checkpoint with
   * its cosignatures. A decision the store no longer holds (pruned) is `absent`.
   */
  async proof(digest: Uint8Array): Promise<ProofAnswer> {
    const pending: ProofAnswer = {
      kind: 'pending',
      retryAfterS: Math.max(1, Math.ceil(this.o.intervalMs / 1000)),
    };
    // The decision's t (§7.1, after the header and the room, signer and policy), then its entry.
    const decision = await this.store.getDecision(digest);
    if (decision === undefined) return { kind: 'absent' };
    const t = new DataView(decision.buffer, decision.byteOffset + 101, 8).getBigUint64(0, true);
    const index = await this.store.logIndexOf(t, digest);
    if (index === undefined) return pending;
    // Logged, but maybe in no checkpoint yet (one is signed once the batch is complete).
    const c = await this.latest();
    if (c === undefined || index >= c.checkpoint.size) return pending;
    c.reader ??= new TileHashReader(
      { size: c.checkpoint.size, root: c.root },
      this.fetchTile,
      this.o.backend === undefined ? {} : { backend: this.o.backend },
    );
    const inclusion = await c.reader.inclusionProof(index);
    return {
      kind: 'proof',
      index,
      text: formatTlogProof({ index, inclusion, checkpoint: c.checkpoint.text }),
    };
  }

  /**
   * The RFC 6962 consistency proof from `oldSize` to the tree of `checkpoint` (whose root is
   * `root`), from the tiles: what a witness is sent.
   */
  async consistency(
    oldSize: bigint,
    checkpoint: { readonly size: bigint; readonly root: Uint8Array },
  ): Promise<Uint8Array[]> {
    const reader = new TileHashReader(
      checkpoint,
      this.fetchTile,
      this.o.backend === undefined ? {} : { backend: this.o.backend },
    );
    return reader.consistencyProof(oldSize, checkpoint.size);
  }
}
