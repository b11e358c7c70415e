/**
 * The shared store's decisions (`sets`, `decisions`) and its group commit: the compact form of
 * `../compact.ts`. A set is keyed by the SHA-256 of its body, so instances deciding over the same
 * window share its row. A decision row holds its tail and the first 8 bytes of its digest; a read
 * rebuilds each row of that key and returns the bytes whose SHA-256 is the digest asked for.
 * `decisions` is partitioned by day of `t`, created ahead (`schema.ts`); retention drops whole
 * days (`retention.ts`).
 *
 * The group commit is one transaction on the writer's connection (`context.ts`): the batch's
 * records (`records.ts`), its sets, its decisions and their pending entries of the decision log
 * (one row a commit).
 */
import type pg from 'pg';
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
import { byteaArray, int8Array } from './binary.js';
import {
  asBytes,
  buf,
  clamp,
  equal,
  INT8_MAX,
  type PgContext,
  sha256,
  tailTime,
} from './context.js';
import type { PgRecords } from './records.js';

/** The digests an evidence set names (§7.1 chunks after room, signer, policy and m). */
function namedDigests(set: Uint8Array): Buffer[] {
  const out: Buffer[] = [];
  const m = set[96] ?? 0;
  let s = 97;
  for (let p = 0; p < m; p++) {
    const k = set[s + 34] ?? 0;
    for (let j = 0; j < k; j++) out.push(buf(set.subarray(s + 35 + 32 * j, s + 67 + 32 * j)));
    s += 35 + 32 * k;
  }
  return out;
}

/** A decision's bytes from its set and tail; `undefined` when its set is gone or they do not join. */
function rebuild(body: Buffer | null, tail: Buffer): Uint8Array | undefined {
  if (body === null) return undefined;
  try {
    return joinDecision(asBytes(body), asBytes(tail));
  } catch {
    return undefined;
  }
}

/**
 * Merges the pending list of the decisions' key index (schema 6: each partition's GIN index, fast
 * update) into the index, in sorted batches, off the group commit: the log's integrator calls it
 * after each integration (once a `log.interval` in one instance), so that a lookup's scan of the
 * list stays short and no commit finds it past its limit. Autovacuum merges it too.
 */
export async function mergeDecisionKeys(c: pg.ClientBase): Promise<void> {
  await c.query({
    name: 'wai_merge_keys',
    text: `SELECT gin_clean_pending_list(i.inhrelid::regclass) FROM pg_inherits i
           WHERE i.inhparent = 'decisions_key'::regclass`,
  });
}

/** The stale current set of an instance was pruned under it: the batch is written again. */
class SetGone extends Error {}

/**
 * How far (µs) a set's stored `last_t` may lag the latest `t` of its decisions: a group commit
 * moves it only when one of its decisions is this much later than what this instance last wrote
 * there, and otherwise only locks the row (`FOR KEY SHARE`, against retention's delete). Updated
 * at every commit, the one row of the current set took a new version a commit (a thousand a
 * second), dead until a vacuum, and each commit's update walked the versions before it: the
 * database's CPU a decision grew from 29 to 118 µs in a minute of load (docs/performance.md,
 * *PostgreSQL's CPU a decision*). Retention (`retention.ts`) and the newest decision
 * (`health.ts`) allow for the lag and stay exact.
 */
export const LAST_T_LAG_US = 1_000_000n;

/** What the group commit's statement raises when a set it names is gone (migration 5). */
const SET_GONE = 'WAI01';

/** A batch's decisions as rows, and the evidence sets they use (`PgDecisions.rows`). */
interface Rows {
  readonly t: bigint[];
  readonly key: bigint[];
  /** Each decision's set: an index into `sets`. */
  readonly set: number[];
  readonly tail: Uint8Array[];
  /**
   * The sets, in their first decision's order, with that decision's `t`; `id` undefined: not
   * written yet.
   */
  readonly sets: { body: Uint8Array; id: bigint | undefined; t?: bigint }[];
  /** The decision log's pending entries of the batch: one row, in the batch's order. */
  readonly entries: Buffer;
}

export class PgDecisions implements DecisionStore {
  /** The latest evidence set this instance used: decisions that repeat it reuse its row. */
  private current: { id: bigint; body: Uint8Array } | undefined;
  /** Each set's `last_t` as this instance last wrote it (the stored one is at least that). */
  private readonly lastWritten = new Map<bigint, bigint>();

  constructor(
    private readonly ctx: PgContext,
    private readonly records: PgRecords,
  ) {}

  /** Sets were pruned: the current one may be gone (the next decision writes it again). */
  forgetCurrent(): void {
    this.current = undefined;
    this.lastWritten.clear();
  }

