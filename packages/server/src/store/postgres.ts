/**
 * The shared store: PostgreSQL through `pg`, for several instances (or worker processes) of one
 * deployment. Plain SQL that PostgreSQL 15 runs; the schema is `pg-migrations.ts`.
 *
 * - `records`: as in SQLite, plus the inserting transaction's id (`xid8`): the catch-up query of
 *   {@link PgStore.recordsSince} reads what was committed since a snapshot's `xmin`, so that a
 *   record is never missed however the instances' transactions interleave.
 * - `sets` and `decisions`: the compact form of `compact.ts`. A set is keyed by the SHA-256 of its
 *   body, so instances deciding over the same window share its row. A decision row holds its tail
 *   and the first 8 bytes of its digest; `getDecision` rebuilds each row of that key and returns
 *   the bytes whose SHA-256 is the digest asked for. `decisions` is partitioned by day of `t`,
 *   created ahead; retention drops whole days.
 * - `blobs`: policies, room descriptors, key log heads.
 * - `instance_loads`: each instance's published loads (`loads.ts`).
 *
 * Durability: one transaction per group commit, `synchronous_commit = on` on the writer's
 * connection, so that a commit that returned is on the database's disk (and its standbys', where
 * the database is so configured) whatever then happens to this process.
 *
 * Connections: one writer (replaced when it breaks), a pool of readers, and one that listens
 * (listened again a second after it breaks). The file is one cohesive thing over 450 lines: the
 * writes, reads, pruning and notifications share the connections and the compact form.
 *
 * Notifications: a commit that inserts records notifies `wai_records` (payload: the digest in
 * hex) and a new blob `wai_blobs` (`kind:hex`), inside its transaction, so a listener hears of a
 * row only once it is visible.
 */
import { hash } from 'node:crypto';
import pg from 'pg';
import { describeError, type FaultSink } from '../health.js';
import { joinDecision, splitAgainst } from './compact.js';
import { migrate, SCHEMA_LOCK } from './pg-migrations.js';
import {
  type BlobKind,
  type CommitBatch,
  type CommitResult,
  type DecisionCursor,
  type DecisionPage,
  type ListedDecision,
  type LogEntryRow,
  type LogHead,
  type LogIntegrated,
  type LogPlan,
  type LogPlanInput,
  POLICY_LAG_US,
  type PolicyClaim,
  type PruneResult,
  type SteeringStore,
  StoreDamagedError,
  type StoredCapacityReport,
  type StoredCheckpoint,
  type StoredRecord,
  type StoreStats,
} from './store.js';

/** Options of {@link PgStore.open}. */
export interface PgStoreOptions {
  /** Connections for reads (decisions, records and blobs served by digest); default 4. */
  readonly readers?: number;
  /** Days of partitions created ahead of today (and one behind); default 3. */
  readonly daysAhead?: number;
}

/** A notification of the store: a record or a blob another connection committed. */
export type StoreNotice =
  | { readonly kind: 'record'; readonly digest: Uint8Array }
  | { readonly kind: 'blob'; readonly blob: BlobKind; readonly digest: Uint8Array }
  /** A capacity report kept, or a policy put in force, for the room of that id. */
  | { readonly kind: 'live'; readonly what: 'capacity' | 'policy'; readonly room: Uint8Array }
  /** Listening again after the connection failed: notifications may have been missed. */
  | { readonly kind: 'listening' };

const DAY_US = 86_400_000_000n;
const INT8_MAX = (1n << 63n) - 1n;
/** The decision log's entry of a decision: `t` (its tail's first 8 bytes), then its digest. */
const ENTRY = 40;
/** A u64 in a signed 64-bit column, exactly (two's complement): the log's `t`. */
const asInt64 = (v: bigint): string => BigInt.asIntN(64, v).toString();
const asU64 = (v: string): bigint => BigInt.asUintN(64, BigInt(v));

const clamp = (v: bigint): bigint => (v > INT8_MAX ? INT8_MAX : v < 0n ? 0n : v);
const sha256 = (b: Uint8Array): Buffer => hash('sha256', b, 'buffer');
const equal = (a: Uint8Array, b: Uint8Array): boolean =>
  a.length === b.length && Buffer.compare(a, b) === 0;
const asBytes = (b: Buffer): Uint8Array => new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
const buf = (b: Uint8Array): Buffer => Buffer.from(b.buffer, b.byteOffset, b.byteLength);

/** The first 8 bytes of a digest as a signed 64-bit integer: the decisions' lookup key. */
function keyOf(digest: Uint8Array): bigint {
  return new DataView(digest.buffer, digest.byteOffset, 8).getBigInt64(0, false);
}

/** `t` of a tail (its first 8 bytes, u64 little-endian), µs. */
function tailTime(tail: Uint8Array): bigint {
  return new DataView(tail.buffer, tail.byteOffset, 8).getBigUint64(0, true);
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

function recordOf(row: { digest: Buffer; hop: Buffer; bytes: Buffer }): StoredRecord {
  const bytes = asBytes(row.bytes);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return {
    digest: asBytes(row.digest),
    hop: asBytes(row.hop),
    bytes,
    start: view.getBigUint64(69, true),
    end: view.getBigUint64(77, true),
  };
}

/** The decision log's head row, as read. */
interface HeadRow {
  origin: string;
  size: string;
  root: Buffer;
  min_index: string;
}
const HEAD =
  'SELECT origin, size::text AS size, root, min_index::text AS min_index FROM log_head WHERE id = 1';
function headOf(r: HeadRow): LogHead {
  return {
    origin: r.origin,
    size: BigInt(r.size),
    root: asBytes(r.root),
    minIndex: BigInt(r.min_index),
  };
}

interface CheckpointRow {
  size: string;
  issued: string;
  text: string;
}
/** (Ordered by `log_checkpoints.size`: `size` alone would be the text column of the output.) */
const CHECKPOINTS = 'SELECT size::text AS size, issued::text AS issued, text FROM log_checkpoints';
function checkpointOf(r: CheckpointRow): StoredCheckpoint {
  return { size: BigInt(r.size), issued: asU64(r.issued), text: r.text };
}

/** The entries of an entry bundle the log wrote (big-endian u16 lengths, 40 bytes each). */
function bundleEntries(data: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let at = 0; at + 2 + ENTRY <= data.length; at += 2 + ENTRY) {
    out.push(data.subarray(at + 2, at + 2 + ENTRY));
  }
  return out;
}

