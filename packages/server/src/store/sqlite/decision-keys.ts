/**
 * The decisions' index by key (`decision_keys`), merged in sorted batches between commits rather
 * than written at commit, and the lookup of a key's rows through it (`decisions.ts`).
 *
 * A decision's key is the first 8 bytes of its digest, random: an index on it kept at commit
 * costs a random B-tree insert per decision, whose leaf page the WAL writes and the checkpointer
 * copies again, commit after commit (two thirds of a group commit's cost with 200 000 decisions
 * held: `bench/commit.bench.mjs`). Merged in batches of {@link KEY_MERGE_ROWS}, sorted, the
 * inserts share their pages: a few decisions a page instead of one. `decision_keys` holds each
 * (key, id) of the decisions up to `keys_through` (in `meta`); the decisions after it (fewer
 * than a batch, but while a merge runs) are looked up through a map by key that each connection
 * fills from their rows, by row id (once: about 1 ms for this many, then the rows since its last
 * lookup). The merge runs in {@link KEY_SLICES} transactions apart, between commits, each over a
 * part of the key range.
 */
import type Database from 'better-sqlite3';
import { traced } from '../../trace.js';
import { isBusy, type SqliteContext } from './context.js';

/** The decisions not yet in `decision_keys` past which a merge starts (after a commit). */
const KEY_MERGE_ROWS = 16_384;
/** The merge's transactions, each over 1/8 of the keys (a few ms each, between commits). */
const KEY_SLICES = 8;
/** How long a merge waits for another process's write lock before it gives up (till the next). */
const KEY_MERGE_WAIT_MS = 5000;
/** How long a process whose merge found another's under way waits before it looks again. */
const KEY_MERGE_AGAIN_MS = 100;
/** The lower bound of each slice's keys (signed 64-bit), and the last one's upper bound. */
const KEY_BOUNDS: readonly bigint[] = Array.from(
  { length: KEY_SLICES + 1 },
  (_, i) => -(1n << 63n) + (BigInt(i) << 64n) / BigInt(KEY_SLICES),
);

/** A decision row as a lookup by key reads it. */
export interface KeyRow {
  readonly id: number;
  readonly set_id: number;
  readonly tail: Buffer;
}

export class DecisionKeys {
  private readonly db: Database.Database;
  private readonly s: ReturnType<typeof statements>;
  /** The decisions through this id are in `decision_keys` (as this connection last knew it). */
  private keysThrough: number;
  /** The latest decision's id this connection committed (`decisions.ts` writes it). */
  lastDecisionId = 0;
  private readonly keyMergeRows: number;
  /** The merge under way: its span of ids (from, to] and its next slice. */
  private keyMerge:
    | {
        from: number;
        to: number;
        slice: number;
        deadline: number;
        /** Merges however few there are (tests). */
        readonly forced: boolean;
        /** Left to another process's merge, or merged already. */
        left: boolean;
      }
    | undefined;
  /** No merge starts before this time (ms): another process's was under way. */
  private keyMergeAfter = 0;
  /**
   * The decisions after `keys_through`, by key, as this connection last read them (for lookups:
   * `read`): from `through`, the rows read up to `seen` (its key `seenKey`).
   */
  private tail:
    | { through: number; seen: number; seenKey: bigint; ids: Map<bigint, number[]> }
    | undefined;
  /** Resolves the merge's waiters (tests) when it ends. */
  private keyMergeWaiters: (() => void)[] = [];

  constructor(
    private readonly ctx: SqliteContext,
    keyMergeRows: number | undefined,
  ) {
    this.db = ctx.db;
    this.s = statements(ctx.db);
    this.keyMergeRows = keyMergeRows ?? KEY_MERGE_ROWS;
    this.keysThrough = (this.s.keysThrough.get() as number | undefined) ?? 0;
  }