  async commit(batch: CommitBatch): Promise<CommitResult> {
    // A writer whose connection broke (the database restarted, a network cut) is replaced: the
    // batch that failed with it was answered as failed; this one goes on a new connection.
    if (this.ctx.writerBroken()) {
      await this.ctx.reconnectWriter();
      this.current = undefined;
    }
    try {
      return await this.write(batch);
    } catch (e) {
      // The current set is the one the transaction may have written (or one pruned since); what
      // this instance wrote of last_t may have been rolled back with it.
      this.current = undefined;
      this.lastWritten.clear();
      // Written again once: after its set was pruned, or a deadlock with another instance's
      // commit over the same sets (40P01: the database chose this one to abort).
      if (e instanceof SetGone || (e as { code?: string }).code === '40P01') {
        return this.write(batch);
      }
      throw e;
    }
  }

  /**
   * One group commit. A batch of decisions over sets the store holds, or of records alone, is
   * one statement, committed on its own: one round trip. A batch that writes a new set first
   * (the window moved) or both records and decisions is a transaction of a few.
   */
  private async write(batch: CommitBatch): Promise<CommitResult> {
    const w = this.ctx.writer;
    const rows = batch.decisions.length > 0 ? this.rows(batch) : undefined;
    if (
      rows === undefined ||
      (batch.records.length === 0 && rows.sets.every((s) => s.id !== undefined))
    ) {
      const inserted = batch.records.length > 0 ? await this.records.write(w, batch.records) : [];
      if (rows !== undefined) await this.insert(rows);
      return { inserted };
    }
    await w.query('BEGIN');
    try {
      const inserted = batch.records.length > 0 ? await this.records.write(w, batch.records) : [];
      for (const set of rows.sets) {
        if (set.id !== undefined) continue;
        const { rows: made } = await w.query<{ id: string }>(
          `INSERT INTO sets (digest, last_t, min_start, body)
           VALUES ($1, $2, coalesce((SELECT min(start) FROM records WHERE digest = ANY($3::bytea[])), $4), $5)
           ON CONFLICT (digest) DO UPDATE SET last_t = greatest(sets.last_t, EXCLUDED.last_t)
           RETURNING id`,
          [sha256(set.body), set.t, namedDigests(set.body), INT8_MAX, buf(set.body)],
        );
        set.id = BigInt(made[0]!.id);
        // Written at least this far by the insert (or by the row it met).
        this.lastWritten.set(set.id, set.t ?? 0n);
      }
      await this.insert(rows);
      await w.query('COMMIT');
      return { inserted };
    } catch (e) {
      await w.query('ROLLBACK').catch(() => {});
      throw e;
    }
  }

  /**
   * The batch's decisions as rows: each one's `t`, key, tail (cut against the set before it)
   * and set; the sets they use, the current one first when they do. No I/O.
   */
  private rows(batch: CommitBatch): Rows {
    const n = batch.decisions.length;
    const rows: Rows = {
      t: new Array<bigint>(n),
      key: new Array<bigint>(n),
      set: new Array<number>(n),
      tail: new Array<Uint8Array>(n),
      sets: [],
      entries: Buffer.alloc(ENTRY * n),
    };
    let cur: Rows['sets'][number] | undefined = this.current;
    let scratch = new Uint8Array(4096);
    batch.decisions.forEach((d, i) => {
      let tail: Uint8Array;
      let set: Uint8Array | undefined;
      if ('tail' in d) {
        tail = d.tail;
        set =
          cur !== undefined && (cur.body === d.set || equal(cur.body, d.set)) ? undefined : d.set;
        if (set === undefined && cur !== undefined) cur.body = d.set;
      } else {
        if (scratch.length < d.bytes.length) scratch = new Uint8Array(d.bytes.length);
        const known = d.set !== undefined && d.set === cur?.body;
        const cut = splitAgainst(d.bytes, cur?.body, scratch, known);
        tail = scratch.slice(0, cut.tailLength);
        set = cut.set;
      }
      const t = clamp(tailTime(tail));
      if (set !== undefined || cur === undefined) {
        const body = set ?? (d as { set: Uint8Array }).set;
        const same = d.set !== undefined && equal(d.set, body);
        cur = { id: undefined, body: same ? d.set! : body, t };
        rows.sets.push(cur);
      } else if (rows.sets.at(-1) !== cur) rows.sets.push(cur);
      rows.set[i] = rows.sets.length - 1;
      rows.t[i] = t;
      rows.key[i] = keyOf(d.digest);
      rows.tail[i] = tail;
      rows.entries.set(tail.subarray(0, 8), ENTRY * i);
      rows.entries.set(d.digest, ENTRY * i + 8);
    });
    return rows;
  }

