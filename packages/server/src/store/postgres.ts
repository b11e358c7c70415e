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
 * (listened again a second after it breaks). The file is one cohesive thing over 400 lines: the
 * writes, reads, pruning and notifications share the connections and the compact form.
 *
 * Notifications: a commit that inserts records notifies `wai_records` (payload: the digest in
 * hex) and a new blob `wai_blobs` (`kind:hex`), inside its transaction, so a listener hears of a
 * row only once it is visible.
 */
import { hash } from 'node:crypto';
import pg from 'pg';
import { joinDecision, splitAgainst } from './compact.js';
import { migrate, SCHEMA_LOCK } from './pg-migrations.js';
import {
  type BlobKind,
  type CommitBatch,
  type CommitResult,
  POLICY_LAG_US,
  type PolicyClaim,
  type PruneResult,
  type SteeringStore,
  type StoredCapacityReport,
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
  | { readonly kind: 'live'; readonly what: 'capacity' | 'policy'; readonly room: Uint8Array };

const DAY_US = 86_400_000_000n;
const INT8_MAX = (1n << 63n) - 1n;

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

  private constructor(
    readonly url: string,
    private writer: pg.Client,
    private readonly pool: pg.Pool,
    private readonly daysAhead: number,
  ) {}

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
    pool.on('error', (e) => console.error('wai-steering: a store connection failed:', e.message));
    const store = new PgStore(url, writer, pool, options.daysAhead ?? 3);
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
    const c = await this.pool.connect();
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
      ts.push(t);
      keys.push(keyOf(d.digest));
      setIds.push(id);
      tails.push(buf(tail));
      const prev = lastT.get(id);
      if (prev === undefined || t > prev) lastT.set(id, t);
    }
    const ids = [...lastT.keys()];
    // A named statement: parsed and planned once per connection, not once per commit.
    const res = await w.query({
      name: 'wai_insert_decisions',
      text: `WITH ins AS (
         INSERT INTO decisions (t, key, set_id, tail)
         SELECT * FROM unnest($1::int8[], $2::int8[], $3::int8[], $4::bytea[])
       )
       UPDATE sets SET last_t = greatest(sets.last_t, v.t)
       FROM unnest($5::int8[], $6::int8[]) AS v(id, t) WHERE sets.id = v.id`,
      values: [ts, keys, setIds, tails, ids, ids.map((i) => lastT.get(i)!)],
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
    const { rows } = await this.pool.query<{ body: Buffer; tail: Buffer }>(
      'SELECT s.body, d.tail FROM decisions d JOIN sets s ON s.id = d.set_id WHERE d.key = $1',
      [keyOf(digest)],
    );
    for (const row of rows) {
      let bytes: Uint8Array;
      try {
        bytes = joinDecision(asBytes(row.body), asBytes(row.tail));
      } catch {
        continue;
      }
      // Served only when it hashes to the digest asked for (§7.3).
      if (equal(sha256(bytes.subarray(0, bytes.length - 64)), digest)) return bytes;
    }
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
   * The decisions with `from` ≤ `t` < `to` (µs) in the order of their commits, at most `limit`,
   * after the cursor `after` (0: from the start); `next` is the cursor of the next page, `null`
   * after the last. Each is rebuilt and its digest computed from its bytes.
   */
  async listDecisions(
    from: bigint,
    to: bigint,
    after: number,
    limit: number,
  ): Promise<{
    decisions: { digest: Uint8Array; t: bigint; bytes: Uint8Array }[];
    next: number | null;
  }> {
    if (!Number.isSafeInteger(after) || after < 0) throw new RangeError('listDecisions: after');
    if (!Number.isSafeInteger(limit) || limit < 1) throw new RangeError('listDecisions: limit');
    const { rows } = await this.pool.query<{ id: string; t: string; body: Buffer; tail: Buffer }>(
      `SELECT d.id, d.t, s.body, d.tail FROM decisions d JOIN sets s ON s.id = d.set_id
       WHERE d.t >= $1 AND d.t < $2 AND d.id > $3 ORDER BY d.id LIMIT $4`,
      [clamp(from), clamp(to), after, limit],
    );
    const decisions = rows.map((r) => {
      const bytes = joinDecision(asBytes(r.body), asBytes(r.tail));
      return {
        digest: asBytes(sha256(bytes.subarray(0, bytes.length - 64))),
        t: BigInt(r.t),
        bytes,
      };
    });
    return {
      decisions,
      next: rows.length === limit ? Number(rows[rows.length - 1]!.id) : null,
    };
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
    const c = await this.pool.connect();
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

  async stats(): Promise<StoreStats> {
    const { rows } = await this.pool.query<{ r: string; d: string; s: string; b: string }>(
      `SELECT (SELECT count(*) FROM records) AS r, (SELECT count(*) FROM decisions) AS d,
              (SELECT count(*) FROM sets) AS s,
              (SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c
                 WHERE c.relkind = 'r' AND (c.relname IN ('records', 'sets', 'blobs')
                   OR c.relname LIKE 'decisions\\_%')) AS b`,
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

  /** The notification connection: `LISTEN` on its three channels, listened again after a failure. */
  private async listen(): Promise<void> {
    const c = new pg.Client({ connectionString: this.url });
    c.on('error', (e) => {
      if (this.closed || this.listener !== c) return;
      console.error('wai-steering: the store notification connection failed:', e.message);
      this.listener = undefined;
      c.end().catch(() => {});
      // Listen again in a second; what was committed meanwhile comes with the next catch-up.
      setTimeout(() => {
        if (!this.closed && this.listener === undefined && this.listeners.size > 0) {
          this.listen().catch(() => {});
        }
      }, 1000).unref();
    });
    c.on('notification', (m) => {
      const notice = readNotice(m.channel, m.payload);
      if (notice !== undefined) for (const l of this.listeners) l(notice);
    });
    this.listener = c;
    await c.connect();
    await c.query('LISTEN wai_records');
    await c.query('LISTEN wai_blobs');
    await c.query('LISTEN wai_live');
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
    const c = await this.pool.connect();
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
  c.on('error', (e) => {
    broken.add(c);
    console.error('wai-steering: the store connection failed:', e.message);
  });
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
