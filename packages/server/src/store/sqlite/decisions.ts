/**
 * The embedded store's decisions (`sets`, `decisions`) and its group commit: compact decisions
 * (`../compact.ts`), each row the decision's tail and the id of its window's evidence set, found
 * by the first 8 bytes of its digest (`decision-keys.ts`) and rebuilt and checked against the
 * digest at each read. The group commit writes the batch's records (`records.ts`), its
 * decisions, and their pending entries of the decision log (one row a commit), in one
 * transaction (`GroupCommit`, `context.ts`).
 */
import { bytesEqual, sha256, toHex } from '@wai-steering/wire';
import type Database from 'better-sqlite3';
import { joinDecision, splitAgainst } from '../compact.js';
import type {
  CommitBatch,
  CommitResult,
  DecisionCursor,
  DecisionPage,
  DecisionStore,
  KeptDecision,
  ListedDecision,
} from '../decisions.js';
import { ENTRY, keyOf } from '../entries.js';
import { StoreDamagedError } from '../errors.js';
import {
  asBytes,
  type CommitSteps,
  clampU64,
  GroupCommit,
  type SqliteContext,
  settle,
  tailTimeOf,
  timeColumn,
} from './context.js';
import { DecisionKeys } from './decision-keys.js';
import type { SqliteRecords } from './records.js';

/** A listed decision row that does not rebuild its digest: named by its key (8 bytes, hex). */
function damagedRow(key: bigint | number): StoreDamagedError {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigInt64(0, BigInt(key), false);
  return new StoreDamagedError('decision', `${toHex(b)}…`);
}

export class SqliteDecisions implements DecisionStore, CommitSteps {
  private readonly db: Database.Database;
  private readonly s: ReturnType<typeof statements>;
  private readonly group: GroupCommit;
  /** The decisions' index by key and its merge. */
  readonly keys: DecisionKeys;
  /** The latest evidence set: decisions that repeat it reuse its row. */
  private current: { id: number; body: Uint8Array; lastT: number } | undefined;
  /** Evidence sets by id, for rebuilding decisions (a handful are hot). */
  private readonly setCache = new Map<number, Uint8Array>();
  /** Where each decision's tail is cut (bound, and so copied, by the insert). */
  private scratch = new Uint8Array(4096);
  /**
   * Whether a commit writes the decision log's pending entries (always, but in the server's
   * bench, which switches it between rounds: `SqliteStoreOptions.logAppend`).
   */
  logAppend: boolean;
  /** The instance kept with each decision committed (`SqliteStoreOptions.instance`). */
  private readonly instance: number | null;

  constructor(
    ctx: SqliteContext,
    private readonly records: SqliteRecords,
    options: {
      readonly logAppend?: boolean;
      readonly keyMergeRows?: number;
      readonly instance?: number;
    },
  ) {
    this.db = ctx.db;
    this.logAppend = options.logAppend ?? true;
    this.instance = options.instance ?? null;
    this.s = statements(ctx.db);
    this.loadCurrent();
    this.keys = new DecisionKeys(ctx, options.keyMergeRows);
    this.group = new GroupCommit(ctx, this);
  }

  commit(batch: CommitBatch): Promise<CommitResult> {
    return this.group.commit(batch);
  }

  /** After each commit: the keys' merge, when enough decisions await it. */
  committed(): void {
    this.keys.committed();
  }

  /** The transaction rolled back: the current set may be one it had written. */
  rolledBack(): void {
    this.loadCurrent();
  }

  /** No decision is kept any more (a prune took them all): the next one makes a new set. */
  forgetCurrent(): void {
    this.current = undefined;
  }

  /** Evidence sets were pruned: those cached may be gone. */
  setsPruned(): void {
    this.setCache.clear();
  }

  private loadCurrent(): void {
    const last = this.db
      .prepare('SELECT id, body, last_t FROM sets ORDER BY id DESC LIMIT 1')
      .get() as { id: number; body: Buffer; last_t: number } | undefined;
    this.current =
      last === undefined
        ? undefined
        : { id: last.id, body: asBytes(last.body), lastT: last.last_t };
  }