  /**
   * The decisions, their pending entries of the log and their sets' latest `t`, in one
   * statement; a set it names that is gone (pruned since this instance last used it) raises
   * {@link SET_GONE}, and nothing of it is written.
   */
  private async insert(rows: Rows): Promise<void> {
    const lastT = new Map<bigint, bigint>();
    const setIds = rows.set.map((k, i) => {
      const id = rows.sets[k]!.id!;
      const prev = lastT.get(id);
      if (prev === undefined || rows.t[i]! > prev) lastT.set(id, rows.t[i]!);
      return id;
    });
    // The sets whose last_t moves (one of the batch's decisions is LAST_T_LAG_US past what this
    // instance last wrote there, or it never wrote it), and those only locked.
    const moved: bigint[] = [];
    const held: bigint[] = [];
    for (const [id, t] of lastT) {
      const written = this.lastWritten.get(id);
      if (written === undefined || t >= written + LAST_T_LAG_US) moved.push(id);
      else held.push(id);
    }
    try {
      // The decisions' ids in the batch's order (WITH ORDINALITY), as their pending entries:
      // equal t are listed in the log's order. A named statement: parsed and planned once per
      // connection, not once per commit.
      await this.ctx.writer.query({
        name: 'wai_commit_decisions_2',
        text: `WITH ins AS (
           INSERT INTO decisions (t, key, set_id, tail)
           SELECT t, key, set_id, tail
           FROM unnest($1::int8[], $2::int8[], $3::int8[], $4::bytea[])
             WITH ORDINALITY AS u(t, key, set_id, tail, n)
           ORDER BY n
         ), pend AS (
           INSERT INTO log_pending (entries) VALUES ($7::bytea)
         ), upd AS (
           UPDATE sets SET last_t = greatest(sets.last_t, v.t)
           FROM unnest($5::int8[], $6::int8[]) AS v(id, t) WHERE sets.id = v.id
           RETURNING sets.id
         ), held AS (
           -- Locked, not updated: no new row version (the two lists are disjoint).
           SELECT id FROM sets WHERE id = ANY($8::int8[]) FOR KEY SHARE
         )
         SELECT wai_set_gone()
         FROM (SELECT (SELECT count(*) FROM upd) + (SELECT count(*) FROM held) AS n) c
         WHERE c.n <> cardinality($5::int8[]) + cardinality($8::int8[])`,
        values: [
          int8Array(rows.t),
          int8Array(rows.key),
          int8Array(setIds),
          byteaArray(rows.tail),
          int8Array(moved),
          int8Array(moved.map((i) => lastT.get(i)!)),
          rows.entries,
          int8Array(held),
        ],
      });
      for (const id of moved) {
        const t = lastT.get(id)!;
        if (t > (this.lastWritten.get(id) ?? -1n)) this.lastWritten.set(id, t);
      }
    } catch (e) {
      if ((e as { code?: string }).code === SET_GONE) throw new SetGone();
      throw e;
    }
    const last = rows.sets.at(-1)!;
    this.current = { id: last.id!, body: last.body };
  }

  async getDecision(digest: Uint8Array): Promise<Uint8Array | undefined> {
    if (digest.length !== 32) return undefined;
    const key = keyOf(digest);
    const { rows } = await this.ctx.pool.query<{ body: Buffer | null; tail: Buffer }>(
      `SELECT s.body, d.tail FROM decisions d LEFT JOIN sets s ON s.id = d.set_id
       WHERE ARRAY[d.key] @> ARRAY[$1::int8] AND d.key = $1`,
      [key],
    );
    // A row of this key whose bytes do not rebuild a digest of this key is damage (its set gone
    // included); one that rebuilds another digest of the key is another decision.
    let damaged = false;
    for (const row of rows) {
      const bytes = rebuild(row.body, row.tail);
      if (bytes === undefined) {
        damaged = true;
        continue;
      }
      // Served only when it hashes to the digest asked for (§7.3).
      const d = sha256(bytes.subarray(0, bytes.length - 64));
      if (equal(d, digest)) return bytes;
      if (keyOf(d) !== key) damaged = true;
    }
    if (damaged) throw new StoreDamagedError('decision', buf(digest).toString('hex'));
    return undefined;
  }