/** The name of the partition of day `day` (days since the epoch). */
const partitionName = (day: bigint): string => `decisions_d${day}`;

/** The stale current set of an instance was pruned under it: the batch is written again. */
class SetGone extends Error {}

export class PgStore implements SteeringStore {
  /** The latest evidence set this instance used: decisions that repeat it reuse its row. */
  private current: { id: string; body: Uint8Array } | undefined;
  private readonly days = new Set<bigint>();
  private listener: pg.Client | undefined;
  private readonly listeners = new Set<(n: StoreNotice) => void>();
  private closed = false;
  /** Where the connections' faults are told (the server's health); nowhere until told. */
  private faults: FaultSink = { fail() {}, clear() {} };

  private constructor(
    readonly url: string,
    private writer: pg.Client,
    private readonly pool: pg.Pool,
    private readonly daysAhead: number,
  ) {}

  /**
   * Tells the faults of the store's connections to `sink` (`health.ts`): a connection of the pool
   * dropped (`store_queries`), the listening connection down and listening again
   * (`store_notifications`). Each is told as it happens; the sink logs a state change once.
   */
  reportFaultsTo(sink: FaultSink): void {
    this.faults = sink;
  }

  /** Connects, applies the migrations the database lacks, creates the partitions ahead. */
  static async open(url: string, options: PgStoreOptions = {}): Promise<PgStore> {
    const where = redact(url);
    let writer: pg.Client;
    try {
      writer = await connectWriter(url);
    } catch (e) {
      throw new Error(`${where}: cannot connect (${(e as Error).message})`);
    }
    const pool = new pg.Pool({ connectionString: url, max: options.readers ?? 4 });
    const store = new PgStore(url, writer, pool, options.daysAhead ?? 3);
    // An idle connection of the pool that drops (the database restarted): the pool opens
    // another at the next query; told once until a query works again.
    pool.on('error', (e) =>
      store.faults.fail('store_queries', `a connection of the store dropped: ${describeError(e)}`),
    );
    try {
      await migrate(writer, where);
      await store.maintain(BigInt(Date.now()) * 1000n);
    } catch (e) {
      await store.close();
      throw e;
    }
    return store;
  }

  /**
   * Creates the daily partitions of `decisions` from the day before `nowUs` to `daysAhead` days
   * after it (idempotent; under the schema lock, so instances do not race). A day whose range
   * already has rows in the default partition is left to it.
   */
  async maintain(nowUs: bigint): Promise<void> {
    const today = nowUs / DAY_US;
    const wanted: bigint[] = [];
    for (let d = today - 1n; d <= today + BigInt(this.daysAhead); d++) {
      if (d >= 0n && !this.days.has(d)) wanted.push(d);
    }
    if (wanted.length === 0) return;
    const c = await this.hold();
    try {
      await c.query('BEGIN');
      await c.query('SELECT pg_advisory_xact_lock($1)', [SCHEMA_LOCK]);
      for (const d of wanted) {
        await c.query('SAVEPOINT p');
        try {
          await c.query(
            `CREATE TABLE IF NOT EXISTS ${partitionName(d)} PARTITION OF decisions
               FOR VALUES FROM (${d * DAY_US}) TO (${(d + 1n) * DAY_US})`,
          );
          await c.query('RELEASE SAVEPOINT p');
          this.days.add(d);
        } catch {
          // 23514: the default partition holds decisions of that day; they stay there.
          await c.query('ROLLBACK TO SAVEPOINT p');
        }
      }
      await c.query('COMMIT');
    } catch (e) {
      await c.query('ROLLBACK').catch(() => {});
      throw e;
    } finally {
      c.release();
    }
  }

  async commit(batch: CommitBatch): Promise<CommitResult> {
    // A writer whose connection broke (the database restarted, a network cut) is replaced: the
    // batch that failed with it was answered as failed; this one goes on a new connection.
    if (broken.has(this.writer) && !this.closed) {
      this.writer.end().catch(() => {});
      this.writer = await connectWriter(this.url);
      this.current = undefined;
    }
    try {
      return await this.write(batch);
    } catch (e) {
      // The current set is the one the transaction may have written (or one pruned since).
      this.current = undefined;
      // Written again once: after its set was pruned, or a deadlock with another instance's
      // commit over the same sets (40P01: the database chose this one to abort).
      if (e instanceof SetGone || (e as { code?: string }).code === '40P01') {
        return this.write(batch);
      }
      throw e;
    }
  }

  private async write(batch: CommitBatch): Promise<CommitResult> {
    const w = this.writer;
    await w.query('BEGIN');
    try {
      const inserted: boolean[] = [];
      if (batch.records.length > 0) {
        const r = batch.records;
        const { rows } = await w.query<{ digest: Buffer }>(
          `WITH ins AS (
             INSERT INTO records (digest, hop, start, "end", bytes)
             SELECT * FROM unnest($1::bytea[], $2::bytea[], $3::int8[], $4::int8[], $5::bytea[])
             ON CONFLICT (digest) DO NOTHING
             RETURNING digest
           )
           SELECT digest, pg_notify('wai_records', encode(digest, 'hex')) FROM ins`,
          [
            r.map((x) => buf(x.digest)),
            r.map((x) => buf(x.hop)),
            r.map((x) => clamp(x.start)),
            r.map((x) => clamp(x.end)),
            r.map((x) => buf(x.bytes)),
          ],
        );
        const fresh = new Set(rows.map((x) => x.digest.toString('hex')));
        for (const x of r) {
          const hex = buf(x.digest).toString('hex');
          inserted.push(fresh.delete(hex)); // a digest twice in a batch is new once
        }
      }
      if (batch.decisions.length > 0) await this.writeDecisions(batch);
      await w.query('COMMIT');
      return { inserted };
    } catch (e) {
      await w.query('ROLLBACK').catch(() => {});
      throw e;
    }
  }