  /** The group commit's transaction: the records, then the decisions and their log entries. */
  write(batch: CommitBatch): CommitResult {
    const s = this.s;
    const inserted = this.records.write(batch.records);
    if (batch.decisions.length > 0) {
      const keys = this.keys;
      let touched = false;
      const entries = this.logAppend ? new Uint8Array(ENTRY * batch.decisions.length) : undefined;
      let n = 0;
      for (const d of batch.decisions) {
        let tail: Uint8Array;
        let set: Uint8Array | undefined;
        if ('tail' in d) {
          // Cut by the encoder: the set is the current one by identity, or compared once.
          tail = d.tail;
          const cur = this.current;
          set =
            cur !== undefined && (cur.body === d.set || bytesEqual(cur.body, d.set))
              ? undefined
              : d.set;
          if (set === undefined && cur !== undefined && cur.body !== d.set)
            this.current = { ...cur, body: d.set };
        } else {
          if (this.scratch.length < d.bytes.length) this.scratch = new Uint8Array(d.bytes.length);
          const known = d.set !== undefined && d.set === this.current?.body;
          const cut = splitAgainst(d.bytes, this.current?.body, this.scratch, known);
          tail = this.scratch.subarray(0, cut.tailLength);
          set = cut.set;
        }
        const t = tailTimeOf(tail);
        let cur = this.current;
        if (set !== undefined || cur === undefined) {
          if (touched && cur !== undefined) s.touchSet.run(cur.lastT, cur.id);
          // The caller's set object, when given, so that its next decisions are known by identity.
          const body = d.set !== undefined && bytesEqual(d.set, set!) ? d.set : set!;
          const first = s.nextDecisionId.get() as number;
          const info = s.insertSet.run(first, t, this.minStartOf(body), body);
          cur = { id: Number(info.lastInsertRowid), body, lastT: t };
          this.current = cur;
          touched = false;
        } else if (t > cur.lastT) {
          cur.lastT = t;
          touched = true;
        }
        // better-sqlite3 copies a bound blob: the scratch is reused.
        keys.lastDecisionId = Number(
          s.insertDecision.run(keyOf(d.digest), cur.id, tail, timeColumn(t), this.instance)
            .lastInsertRowid,
        );
        // The decision log's entry: `t` (the tail's first 8 bytes, u64 little-endian), digest.
        if (entries !== undefined) {
          entries.set(tail.subarray(0, 8), n * ENTRY);
          entries.set(d.digest, n * ENTRY + 8);
        }
        n++;
      }
      const cur = this.current;
      if (touched && cur !== undefined) s.touchSet.run(cur.lastT, cur.id);
      // One pending row per commit: the log's append costs one insert per batch.
      if (entries !== undefined) s.insertPending.run(entries);
    }
    return { inserted };
  }

  /** The least `start` of the records a set names (the records are stored before it). */
  private minStartOf(set: Uint8Array): number {
    let min = Number.MAX_SAFE_INTEGER;
    const m = set[96] ?? 0;
    let s = 97;
    for (let p = 0; p < m; p++) {
      const k = set[s + 34] ?? 0;
      for (let j = 0; j < k; j++) {
        const at = s + 35 + 32 * j;
        const start = this.records.startOf(set.subarray(at, at + 32));
        // A record not held (never, as the server names only records it committed) constrains
        // nothing it could prune.
        if (start !== undefined && start < min) min = start;
      }
      s += 35 + 32 * k;
    }
    return min;
  }

  getDecision(digest: Uint8Array): Promise<Uint8Array | undefined> {
    return settle(() => this.getDecisionSync(digest));
  }

  private getDecisionSync(digest: Uint8Array): Uint8Array | undefined {
    if (digest.length !== 32) return undefined;
    const key = keyOf(digest);
    const rows = this.keys.read(key);
    // A row of this key whose bytes do not rebuild a digest of this key is damage; one that
    // rebuilds another digest of the key is another decision (or a digest no decision has).
    let damaged = false;
    for (const row of rows) {
      const bytes = this.rebuild(row.set_id, asBytes(row.tail));
      if (bytes === undefined) {
        damaged = true;
        continue;
      }
      const d = sha256(bytes.subarray(0, bytes.length - 64));
      if (bytesEqual(d, digest)) return bytes;
      if (keyOf(d) !== key) damaged = true;
    }
    if (damaged) throw new StoreDamagedError('decision', toHex(digest));
    return undefined;
  }

  /** A decision's bytes from its set and tail; `undefined` when its set is gone or they do not join. */
  private rebuild(setId: number, tail: Uint8Array): Uint8Array | undefined {
    const set = this.setBody(setId);
    if (set === undefined) return undefined;
    try {
      return joinDecision(set, tail);
    } catch {
      return undefined;
    }
  }

  private setBody(id: number): Uint8Array | undefined {
    let body = this.setCache.get(id);
    if (body === undefined) {
      const b = this.s.getSet.get(id) as Buffer | undefined;
      if (b === undefined) return undefined;
      body = asBytes(b);
      if (this.setCache.size >= 64) this.setCache.delete(this.setCache.keys().next().value!);
      this.setCache.set(id, body);
    }
    return body;
  }

  listDecisions(
    from: bigint,
    to: bigint,
    after: DecisionCursor | null,
    limit: number,
  ): Promise<DecisionPage> {
    return settle(() => this.listDecisionsSync(from, to, after, limit));
  }

