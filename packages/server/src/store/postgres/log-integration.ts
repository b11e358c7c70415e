/**
 * The shared store's decision log, written: an integration (the pending entries of settled
 * transactions made entries, tiles and maybe a checkpoint, in one transaction) and the log's
 * pruning. The tables and the reads are `log.ts`.
 */
import type pg from 'pg';
import { bundleEntries, ENTRY, keyOf } from '../entries.js';
import type { LogIntegrated, LogPlan, LogPlanInput, LogWrites, StoredCheckpoint } from '../log.js';
import { asBytes, asInt64, buf, equal, type PgContext, tailTime } from './context.js';
import { HEAD, type HeadRow, headOf, type PgLog } from './log.js';

export class PgLogIntegration implements Pick<LogWrites, 'integrateLog' | 'pruneLog'> {
  constructor(
    private readonly ctx: PgContext,
    private readonly log: PgLog,
  ) {}

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
    const c = await this.ctx.hold();
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
      const digest = await this.log.digestAt(c, BigInt(h.idx));
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