  private async writeDecisions(batch: CommitBatch): Promise<void> {
    const w = this.writer;
    const ts: bigint[] = [];
    const keys: bigint[] = [];
    const setIds: string[] = [];
    const tails: Buffer[] = [];
    const lastT = new Map<string, bigint>();
    let scratch = new Uint8Array(4096);
    // The decision log's pending entries of the batch: one row, in the batch's order.
    const entries = Buffer.alloc(ENTRY * batch.decisions.length);
    for (const d of batch.decisions) {
      let tail: Uint8Array;
      let set: Uint8Array | undefined;
      const cur = this.current;
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
        const { rows } = await w.query<{ id: string }>(
          `INSERT INTO sets (digest, last_t, min_start, body)
           VALUES ($1, $2, coalesce((SELECT min(start) FROM records WHERE digest = ANY($3::bytea[])), $4), $5)
           ON CONFLICT (digest) DO UPDATE SET last_t = greatest(sets.last_t, EXCLUDED.last_t)
           RETURNING id`,
          [sha256(body), t, namedDigests(body), INT8_MAX, buf(body)],
        );
        this.current = {
          id: rows[0]!.id,
          body: d.set !== undefined && equal(d.set, body) ? d.set : body,
        };
      }
      const id = this.current!.id;
      entries.set(tail.subarray(0, 8), ENTRY * ts.length);
      entries.set(d.digest, ENTRY * ts.length + 8);
      ts.push(t);
      keys.push(keyOf(d.digest));
      setIds.push(id);
      tails.push(buf(tail));
      const prev = lastT.get(id);
      if (prev === undefined || t > prev) lastT.set(id, t);
    }
    const ids = [...lastT.keys()];
    // The decisions' ids in the batch's order (WITH ORDINALITY), as their pending entries: equal
    // t are listed in the log's order. A named statement: parsed and planned once per
    // connection, not once per commit.
    const res = await w.query({
      name: 'wai_insert_decisions',
      text: `WITH ins AS (
         INSERT INTO decisions (t, key, set_id, tail)
         SELECT t, key, set_id, tail
         FROM unnest($1::int8[], $2::int8[], $3::int8[], $4::bytea[])
           WITH ORDINALITY AS u(t, key, set_id, tail, n)
         ORDER BY n
       ), pend AS (
         INSERT INTO log_pending (entries) SELECT $7::bytea WHERE $7::bytea IS NOT NULL
       )
       UPDATE sets SET last_t = greatest(sets.last_t, v.t)
       FROM unnest($5::int8[], $6::int8[]) AS v(id, t) WHERE sets.id = v.id`,
      values: [ts, keys, setIds, tails, ids, ids.map((i) => lastT.get(i)!), entries],
    });
    // A set pruned since this instance last used it: written again with the batch.
    if (res.rowCount !== ids.length) throw new SetGone();
  }

  async getRecord(digest: Uint8Array): Promise<Uint8Array | undefined> {
    if (digest.length !== 32) return undefined;
    const { rows } = await this.pool.query<{ bytes: Buffer }>(
      'SELECT bytes FROM records WHERE digest = $1',
      [buf(digest)],
    );
    return rows[0] === undefined ? undefined : asBytes(rows[0].bytes);
  }

  async getDecision(digest: Uint8Array): Promise<Uint8Array | undefined> {
    if (digest.length !== 32) return undefined;
    const key = keyOf(digest);
    const { rows } = await this.pool.query<{ body: Buffer | null; tail: Buffer }>(
      'SELECT s.body, d.tail FROM decisions d LEFT JOIN sets s ON s.id = d.set_id WHERE d.key = $1',
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

  async *recordsEndingAfter(end: bigint): AsyncIterable<StoredRecord> {
    const { rows } = await this.pool.query<{ digest: Buffer; hop: Buffer; bytes: Buffer }>(
      'SELECT digest, hop, bytes FROM records WHERE "end" > $1 ORDER BY start',
      [clamp(end)],
    );
    for (const row of rows) yield recordOf(row);
  }

  /**
   * The catch-up query: records ending after `end` committed since `horizon` (a snapshot's
   * `xmin` this returned before; `undefined` for all), and the horizon of this read. Every
   * transaction below a snapshot's `xmin` is settled, so a record is read at least once by a
   * reader that passes each returned horizon to its next call, whatever the commit order.
   */
  async recordsSince(
    horizon: string | undefined,
    end: bigint,
  ): Promise<{ records: StoredRecord[]; horizon: string }> {
    const { rows } = await this.pool.query<{
      horizon: string;
      digest: Buffer | null;
      hop: Buffer | null;
      bytes: Buffer | null;
    }>(
      `WITH h AS (SELECT pg_snapshot_xmin(pg_current_snapshot()) AS x)
       SELECT h.x::text AS horizon, r.digest, r.hop, r.bytes
       FROM h LEFT JOIN records r ON r.xid >= $1::xid8 AND r."end" > $2
       ORDER BY r.start`,
      [horizon ?? '0', clamp(end)],
    );
    const records: StoredRecord[] = [];
    for (const row of rows) {
      if (row.digest !== null && row.hop !== null && row.bytes !== null) {
        records.push(recordOf({ digest: row.digest, hop: row.hop, bytes: row.bytes }));
      }
    }
    return { records, horizon: rows[0]!.horizon };
  }

  async putBlob(kind: BlobKind, digest: Uint8Array, bytes: Uint8Array): Promise<void> {
    await this.pool.query(
      `WITH ins AS (
         INSERT INTO blobs (kind, digest, bytes) VALUES ($1, $2, $3)
         ON CONFLICT (kind, digest) DO NOTHING RETURNING kind, digest
       )
       SELECT pg_notify('wai_blobs', kind || ':' || encode(digest, 'hex')) FROM ins`,
      [kind, buf(digest), buf(bytes)],
    );
  }

  async putCapacityReport(room: Uint8Array, r: StoredCapacityReport): Promise<boolean> {
    const { rows } = await this.pool.query(
      `WITH up AS (
         INSERT INTO capacity_reports (room, pathway, hop, t, jws) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (room, pathway, hop) DO UPDATE SET t = EXCLUDED.t, jws = EXCLUDED.jws
         WHERE capacity_reports.t < EXCLUDED.t
         RETURNING room
       )
       SELECT pg_notify('wai_live', 'capacity:' || encode(room, 'hex')) FROM up`,
      [buf(room), r.pathway, r.hop, String(clamp(r.t)), r.jws],
    );
    return rows.length === 1;
  }

  async capacityReports(room: Uint8Array): Promise<StoredCapacityReport[]> {
    const { rows } = await this.pool.query<{
      pathway: string;
      hop: string;
      t: string;
      jws: string;
    }>('SELECT pathway, hop, t::text AS t, jws FROM capacity_reports WHERE room = $1', [buf(room)]);
    return rows.map((r) => ({ pathway: r.pathway, hop: r.hop, t: BigInt(r.t), jws: r.jws }));
  }

  async claimPolicy(room: Uint8Array, c: PolicyClaim): Promise<boolean> {
    // One statement, so one transaction: the claim and the policy's bytes are seen together.
    const { rows } = await this.pool.query(
      `WITH claim AS (
         INSERT INTO policy_rotations (room, seq, digest, template, at, by)
         VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (room, seq) DO NOTHING RETURNING room
       ), blob AS (
         INSERT INTO blobs (kind, digest, bytes) SELECT 'policy', $3, $7 FROM claim
         ON CONFLICT (kind, digest) DO NOTHING
       )
       SELECT pg_notify('wai_live', 'policy:' || encode(room, 'hex')) FROM claim`,
      [buf(room), c.seq, buf(c.digest), buf(c.template), String(clamp(c.at)), c.by, buf(c.bytes)],
    );
    return rows.length === 1;
  }

  async policyInForce(room: Uint8Array): Promise<PolicyClaim | undefined> {
    const { rows } = await this.pool.query<{
      seq: string;
      digest: Buffer;
      template: Buffer;
      at: string;
      by: string;
      bytes: Buffer;
    }>(
      `SELECT r.seq::text AS seq, r.digest, r.template, r.at::text AS at, r.by, b.bytes
       FROM policy_rotations r JOIN blobs b ON b.kind = 'policy' AND b.digest = r.digest
       WHERE r.room = $1 ORDER BY r.seq DESC LIMIT 1`,
      [buf(room)],
    );
    const r = rows[0];
    if (r === undefined) return undefined;
    return {
      seq: Number(r.seq),
      digest: asBytes(r.digest),
      bytes: asBytes(r.bytes),
      template: asBytes(r.template),
      at: BigInt(r.at),
      by: r.by === 'live' ? 'live' : 'operator',
    };
  }

  async getBlob(kind: BlobKind, digest: Uint8Array): Promise<Uint8Array | undefined> {
    if (digest.length !== 32) return undefined;
    const { rows } = await this.pool.query<{ bytes: Buffer }>(
      'SELECT bytes FROM blobs WHERE kind = $1 AND digest = $2',
      [kind, buf(digest)],
    );
    return rows[0] === undefined ? undefined : asBytes(rows[0].bytes);
  }

  /** Every kept blob of a kind (policies, rooms, key log heads: a handful), by digest. */
  async listBlobs(kind: BlobKind): Promise<{ digest: Uint8Array; bytes: Uint8Array }[]> {
    const { rows } = await this.pool.query<{ digest: Buffer; bytes: Buffer }>(
      'SELECT digest, bytes FROM blobs WHERE kind = $1 ORDER BY digest',
      [kind],
    );
    return rows.map((r) => ({ digest: asBytes(r.digest), bytes: asBytes(r.bytes) }));
  }

  /** The key log heads kept, in no order (the start-up check of the configured head). */
  async keyLogHeads(): Promise<Uint8Array[]> {
    return (await this.listBlobs('key-log')).map((b) => b.bytes);
  }

  /**
   * The newest instants held, µs: the `t` of the decision committed last, and the latest `end`
   * of a record that ends at or before `notAfter`.
   */
  async newest(
    notAfter: bigint,
  ): Promise<{ decision: bigint | undefined; record: bigint | undefined }> {
    const { rows } = await this.pool.query<{ d: string | null; r: string | null }>(
      `SELECT (SELECT t FROM decisions ORDER BY id DESC LIMIT 1)::text AS d,
              (SELECT max("end") FROM records WHERE "end" <= $1)::text AS r`,
      [clamp(notAfter)],
    );
    const row = rows[0]!;
    return {
      decision: row.d === null ? undefined : BigInt(row.d),
      record: row.r === null ? undefined : BigInt(row.r),
    };
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
    const { rows } = await this.pool.query<{
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
   * Creates the partitions ahead, then removes decisions decided before `decisionsBefore`: the
   * daily partitions wholly before it are dropped, the default partition's rows deleted; then the evidence sets no kept decision
   * uses, and records ended before `recordsBefore` that no kept set names (§8.4).
   */
  async prune(recordsBefore: bigint, decisionsBefore: bigint): Promise<PruneResult> {
    // The days ahead, created at each pass (every `retention.sweep`).
    await this.maintain(BigInt(Date.now()) * 1000n);
    const before = clamp(decisionsBefore);
    const c = await this.hold();
    try {
      await c.query('BEGIN');
      await c.query('SELECT pg_advisory_xact_lock($1)', [SCHEMA_LOCK]);
      const { rows: parts } = await c.query<{ name: string }>(
        `SELECT c.relname AS name FROM pg_inherits i
           JOIN pg_class c ON c.oid = i.inhrelid
           JOIN pg_class p ON p.oid = i.inhparent
         WHERE p.relname = 'decisions' AND c.relname ~ '^decisions_d[0-9]+$'`,
      );
      let decisions = 0;
      let keptFrom: bigint | undefined;
      for (const { name } of parts) {
        const day = BigInt(name.slice('decisions_d'.length));
        if ((day + 1n) * DAY_US <= before) {
          const { rows } = await c.query<{ n: string }>(`SELECT count(*) AS n FROM ${name}`);
          decisions += Number(rows[0]!.n);
          await c.query(`DROP TABLE ${name}`);
          this.days.delete(day);
        } else {
          const { rows } = await c.query<{ t: string | null }>(
            `SELECT min(t)::text AS t FROM ${name}`,
          );
          const t = rows[0]!.t;
          if (t !== null && (keptFrom === undefined || BigInt(t) < keptFrom)) keptFrom = BigInt(t);
        }
      }
      const del = await c.query('DELETE FROM decisions_default WHERE t < $1', [before]);
      decisions += del.rowCount ?? 0;
      const { rows: dmin } = await c.query<{ t: string | null }>(
        'SELECT min(t)::text AS t FROM decisions_default',
      );
      if (dmin[0]!.t !== null && (keptFrom === undefined || BigInt(dmin[0]!.t) < keptFrom)) {
        keptFrom = BigInt(dmin[0]!.t);
      }
      // A set whose latest decision is before every kept decision is used by none.
      const setsDel = await c.query('DELETE FROM sets WHERE last_t < $1', [
        keptFrom === undefined ? INT8_MAX : keptFrom,
      ]);
      // §8.4: every record a set names starts at or after its min_start.
      const recs = await c.query(
        `DELETE FROM records WHERE "end" < $1
           AND "end" <= coalesce((SELECT min(min_start) FROM sets), $2)`,
        [clamp(recordsBefore), INT8_MAX],
      );
      // The order of policies, and the live policies no kept decision can name (§8.4): the
      // claims a later claim replaced more than POLICY_LAG_US before the oldest kept decision
      // (an instance lagging behind the order decides under a replaced policy for a second or
      // so), and the bytes of the live policies among them that no remaining claim names.
      const cut = (keptFrom ?? before) - POLICY_LAG_US;
      if (cut > 0n) {
        const { rows: gone } = await c.query<{ digest: Buffer; by: string }>(
          `DELETE FROM policy_rotations r USING policy_rotations n
           WHERE n.room = r.room AND n.seq = r.seq + 1 AND n.at < $1
           RETURNING r.digest, r.by`,
          [String(cut)],
        );
        const live = gone.filter((g) => g.by === 'live').map((g) => g.digest);
        if (live.length > 0) {
          await c.query(
            `DELETE FROM blobs b WHERE b.kind = 'policy' AND b.digest = ANY($1::bytea[])
               AND NOT EXISTS (SELECT 1 FROM policy_rotations k
                               WHERE k.digest = b.digest OR k.template = b.digest)`,
            [live],
          );
        }
      }
      await c.query('COMMIT');
      if ((setsDel.rowCount ?? 0) > 0) this.current = undefined;
      return { records: recs.rowCount ?? 0, decisions, sets: setsDel.rowCount ?? 0 };
    } catch (e) {
      await c.query('ROLLBACK').catch(() => {});
      throw e;
    } finally {
      c.release();
    }
  }

  // The decision log (`store.ts`, `LogReads` and `LogWrites`).

  async logHead(): Promise<LogHead | undefined> {
    const { rows } = await this.pool.query<HeadRow>(HEAD);
    return rows[0] === undefined ? undefined : headOf(rows[0]);
  }

  async beginLog(origin: string): Promise<string> {
    await this.pool.query(
      `INSERT INTO log_head (id, origin, size, root, min_index) VALUES (1, $1, 0, $2, 0)
       ON CONFLICT (id) DO NOTHING`,
      [origin, sha256(new Uint8Array(0))],
    );
    const { rows } = await this.pool.query<{ origin: string }>(
      'SELECT origin FROM log_head WHERE id = 1',
    );
    return rows[0]!.origin;
  }

  /** The lease, by the database's clock (the instances' clocks need not agree). */
  async takeLogLease(holder: string, ms: number): Promise<boolean> {
    const { rows } = await this.pool.query(
      `INSERT INTO log_lease (id, holder, until)
       VALUES (1, $1, clock_timestamp() + $2 * interval '1 millisecond')
       ON CONFLICT (id) DO UPDATE SET holder = EXCLUDED.holder, until = EXCLUDED.until
       WHERE log_lease.holder = EXCLUDED.holder OR log_lease.until < clock_timestamp()
       RETURNING holder`,
      [holder, ms],
    );
    return rows.length === 1;
  }

  async releaseLogLease(holder: string): Promise<void> {
    await this.pool.query('DELETE FROM log_lease WHERE id = 1 AND holder = $1', [holder]);
  }

  /**
   * The integration's transaction, on a connection of the pool: the head locked (`FOR UPDATE`:
   * two integrators never both write); the pending rows of transactions below the snapshot's
   * `xmin` (every one of them settled, committed or not) in the order (xid, id), up to about
   * `maxEntries`; whether a row above it written `maxDelayMs` or more ago is held back (a long
   * transaction before it): then the batch is not complete.
   */
  async integrateLog(
    plan: (input: LogPlanInput) => LogPlan,
    options: { readonly maxEntries: number; readonly maxDelayMs: number },
  ): Promise<LogIntegrated | undefined> {
    const c = await this.hold();
    try {
      await c.query('BEGIN');
      const { rows: heads } = await c.query<HeadRow>(`${HEAD} FOR UPDATE`);
      if (heads[0] === undefined) throw new Error('the decision log has not begun (beginLog)');
      const head = headOf(heads[0]);
      const { rows: latest } = await c.query<{ size: string }>(
        'SELECT size::text AS size FROM log_checkpoints ORDER BY log_checkpoints.size DESC LIMIT 1',
      );
      const checkpointed = latest[0] === undefined ? undefined : BigInt(latest[0].size);
      const { rows } = await c.query<{
        held: boolean;
        eligible: string;
        xid: string | null;
        id: string | null;
        entries: Buffer | null;
      }>(
        `WITH h AS (SELECT pg_snapshot_xmin(pg_current_snapshot()) AS x),
         p AS (
           SELECT q.xid, q.id, q.entries,
                  sum(length(q.entries)) OVER (ORDER BY q.xid, q.id) - length(q.entries) AS before
           FROM log_pending q, h WHERE q.xid < h.x
         )
         SELECT
           coalesce((SELECT min(r.at) <= clock_timestamp() - $2 * interval '1 millisecond'
                     FROM log_pending r, h WHERE r.xid >= h.x), false) AS held,
           (SELECT count(*) FROM p)::text AS eligible,
           p.xid::text AS xid, p.id::text AS id, p.entries
         FROM (SELECT 1) one LEFT JOIN p ON p.before < $1
         ORDER BY p.xid, p.id`,
        [options.maxEntries * ENTRY, options.maxDelayMs],
      );
      const taken = rows.filter((r) => r.entries !== null);
      const more = taken.length < Number(rows[0]!.eligible);
      if (taken.length === 0 && checkpointed === head.size) {
        await c.query('COMMIT');
        return undefined;
      }
      const entries = await this.admit(
        c,
        taken.map((r) => asBytes(r.entries!)),
        head.size,
      );
      const edge = await this.edgeOf(c, head.size);
      const p = plan({
        head,
        entries: entries.map((e) => e.entry),
        edge,
        complete: !more && !rows[0]!.held,
        checkpointed,
      });
      if (p.size !== head.size + BigInt(entries.length)) {
        throw new TypeError('integrateLog: the plan is not of the entries given');
      }
      if (entries.length > 0) {
        // Each entry's (t, key): in log_keys, or log_keys_more when another digest holds it.
        const [one, more] = [entries.filter((e) => !e.shared), entries.filter((e) => e.shared)];
        for (const [table, list] of [
          ['log_keys', one],
          ['log_keys_more', more],
        ] as const) {
          if (list.length === 0) continue;
          await c.query(
            `INSERT INTO ${table} (t, key, idx)
             SELECT * FROM unnest($1::int8[], $2::int8[], $3::int8[])`,
            [list.map((e) => e.t), list.map((e) => e.key), list.map((e) => e.index.toString())],
          );
        }
      }
      if (p.bundles.length > 0) {
        await c.query(
          `INSERT INTO log_bundles (idx, data) SELECT * FROM unnest($1::int8[], $2::bytea[])
           ON CONFLICT (idx) DO UPDATE SET data = EXCLUDED.data`,
          [p.bundles.map((b) => b.index.toString()), p.bundles.map((b) => buf(b.data))],
        );
      }
      if (p.tiles.length > 0) {
        await c.query(
          `INSERT INTO log_tiles (level, idx, data)
           SELECT * FROM unnest($1::int2[], $2::int8[], $3::bytea[])
           ON CONFLICT (level, idx) DO UPDATE SET data = EXCLUDED.data`,
          [
            p.tiles.map((t) => t.level),
            p.tiles.map((t) => t.index.toString()),
            p.tiles.map((t) => buf(t.data)),
          ],
        );
      }
      let checkpoint: StoredCheckpoint | undefined;
      if (p.checkpoint !== undefined) {
        checkpoint = { size: p.size, issued: p.checkpoint.issued, text: p.checkpoint.text };
        await c.query(
          `INSERT INTO log_checkpoints (size, issued, text) VALUES ($1, $2, $3)
           ON CONFLICT (size) DO UPDATE SET issued = EXCLUDED.issued, text = EXCLUDED.text`,
          [p.size.toString(), asInt64(p.checkpoint.issued), p.checkpoint.text],
        );
      }
      await c.query('UPDATE log_head SET size = $1, root = $2 WHERE id = 1', [
        p.size.toString(),
        buf(p.root),
      ]);
      if (taken.length > 0) {
        await c.query(
          `DELETE FROM log_pending WHERE (xid, id) IN
             (SELECT * FROM unnest($1::xid8[], $2::int8[]))`,
          [taken.map((r) => r.xid!), taken.map((r) => r.id!)],
        );
      }
      await c.query('COMMIT');
      return {
        appended: entries.length,
        size: p.size,
        more,
        ...(checkpoint === undefined ? {} : { checkpoint }),
      };
    } catch (e) {
      await c.query('ROLLBACK').catch(() => {});
      throw e;
    } finally {
      c.release();
    }
  }

  /**
   * The entries of the pending rows, in order, each with the next index, but those whose digest
   * the log holds already (looked up by t and key, one query for the batch); `shared`: a (t,
   * key) another digest holds (never yet seen), kept in `log_keys_more`.
   */
  private async admit(
    c: pg.PoolClient,
    rows: readonly Uint8Array[],
    size: bigint,
  ): Promise<{ entry: Uint8Array; t: string; key: bigint; index: bigint; shared: boolean }[]> {
    const all: Uint8Array[] = [];
    for (const row of rows) {
      for (let at = 0; at + ENTRY <= row.length; at += ENTRY)
        all.push(row.subarray(at, at + ENTRY));
    }
    const out: { entry: Uint8Array; t: string; key: bigint; index: bigint; shared: boolean }[] = [];
    if (all.length === 0) return out;
    const ts = all.map((e) => asInt64(tailTime(e)));
    const keys = all.map((e) => keyOf(e.subarray(8)));
    const { rows: held } = await c.query<{ t: string; key: string; idx: string }>(
      `SELECT k.t::text AS t, k.key::text AS key, k.idx::text AS idx
       FROM unnest($1::int8[], $2::int8[]) AS w(t, key)
       JOIN LATERAL (SELECT t, key, idx FROM log_keys WHERE t = w.t AND key = w.key
                     UNION ALL SELECT t, key, idx FROM log_keys_more WHERE t = w.t AND key = w.key) k
         ON true`,
      [ts, keys],
    );
    // The digests the log holds under these (t, key) (rare: a duplicate, or two digests sharing
    // them), read from their bundles.
    const byKey = new Map<string, Uint8Array[]>();
    for (const h of held) {
      const digest = await this.digestAt(c, BigInt(h.idx));
      const k = `${h.t}/${h.key}`;
      byKey.set(k, [...(byKey.get(k) ?? []), digest]);
    }
    all.forEach((entry, i) => {
      const k = `${ts[i]}/${keys[i]}`;
      const digest = entry.subarray(8);
      const same = byKey.get(k);
      if (same?.some((d) => equal(d, digest))) return;
      out.push({
        entry,
        t: ts[i]!,
        key: keys[i]!,
        index: size + BigInt(out.length),
        shared: same !== undefined,
      });
      byKey.set(k, [...(same ?? []), digest]);
    });
    return out;
  }

  /** The digest of entry `index`, from its bundle. */
  private async digestAt(c: pg.ClientBase | pg.Pool, index: bigint): Promise<Uint8Array> {
    const { rows } = await c.query<{ data: Buffer }>(
      'SELECT data FROM log_bundles WHERE idx = $1',
      [(index >> 8n).toString()],
    );
    const at = Number(index & 255n) * (2 + ENTRY);
    const data = rows[0]?.data;
    if (data === undefined || at + 2 + ENTRY > data.length) return new Uint8Array(0);
    return asBytes(data).subarray(at + 10, at + 2 + ENTRY);
  }

  /** The right edge of the log of `size` entries, as stored. */
  private async edgeOf(c: pg.PoolClient, size: bigint): Promise<LogPlanInput['edge']> {
    let entries: Uint8Array[] = [];
    if (size % 256n !== 0n) {
      const { rows } = await c.query<{ data: Buffer }>(
        'SELECT data FROM log_bundles WHERE idx = $1',
        [(size >> 8n).toString()],
      );
      entries = rows[0] === undefined ? [] : bundleEntries(asBytes(rows[0].data));
    }
    const want: { level: number; index: bigint; width: number }[] = [];
    for (let level = 1; size >> BigInt(8 * level) > 0n; level++) {
      const width = Number((size >> BigInt(8 * level)) & 255n);
      if (width > 0) want.push({ level, index: size >> BigInt(8 * (level + 1)), width });
    }
    const tiles = new Map<number, Uint8Array>();
    if (want.length > 0) {
      const { rows: got } = await c.query<{ level: number; data: Buffer }>(
        `SELECT t.level, t.data FROM log_tiles t
         JOIN unnest($1::int2[], $2::int8[]) AS w(level, idx) ON t.level = w.level AND t.idx = w.idx`,
        [want.map((w) => w.level), want.map((w) => w.index.toString())],
      );
      const byLevel = new Map(got.map((g) => [g.level, g.data]));
      for (const w of want) {
        const data = byLevel.get(w.level);
        if (data === undefined || data.length < w.width * 32) {
          throw new Error(`the decision log's tile ${w.level}/${w.index} is missing`);
        }
        tiles.set(w.level, asBytes(data).subarray(0, w.width * 32));
      }
    }
    return { entries, tiles };
  }

  async addLogCosignatures(size: bigint, text: string): Promise<void> {
    await this.pool.query('UPDATE log_checkpoints SET text = $1 WHERE size = $2', [
      text,
      size.toString(),
    ]);
  }

  async pruneLog(
    issuedBefore: bigint,
  ): Promise<{ minIndex: bigint; entries: number; checkpoints: number }> {
    const c = await this.hold();
    try {
      await c.query('BEGIN');
      const { rows: heads } = await c.query<HeadRow>(`${HEAD} FOR UPDATE`);
      if (heads[0] === undefined) {
        await c.query('COMMIT');
        return { minIndex: 0n, entries: 0, checkpoints: 0 };
      }
      const head = headOf(heads[0]);
      // The newest checkpoint issued before the cutoff, the latest of all kept whatever its age.
      const { rows } = await c.query<{ cut: string | null }>(
        `SELECT max(size)::text AS cut FROM log_checkpoints WHERE issued < $1
           AND size < (SELECT max(size) FROM log_checkpoints)`,
        [asInt64(issuedBefore)],
      );
      const cut = rows[0]!.cut;
      if (cut === null) {
        await c.query('COMMIT');
        return { minIndex: head.minIndex, entries: 0, checkpoints: 0 };
      }
      // Never lowered (bigints: no Math.max).
      let minIndex = head.minIndex;
      if (BigInt(cut) > minIndex) minIndex = BigInt(cut);
      const checkpoints = await c.query('DELETE FROM log_checkpoints WHERE size <= $1', [cut]);
      // The bundles wholly below the minimum index, and their entries' keys (tlog-tiles,
      // Pruning: the level-0 tiles derived from them go too; level 1 keeps their hashes).
      const { rows: bundles } = await c.query<{ idx: string; data: Buffer }>(
        'DELETE FROM log_bundles WHERE idx < $1 RETURNING idx::text AS idx, data',
        [(minIndex >> 8n).toString()],
      );
      const ts: string[] = [];
      const keys: bigint[] = [];
      const idxs: string[] = [];
      for (const b of bundles) {
        bundleEntries(asBytes(b.data)).forEach((e, i) => {
          ts.push(asInt64(tailTime(e)));
          keys.push(keyOf(e.subarray(8)));
          idxs.push(((BigInt(b.idx) << 8n) + BigInt(i)).toString());
        });
      }
      for (const table of ['log_keys', 'log_keys_more']) {
        await c.query(
          `DELETE FROM ${table} k USING unnest($1::int8[], $2::int8[], $3::int8[]) AS g(t, key, idx)
           WHERE k.t = g.t AND k.key = g.key AND k.idx = g.idx`,
          [ts, keys, idxs],
        );
      }
      await c.query('UPDATE log_head SET min_index = $1 WHERE id = 1', [minIndex.toString()]);
      await c.query('COMMIT');
      return { minIndex, entries: keys.length, checkpoints: checkpoints.rowCount ?? 0 };
    } catch (e) {
      await c.query('ROLLBACK').catch(() => {});
      throw e;
    } finally {
      c.release();
    }
  }

  async latestLogCheckpoint(): Promise<StoredCheckpoint | undefined> {
    const { rows } = await this.pool.query<CheckpointRow>(
      `${CHECKPOINTS} ORDER BY log_checkpoints.size DESC LIMIT 1`,
    );
    return rows[0] === undefined ? undefined : checkpointOf(rows[0]);
  }

  async logCheckpoints(fromSize: bigint, limit: number): Promise<StoredCheckpoint[]> {
    const { rows } = await this.pool.query<CheckpointRow>(
      `${CHECKPOINTS} WHERE size >= $1 ORDER BY log_checkpoints.size LIMIT $2`,
      [clamp(fromSize).toString(), limit],
    );
    return rows.map(checkpointOf);
  }

  async logEntries(from: bigint, to: bigint): Promise<LogEntryRow[]> {
    const lo = clamp(from);
    const hi = clamp(to);
    if (hi <= lo) return [];
    const { rows } = await this.pool.query<{ idx: string; data: Buffer }>(
      `SELECT idx::text AS idx, data FROM log_bundles WHERE idx >= $1 AND idx < $2
       ORDER BY log_bundles.idx`,
      [(lo >> 8n).toString(), (((hi - 1n) >> 8n) + 1n).toString()],
    );
    const out: LogEntryRow[] = [];
    for (const r of rows) {
      const first = BigInt(r.idx) << 8n;
      bundleEntries(asBytes(r.data)).forEach((e, i) => {
        const index = first + BigInt(i);
        if (index < lo || index >= hi) return;
        out.push({ index, t: tailTime(e), digest: e.slice(8) });
      });
    }
    return out;
  }

  async logIndexOf(t: bigint, digest: Uint8Array): Promise<bigint | undefined> {
    if (digest.length !== 32) return undefined;
    const key = keyOf(digest);
    const { rows } = await this.pool.query<{ idx: string }>(
      `SELECT idx::text AS idx FROM log_keys WHERE t = $1 AND key = $2
       UNION ALL SELECT idx::text FROM log_keys_more WHERE t = $1 AND key = $2`,
      [asInt64(t), key],
    );
    for (const r of rows) {
      const index = BigInt(r.idx);
      if (equal(await this.digestAt(this.pool, index), digest)) return index;
    }
    return undefined;
  }

  async logTile(level: number, index: bigint): Promise<Uint8Array | undefined> {
    const { rows } = await this.pool.query<{ data: Buffer }>(
      'SELECT data FROM log_tiles WHERE level = $1 AND idx = $2',
      [level, clamp(index).toString()],
    );
    return rows[0] === undefined ? undefined : asBytes(rows[0].data);
  }

  async stats(): Promise<StoreStats> {
    const { rows } = await this.pool.query<{ r: string; d: string; s: string; b: string }>(
      `SELECT (SELECT count(*) FROM records) AS r, (SELECT count(*) FROM decisions) AS d,
              (SELECT count(*) FROM sets) AS s,
              (SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c
                 WHERE c.relkind = 'r' AND (c.relname IN ('records', 'sets', 'blobs')
                   OR c.relname LIKE 'decisions\\_%' OR c.relname LIKE 'log\\_%')) AS b`,
    );
    const r = rows[0]!;
    return { records: Number(r.r), decisions: Number(r.d), sets: Number(r.s), bytes: Number(r.b) };
  }

  /**
   * Calls `listener` for each record and blob committed from now on by any connection (this
   * instance's included). A notification can be lost (a dropped connection): the catch-up
   * query at each window move heals it.
   */
  async subscribe(listener: (n: StoreNotice) => void): Promise<() => void> {
    this.listeners.add(listener);
    if (this.listener === undefined) await this.listen();
    return () => {
      this.listeners.delete(listener);
    };
  }

  /**
   * The notification connection: `LISTEN` on its three channels, listened again a second after a
   * failure (and again until it works). Once listening again, the listeners are told
   * (`listening`), so that they read what was committed meanwhile.
   */
  private async listen(again = false): Promise<void> {
    const c = new pg.Client({ connectionString: this.url });
    c.on('error', (e) => this.listenerFailed(c, e));
    c.on('notification', (m) => {
      const notice = readNotice(m.channel, m.payload);
      if (notice !== undefined) for (const l of this.listeners) l(notice);
    });
    this.listener = c;
    try {
      await c.connect();
      await c.query('LISTEN wai_records');
      await c.query('LISTEN wai_blobs');
      await c.query('LISTEN wai_live');
    } catch (e) {
      this.listenerFailed(c, e);
      throw e;
    }
    if (again) {
      this.faults.clear('store_notifications');
      for (const l of this.listeners) l({ kind: 'listening' });
    }
  }

  /** The listening connection failed: told once, listened again in a second. */
  private listenerFailed(c: pg.Client, e: unknown): void {
    if (this.closed || this.listener !== c) return;
    this.faults.fail(
      'store_notifications',
      `the store's notification connection failed: ${describeError(e)}`,
    );
    this.listener = undefined;
    c.end().catch(() => {});
    // What is committed meanwhile comes with the catch-up once listening again.
    setTimeout(() => {
      if (!this.closed && this.listener === undefined && this.listeners.size > 0) {
        this.listen(true).catch(() => {});
      }
    }, 1000).unref();
  }

  /**
   * A connection of the pool, held for a transaction. While it is held the pool does not listen
   * for its errors, so a connection that drops then (the database stopped or restarted) would be
   * an unhandled `error` event, which ends the process: here it is the transaction's (the query
   * under way fails with it), and the connection is destroyed at its release rather than given
   * back to the pool.
   */
  private async hold(): Promise<pg.PoolClient> {
    const c = await this.pool.connect();
    let failed: Error | undefined;
    const onError = (e: Error): void => {
      failed = e;
    };
    c.on('error', onError);
    const release = c.release.bind(c);
    c.release = (err?: Error | boolean) => {
      c.removeListener('error', onError);
      release(err ?? failed);
    };
    return c;
  }

  /** A query on the readers' pool (the loads' heartbeat uses it). */
  query<R extends pg.QueryResultRow>(sql: string, values: unknown[]): Promise<pg.QueryResult<R>> {
    return this.pool.query<R>(sql, values);
  }

  /**
   * `fn` in one transaction on a connection of the pool (`BEGIN` … `COMMIT`, `ROLLBACK` when it
   * throws): the loads heartbeat's grant of slots under its lock (`instances/loads.ts`).
   */
  async transaction<T>(
    fn: (
      q: <R extends pg.QueryResultRow>(
        sql: string,
        values: unknown[],
      ) => Promise<pg.QueryResult<R>>,
    ) => Promise<T>,
  ): Promise<T> {
    const c = await this.hold();
    try {
      await c.query('BEGIN');
      const value = await fn((sql, values) => c.query(sql, values));
      await c.query('COMMIT');
      return value;
    } catch (e) {
      await c.query('ROLLBACK').catch(() => {});
      throw e;
    } finally {
      c.release();
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const listener = this.listener;
    this.listener = undefined;
    await Promise.allSettled([
      this.writer.end(),
      this.pool.end(),
      listener === undefined ? Promise.resolve() : listener.end(),
    ]);
  }
}

/** Writers whose connection failed (they are replaced at the next commit). */
const broken = new WeakSet<pg.Client>();

/** The writer's connection: `synchronous_commit = on`, whatever the database's default. */
async function connectWriter(url: string): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: url });
  // The commit that fails with it is what is told (`commit`); the next one connects again.
  c.on('error', () => broken.add(c));
  c.on('end', () => broken.add(c));
  await c.connect();
  await c.query('SET synchronous_commit = on');
  return c;
}

function readNotice(channel: string, payload: string | undefined): StoreNotice | undefined {
  if (payload === undefined) return undefined;
  if (channel === 'wai_records' && /^[0-9a-f]{64}$/.test(payload)) {
    return { kind: 'record', digest: asBytes(Buffer.from(payload, 'hex')) };
  }
  const live = /^(capacity|policy):([0-9a-f]{64})$/.exec(payload);
  if (channel === 'wai_live' && live !== null) {
    const what = live[1] as 'capacity' | 'policy';
    return { kind: 'live', what, room: asBytes(Buffer.from(live[2]!, 'hex')) };
  }
  const m = /^(policy|room|key-log):([0-9a-f]{64})$/.exec(payload);
  if (channel === 'wai_blobs' && m !== null) {
    return { kind: 'blob', blob: m[1] as BlobKind, digest: asBytes(Buffer.from(m[2]!, 'hex')) };
  }
  return undefined;
}

/** A connection URL without its password, for messages. */
export function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password !== '') u.password = '***';
    return u.toString();
  } catch {
    return 'the store URL';
  }
}