  /**
   * The decisions with `from` ≤ `t` < `to` (µs) in ascending `t`, equal `t` in the decision
   * log's order (the committing transaction, then the row id: the order the log takes their
   * pending entries in), at most `limit`, after the cursor `after`; `next` is the cursor of the
   * next page, `null` after the last. Each is rebuilt and its digest computed from its bytes.
   */
  async listDecisions(
    from: bigint,
    to: bigint,
    after: DecisionCursor | null,
    limit: number,
  ): Promise<DecisionPage> {
    if (
      after !== null &&
      (!Number.isSafeInteger(after.id) || after.id < 0 || after.t < 0n || after.xid < 0n)
    ) {
      throw new RangeError('listDecisions: after');
    }
    if (!Number.isSafeInteger(limit) || limit < 1) throw new RangeError('listDecisions: limit');
    // In (t, xid, id) order after the cursor, on the index (t, xid, id): the last decision
    // listed, or just before the first at `from`.
    const start = clamp(from);
    const cursor =
      after === null || clamp(after.t) < start
        ? { t: start, xid: 0n, id: 0 }
        : { t: clamp(after.t), xid: after.xid, id: after.id };
    // `t` past the column's range is clamped there (the bytes are exact): such rows are kept
    // by the bound and sorted out by their bytes.
    const { rows } = await this.ctx.pool.query<{
      id: string;
      t: string;
      xid: string;
      key: string;
      body: Buffer | null;
      tail: Buffer;
    }>(
      `SELECT d.id, d.t, d.xid::text AS xid, d.key::text AS key, s.body, d.tail
       FROM decisions d LEFT JOIN sets s ON s.id = d.set_id
       WHERE ${to > INT8_MAX ? 'd.t <= $1' : 'd.t < $1'}
         AND (d.t, d.xid, d.id) > ($2::int8, $3::xid8, $4::int8)
       ORDER BY d.t, d.xid, d.id LIMIT $5`,
      [clamp(to), cursor.t, cursor.xid.toString(), cursor.id, limit],
    );
    const decisions: ListedDecision[] = [];
    let next: DecisionCursor | null = null;
    for (const r of rows) {
      const t = tailTime(asBytes(r.tail));
      if (t >= to) return { decisions, next: null };
      next = { t: BigInt(r.t), xid: BigInt(r.xid), id: Number(r.id) };
      if (t < from) continue;
      // Listed with the digest of its bytes: a row that does not rebuild the digest it is kept
      // under is damage, never listed under a digest the server did not sign.
      const bytes = rebuild(r.body, r.tail);
      const digest = bytes === undefined ? undefined : sha256(bytes.subarray(0, bytes.length - 64));
      if (bytes === undefined || digest === undefined || keyOf(digest) !== BigInt(r.key)) {
        const k = Buffer.alloc(8);
        k.writeBigInt64BE(BigInt(r.key));
        throw new StoreDamagedError('decision', `${k.toString('hex')}…`);
      }
      decisions.push({ digest: asBytes(digest), t, bytes });
    }
    return { decisions, next: rows.length === limit ? next : null };
  }

  /**
   * In (t, xid, id) order, as {@link listDecisions}, a page a query on the readers' pool; each
   * set read once per call (by id, a query for the sets a page names first), shared by its
   * decisions.
   */
  async *readDecisions(from: bigint, to: bigint, page = 4096): AsyncIterable<KeptDecision[]> {
    if (!Number.isSafeInteger(page) || page < 1) throw new RangeError('readDecisions: page');
    const sets = new Map<string, Uint8Array | undefined>();
    let cursor = { t: clamp(from), xid: '0', id: '0' };
    for (;;) {
      const { rows } = await this.ctx.pool.query<{
        id: string;
        t: string;
        xid: string;
        set_id: string;
        tail: Buffer;
        instance: number | null;
      }>(
        `SELECT d.id, d.t, d.xid::text AS xid, d.set_id, d.tail, d.instance FROM decisions d
         WHERE ${to > INT8_MAX ? 'd.t <= $1' : 'd.t < $1'}
           AND (d.t, d.xid, d.id) > ($2::int8, $3::xid8, $4::int8)
         ORDER BY d.t, d.xid, d.id LIMIT $5`,
        [clamp(to), cursor.t, cursor.xid, cursor.id, page],
      );
      const wanted = [...new Set(rows.map((r) => r.set_id))].filter((id) => !sets.has(id));
      if (wanted.length > 0) {
        const got = await this.ctx.pool.query<{ id: string; body: Buffer }>(
          'SELECT id, body FROM sets WHERE id = ANY($1::int8[])',
          [wanted],
        );
        for (const id of wanted) sets.set(id, undefined);
        for (const r of got.rows) sets.set(r.id, asBytes(r.body));
      }
      const out: KeptDecision[] = [];
      let done = rows.length < page;
      for (const r of rows) {
        cursor = { t: BigInt(r.t), xid: r.xid, id: r.id };
        const tail = asBytes(r.tail);
        if (tail.length < 8) continue;
        const t = tailTime(tail);
        if (t >= to) {
          done = true;
          break;
        }
        if (t < from) continue;
        const set = sets.get(r.set_id);
        // A decision whose set is gone (pruned under the read) is not one the store keeps.
        if (set !== undefined) out.push({ t, set, tail, instance: r.instance });
      }
      if (out.length > 0) yield out;
      if (done) return;
    }
  }
}