  /** After a commit: a merge starts once enough decisions are past `keys_through`. */
  committed(): void {
    if (
      this.keyMerge === undefined &&
      this.lastDecisionId - this.keysThrough >= this.keyMergeRows &&
      Date.now() >= this.keyMergeAfter
    ) {
      this.startKeyMerge();
    }
  }

  /** Every decision was pruned (row ids start again from 1): none is past `keys_through`. */
  reset(): void {
    this.keysThrough = 0;
    this.lastDecisionId = 0;
  }

  /**
   * Starts a merge of the decisions after `keys_through` into `decision_keys`, a slice a turn;
   * `forced` (tests) merges however few there are.
   */
  private startKeyMerge(forced = false): void {
    this.keyMerge = {
      from: -1,
      to: -1,
      slice: 0,
      deadline: Date.now() + KEY_MERGE_WAIT_MS,
      forced,
      left: false,
    };
    setImmediate(() => this.keyMergeStep());
  }

  /**
   * One transaction of the merge: the first reads its span and claims the merge (`keys_merging`,
   * until its deadline), each writes a slice, the last moves `keys_through` and gives the claim
   * up. The workers of one file merge one at a time: a process that finds another's claim running,
   * or the span merged already, leaves it (and looks again {@link KEY_MERGE_AGAIN_MS} later).
   * Another process holding the write lock: tried again shortly (up to
   * {@link KEY_MERGE_WAIT_MS}); any other failure (the store closed or removed) ends it, and the
   * next commit past the threshold starts another (a claim left by a merge that ended so, or by a
   * process that died, runs out at its deadline).
   */
  private keyMergeStep(): void {
    const m = this.keyMerge;
    if (m === undefined) return;
    if (!this.db.open) {
      this.endKeyMerge();
      return;
    }
    const s = this.s;
    this.ctx.busyNoWait.get();
    try {
      traced('key-merge', () =>
        this.db
          .transaction(() => {
            if (m.slice === 0) {
              m.from = (s.keysThrough.get() as number | undefined) ?? 0;
              m.to = s.maxDecisionId.get() as number;
              if (
                m.to - m.from < (m.forced ? 1 : this.keyMergeRows) ||
                s.claimKeyMerge.run(m.deadline, Date.now()).changes === 0
              ) {
                m.left = true;
                return;
              }
            }
            const lo = KEY_BOUNDS[m.slice]!;
            if (m.slice === KEY_SLICES - 1) s.mergeLastKeys.run(m.from, m.to, lo);
            else s.mergeKeys.run(m.from, m.to, lo, KEY_BOUNDS[m.slice + 1]!);
            if (m.slice === KEY_SLICES - 1) {
              if (s.setKeysThrough.run(m.to, m.from).changes > 0) this.keysThrough = m.to;
              s.releaseKeyMerge.run();
            }
          })
          .immediate(),
      );
    } catch (e) {
      if (isBusy(e) && Date.now() < m.deadline) {
        setTimeout(() => this.keyMergeStep(), 2);
        return;
      }
      this.endKeyMerge();
      return;
    } finally {
      if (this.db.open) this.ctx.busyWait.get();
    }
    if (m.left) {
      // Merged already (by another process) or being merged by another: where it is now.
      this.keysThrough = m.from;
      this.keyMergeAfter =
        this.lastDecisionId - m.from >= this.keyMergeRows ? Date.now() + KEY_MERGE_AGAIN_MS : 0;
      this.endKeyMerge();
      return;
    }
    if (++m.slice < KEY_SLICES && m.to > m.from) {
      setImmediate(() => this.keyMergeStep());
      return;
    }
    // Another process's merge, or a prune, moved it: this connection reads where it is now.
    if (m.slice < KEY_SLICES || this.keysThrough !== m.to) {
      this.keysThrough = (s.keysThrough.get() as number | undefined) ?? 0;
    }
    this.endKeyMerge();
  }

  private endKeyMerge(): void {
    this.keyMerge = undefined;
    const waiters = this.keyMergeWaiters;
    this.keyMergeWaiters = [];
    for (const w of waiters) w();
  }

