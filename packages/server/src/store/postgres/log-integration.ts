/**
 * The shared store's decision log, written: an integration (the pending entries of settled
 * transactions made entries, tiles and maybe a checkpoint, in one transaction) and the log's
 * pruning. The tables and the reads are `log.ts`.
 */
import type { Writable } from 'node:stream';
import type pg from 'pg';
import { bundleEntries, ENTRY, keyOf } from '../entries.js';
import type { LogIntegrated, LogPlan, LogPlanInput, LogWrites } from '../log.js';
import { byteaArray, entryColumns, int2Array, int8Array, int8Range } from './binary.js';
import { asBytes, asInt64, buf, equal, type PgContext, tailTime } from './context.js';
import { HEAD, type HeadRow, headOf, type PgLog } from './log.js';

/** The pending rows' entries end to end, whole entries only (each row holds whole ones). */
function wholeEntries(rows: readonly Buffer[]): Buffer {
  if (rows.length === 1 && rows[0]!.length % ENTRY === 0) return rows[0]!;
  return Buffer.concat(rows.map((r) => r.subarray(0, r.length - (r.length % ENTRY))));
}

/** The `n` entries of `entries`, each a view of its 40 bytes. */
function splitEntries(entries: Uint8Array, n: number): Uint8Array[] {
  const out = new Array<Uint8Array>(n);
  for (let i = 0; i < n; i++) out[i] = entries.subarray(i * ENTRY, (i + 1) * ENTRY);
  return out;
}

/**
 * Resolves once the connection's socket has written what it was given (a large statement's
 * bytes go out as the socket drains, which needs the event loop): the database then has the
 * whole statement and works on it while this process computes.
 */
async function sent(c: pg.PoolClient): Promise<void> {
  const stream = (c as unknown as { connection?: { stream?: Writable } }).connection?.stream;
  if (typeof stream?.writableLength !== 'number' || typeof stream.once !== 'function') return;
  while (stream.writableLength > 0 && !stream.destroyed) {
    await new Promise<void>((resolve) => {
      const done = (): void => {
        stream.off('drain', done);
        stream.off('close', done);
        resolve();
      };
      stream.once('drain', done);
      stream.once('close', done);
    });
  }
}

export class PgLogIntegration implements Pick<LogWrites, 'integrateLog' | 'pruneLog'> {
  constructor(
    private readonly ctx: PgContext,
    private readonly log: PgLog,
    /** After an integration that appended, on its connection: the decisions' keys merged. */
    private readonly afterAppend?: (c: pg.PoolClient) => Promise<void>,
  ) {}