  /**
   * In (t, id) order: the row ids are the order of the commits, one writer at a time, which is
   * the decision log's order (its pending rows are written in the same transactions), so that
   * decisions of equal `t` are listed in the log's order.
   */
  private listDecisionsSync(
    from: bigint,
    to: bigint,
    after: DecisionCursor | null,
    limit: number,
  ): DecisionPage {
    if (after !== null && (!Number.isSafeInteger(after.id) || after.id < 0 || after.t < 0n)) {
      throw new RangeError('listDecisions: after');
    }
    if (!Number.isSafeInteger(limit) || limit < 1) throw new RangeError('listDecisions: limit');
    // The cursor: the last decision listed, or just before the first at `from`.
    const start = clampU64(from < 0n ? 0n : from);
    let cursor =
      after === null || clampU64(after.t) < start
        ? { t: start, id: 0 }
        : { t: clampU64(after.t), id: after.id };
    const decisions: ListedDecision[] = [];
    // Rows are read a page at a time; those before `from` (a `t` past the column's range) are
    // skipped.
    for (;;) {
      const rows = this.s.decisionsAfter.all(cursor.t, cursor.t, cursor.id, limit) as {
        id: bigint;
        key: bigint;
        set_id: bigint;
        tail: Buffer;
        t: number;
      }[];
      for (const row of rows) {
        const tail = asBytes(row.tail);
        if (tail.length < 8) throw damagedRow(row.key);
        const t = new DataView(tail.buffer, tail.byteOffset, 8).getBigUint64(0, true);
        if (t >= to) return { decisions, next: null };
        cursor = { t: Number(row.t), id: Number(row.id) };
        if (t < from) continue;
        // Every row is listed with the digest of its bytes: one that does not rebuild the digest
        // it is kept under is damage, never listed under a digest the server did not sign.
        const bytes = this.rebuild(Number(row.set_id), tail);
        const digest =
          bytes === undefined ? undefined : sha256(bytes.subarray(0, bytes.length - 64));
        if (bytes === undefined || digest === undefined || keyOf(digest) !== row.key) {
          throw damagedRow(row.key);
        }
        decisions.push({ digest, t, bytes });
        if (decisions.length === limit) {
          return { decisions, next: { t: BigInt(cursor.t), xid: 0n, id: cursor.id } };
        }
      }
      if (rows.length < limit) return { decisions, next: null };
    }
  }

  /**
   * In (t, id) order, as {@link listDecisionsSync}, each page read at once (a read transaction of
   * its own); the sets read once per call, shared by their decisions.
   */
  async *readDecisions(from: bigint, to: bigint, page = 4096): AsyncIterable<KeptDecision[]> {
    if (!Number.isSafeInteger(page) || page < 1) throw new RangeError('readDecisions: page');
    const sets = new Map<number, Uint8Array | undefined>();
    let cursor = { t: clampU64(from < 0n ? 0n : from), id: 0 };
    for (;;) {
      const rows = this.s.keptAfter.all(cursor.t, cursor.t, cursor.id, page) as KeptRow[];
      const out: KeptDecision[] = [];
      let done = rows.length < page;
      for (const row of rows) {
        cursor = { t: row.t, id: row.id };
        const tail = asBytes(row.tail);
        if (tail.length < 8) continue;
        const t = new DataView(tail.buffer, tail.byteOffset, 8).getBigUint64(0, true);
        if (t >= to) {
          done = true;
          break;
        }
        if (t < from) continue;
        let set = sets.get(row.set_id);
        if (!sets.has(row.set_id)) {
          const b = this.s.getSet.get(row.set_id) as Buffer | undefined;
          set = b === undefined ? undefined : asBytes(b);
          sets.set(row.set_id, set);
        }
        // A decision whose set is gone (pruned under the read) is not one the store keeps.
        if (set !== undefined) out.push({ t, set, tail, instance: row.instance });
      }
      if (out.length > 0) yield out;
      if (done) return;
    }
  }
}

/** A row of `keptAfter`. */
interface KeptRow {
  readonly id: number;
  readonly set_id: number;
  readonly tail: Buffer;
  readonly t: number;
  readonly instance: number | null;
}

function statements(db: Database.Database) {
  return {
    insertSet: db.prepare(
      'INSERT INTO sets (first_decision, last_t, min_start, body) VALUES (?, ?, ?, ?)',
    ),
    touchSet: db.prepare('UPDATE sets SET last_t = ? WHERE id = ?'),
    getSet: db.prepare('SELECT body FROM sets WHERE id = ?').pluck(),
    nextDecisionId: db.prepare('SELECT coalesce(max(id), 0) + 1 FROM decisions').pluck(),
    insertDecision: db.prepare(
      'INSERT INTO decisions (key, set_id, tail, t, instance) VALUES (?, ?, ?, ?, ?)',
    ),
    insertPending: db.prepare('INSERT INTO log_pending (entries) VALUES (?)'),
    // In (t, id) order after the cursor (t, id): the index's range on t, then the rows of the
    // cursor's own t that come before it filtered out.
    // Safe integers: the key is a full signed 64-bit integer.
    decisionsAfter: db
      .prepare(
        `SELECT id, key, set_id, tail, t FROM decisions WHERE t >= ? AND (t > ? OR id > ?)
         ORDER BY t, id LIMIT ?`,
      )
      .safeIntegers(true),
    // The same order, as kept (the rebuild at start reads a page at a time).
    keptAfter: db.prepare(
      `SELECT id, set_id, tail, t, instance FROM decisions WHERE t >= ? AND (t > ? OR id > ?)
         ORDER BY t, id LIMIT ?`,
    ),
  };
}