  /**
   * Resolves when no merge of `decision_keys` is under way; with `now`, starts one first
   * (whatever the decisions after `keys_through`).
   */
  settled(now = false): Promise<void> {
    if (now && this.keyMerge === undefined) this.startKeyMerge(true);
    if (this.keyMerge === undefined) return Promise.resolve();
    return new Promise((resolve) => this.keyMergeWaiters.push(resolve));
  }

  /**
   * The rows of a key, in one read transaction: those of `decision_keys`, and those after
   * `keys_through` from {@link DecisionKeys.tail}, brought up to date first (the rows committed
   * since, by any connection, read by id).
   */
  read(key: bigint): KeyRow[] {
    const s = this.s;
    return this.db.transaction(() => {
      const rows = s.getDecisions.all({ key }) as KeyRow[];
      const through = (s.keysThrough.get() as number | undefined) ?? 0;
      let tail = this.tail;
      // Another start: a merge moved keys_through, or a prune took the row last read (a prune of
      // every decision starts the row ids again from 1).
      if (
        tail === undefined ||
        tail.through !== through ||
        (tail.seen > through && s.keyAt.get(tail.seen) !== tail.seenKey)
      ) {
        tail = { through, seen: through, seenKey: 0n, ids: new Map() };
        this.tail = tail;
      }
      for (const r of s.tailSince.iterate(tail.seen) as Iterable<{ id: bigint; key: bigint }>) {
        const id = Number(r.id);
        const held = tail.ids.get(r.key);
        if (held === undefined) tail.ids.set(r.key, [id]);
        else held.push(id);
        tail.seen = id;
        tail.seenKey = r.key;
      }
      for (const id of tail.ids.get(key) ?? []) {
        if (rows.some((r) => r.id === id)) continue;
        const row = s.getDecisionById.get(id, key) as KeyRow | undefined;
        if (row !== undefined) rows.push(row);
      }
      return rows;
    })();
  }
}

function statements(db: Database.Database) {
  return {
    // The rows of a key merged into `decision_keys` (those after it: `read`).
    getDecisions: db.prepare(
      `SELECT d.id, d.set_id, d.tail FROM decision_keys k JOIN decisions d ON d.id = k.id
         WHERE k.key = @key AND d.key = @key`,
    ),
    getDecisionById: db.prepare('SELECT id, set_id, tail FROM decisions WHERE id = ? AND key = ?'),
    tailSince: db
      .prepare('SELECT id, key FROM decisions WHERE id > ? ORDER BY id')
      .safeIntegers(true),
    keyAt: db.prepare('SELECT key FROM decisions WHERE id = ?').pluck().safeIntegers(true),
    keysThrough: db.prepare("SELECT v FROM meta WHERE k = 'keys_through'").pluck(),
    maxDecisionId: db.prepare('SELECT coalesce(max(id), 0) FROM decisions').pluck(),
    // One slice of a merge: the decisions of ids (from, to] whose key is in [lo, hi), sorted.
    mergeKeys: db.prepare(
      `INSERT OR IGNORE INTO decision_keys (key, id)
         SELECT key, id FROM decisions WHERE id > ? AND id <= ? AND key >= ? AND key < ?
         ORDER BY key, id`,
    ),
    mergeLastKeys: db.prepare(
      `INSERT OR IGNORE INTO decision_keys (key, id)
         SELECT key, id FROM decisions WHERE id > ? AND id <= ? AND key >= ?
         ORDER BY key, id`,
    ),
    // Moved on only from the value the merge began at: a prune that emptied the table (row ids
    // start again from 1) or another process's merge moved it meanwhile.
    setKeysThrough: db.prepare("UPDATE meta SET v = ? WHERE k = 'keys_through' AND v = ?"),
    claimKeyMerge: db.prepare("UPDATE meta SET v = ? WHERE k = 'keys_merging' AND v <= ?"),
    releaseKeyMerge: db.prepare("UPDATE meta SET v = 0 WHERE k = 'keys_merging'"),
  };
}