  /**
   * The integration's transaction, on a connection of the pool: the head locked (`FOR UPDATE`:
   * two integrators never both write); the pending rows of transactions below the snapshot's
   * `xmin` (every one of them settled, committed or not) in the order (xid, id), up to about
   * `maxEntries`; whether a row above it written `maxDelayMs` or more ago is held back (a long
   * transaction before it): then the batch is not complete.
   *
   * The entries' keys are inserted first, as if none were held (one insert, under a savepoint),
   * and the plan is made while the database writes them; the rare batch with a (t, key) held
   * already, or twice in it, is admitted again entry by entry ({@link PgLogIntegration.admit})
   * and planned again. The rest is one statement (bundles, tiles, checkpoint, head, the pending
   * rows taken), all parameters in binary form (`binary.ts`).
   */
  async integrateLog(
    plan: (input: LogPlanInput) => LogPlan,
    options: { readonly maxEntries: number; readonly maxDelayMs: number },
  ): Promise<LogIntegrated | undefined> {
    const c = await this.ctx.hold();
    try {
      // BEGIN, the head locked and the latest checkpoint's size, in one round trip.
      const opened = (await c.query(
        `BEGIN; ${HEAD} FOR UPDATE; SELECT max(size)::text AS size FROM log_checkpoints`,
      )) as unknown as pg.QueryResult[];
      const headRow = opened[1]!.rows[0] as HeadRow | undefined;
      if (headRow === undefined) throw new Error('the decision log has not begun (beginLog)');
      const head = headOf(headRow);
      const latest = (opened[2]!.rows[0] as { size: string | null }).size;
      const checkpointed = latest === null ? undefined : BigInt(latest);
      const { rows } = await c.query<{
        held: boolean;
        eligible: string;
        xid: string | null;
        id: string | null;
        entries: Buffer | null;
      }>({
        name: 'wai_log_pending',
        text: `WITH h AS (SELECT pg_snapshot_xmin(pg_current_snapshot()) AS x),
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
        values: [options.maxEntries * ENTRY, options.maxDelayMs],
      });
      const taken = rows.filter((r) => r.entries !== null);
      const more = taken.length < Number(rows[0]!.eligible);
      if (taken.length === 0 && checkpointed === head.size) {
        await c.query('COMMIT');
        return undefined;
      }
      const pending = wholeEntries(taken.map((r) => r.entries!));
      const n = pending.length / ENTRY;
      const edge = await this.edgeOf(c, head.size);
      const input = (entries: readonly Uint8Array[]): LogPlanInput => ({
        head,
        entries,
        edge,
        complete: !more && !rows[0]!.held,
        checkpointed,
      });
      let entries = splitEntries(pending, n);
      let p: LogPlan;
      if (n === 0) p = plan(input(entries));
      else {
        await c.query('SAVEPOINT admit');
        const columns = entryColumns(pending, n);
        // Settles with whether every key was new (23505: one was held, or twice in the batch).
        const inserted = c
          .query({
            name: 'wai_log_keys',
            text: `INSERT INTO log_keys (t, key, idx)
                   SELECT * FROM unnest($1::int8[], $2::int8[], $3::int8[])`,
            values: [columns.t, columns.key, int8Range(head.size, n)],
          })
          .then(
            () => ({ ok: true }) as const,
            (e: unknown) => ({ ok: false, error: e }) as const,
          );
        // The insert's bytes sent before the plan takes the event loop: the database works on
        // it meanwhile.
        await sent(c);
        p = plan(input(entries));
        const done = await inserted;
        if (!done.ok) {
          if ((done.error as { code?: string }).code !== '23505') throw done.error;
          await c.query('ROLLBACK TO SAVEPOINT admit');
          entries = await this.admit(c, entries, head.size);
          p = plan(input(entries));
        }
      }
      if (p.size !== head.size + BigInt(entries.length)) {
        throw new TypeError('integrateLog: the plan is not of the entries given');
      }
      const last = taken.at(-1);
      await c.query({
        name: 'wai_log_write',
        text: `WITH b AS (
           INSERT INTO log_bundles (idx, data) SELECT * FROM unnest($1::int8[], $2::bytea[])
           ON CONFLICT (idx) DO UPDATE SET data = EXCLUDED.data
         ), t AS (
           INSERT INTO log_tiles (level, idx, data)
           SELECT * FROM unnest($3::int2[], $4::int8[], $5::bytea[])
           ON CONFLICT (level, idx) DO UPDATE SET data = EXCLUDED.data
         ), k AS (
           INSERT INTO log_checkpoints (size, issued, text)
           SELECT $6::int8, $7::int8, $8::text WHERE $8::text IS NOT NULL
           ON CONFLICT (size) DO UPDATE SET issued = EXCLUDED.issued, text = EXCLUDED.text
         ), d AS (
           -- The rows taken: a prefix, in (xid, id) order, of those settled before the read.
           DELETE FROM log_pending WHERE (xid, id) <= ($10::xid8, $11::int8)
         )
         UPDATE log_head SET size = $6::int8, root = $9 WHERE id = 1`,
        values: [
          int8Array(p.bundles.map((b) => b.index)),
          byteaArray(p.bundles.map((b) => b.data)),
          int2Array(p.tiles.map((t) => t.level)),
          int8Array(p.tiles.map((t) => t.index)),
          byteaArray(p.tiles.map((t) => t.data)),
          p.size.toString(),
          p.checkpoint === undefined ? null : asInt64(p.checkpoint.issued),
          p.checkpoint?.text ?? null,
          buf(p.root),
          last?.xid ?? null,
          last?.id ?? null,
        ],
      });
      await c.query('COMMIT');
      // Not the integration's: a failure leaves the keys to autovacuum's merge.
      if (entries.length > 0) await this.afterAppend?.(c).catch(() => {});
      return {
        appended: entries.length,
        size: p.size,
        more,
        ...(p.checkpoint === undefined
          ? {}
          : {
              checkpoint: { size: p.size, issued: p.checkpoint.issued, text: p.checkpoint.text },
            }),
      };
    } catch (e) {
      await c.query('ROLLBACK').catch(() => {});
      throw e;
    } finally {
      c.release();
    }
  }

  /**
   * The entries of a batch whose keys were not all new, in order, but those whose digest the log
   * holds already or that came earlier in the batch; each (t, key) inserted with the entry's
   * index: in `log_keys`, or in `log_keys_more` when another digest holds it (never yet seen).
   * The (t, key) held are looked up in one query, their digests read from their bundles.
   */
  private async admit(
    c: pg.PoolClient,
    all: readonly Uint8Array[],
    size: bigint,
  ): Promise<Uint8Array[]> {
    const ts = all.map((e) => BigInt.asIntN(64, tailTime(e)));
    const keys = all.map((e) => keyOf(e.subarray(8)));
    const { rows: held } = await c.query<{ t: string; key: string; idx: string }>(
      `SELECT k.t::text AS t, k.key::text AS key, k.idx::text AS idx
       FROM unnest($1::int8[], $2::int8[]) AS w(t, key)
       JOIN LATERAL (SELECT t, key, idx FROM log_keys WHERE t = w.t AND key = w.key
                     UNION ALL SELECT t, key, idx FROM log_keys_more WHERE t = w.t AND key = w.key) k
         ON true`,
      [int8Array(ts), int8Array(keys)],
    );
    // The digests the log holds under these (t, key), read from their bundles.
    const byKey = new Map<string, Uint8Array[]>();
    for (const h of held) {
      const digest = await this.log.digestAt(c, BigInt(h.idx));
      const k = `${h.t}/${h.key}`;
      byKey.set(k, [...(byKey.get(k) ?? []), digest]);
    }
    const out: Uint8Array[] = [];
    // Each admitted entry's (t, key, index), by the table that takes it.
    const rows = {
      log_keys: { t: [] as bigint[], key: [] as bigint[], idx: [] as bigint[] },
      log_keys_more: { t: [] as bigint[], key: [] as bigint[], idx: [] as bigint[] },
    };
    all.forEach((entry, i) => {
      const k = `${ts[i]}/${keys[i]}`;
      const digest = entry.subarray(8);
      const same = byKey.get(k);
      if (same?.some((d) => equal(d, digest))) return;
      const to = rows[same === undefined ? 'log_keys' : 'log_keys_more'];
      to.t.push(ts[i]!);
      to.key.push(keys[i]!);
      to.idx.push(size + BigInt(out.length));
      out.push(entry);
      byKey.set(k, [...(same ?? []), digest]);
    });
    for (const table of ['log_keys', 'log_keys_more'] as const) {
      const list = rows[table];
      if (list.t.length === 0) continue;
      await c.query(
        `INSERT INTO ${table} (t, key, idx)
         SELECT * FROM unnest($1::int8[], $2::int8[], $3::int8[])`,
        [int8Array(list.t), int8Array(list.key), int8Array(list.idx)],
      );
    }
    return out;
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

  async pruneLog(
    issuedBefore: bigint,
  ): Promise<{ minIndex: bigint; entries: number; checkpoints: number }> {
    const c = await this.ctx.hold();
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
}
