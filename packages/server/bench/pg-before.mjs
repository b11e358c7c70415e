// The benches' baseline on PostgreSQL: the store's statements before schema 6, so that a run
// measures the store as it was beside the store as it is, on the same machine at the same time.
//
// - `undoSchema6(store)`: a database migrated to schema 6 given schema 5's indexes and storage
//   back (the decisions' B-tree by key and index by id, the sets by last_t, the pending entries
//   in TOAST).
// - `installBefore(store)`: a `PgStore` whose group commit (BEGIN, the set's insert when the
//   window moved, one statement, COMMIT; arrays as text) and integration (each entry's (t, key)
//   looked up in both key tables before its insert; arrays as text; a statement per table) are
//   those of the release before, as they were written: the bench's switch, reaching into the
//   store's internals (its `decisions` and `logWrites`).
import { createHash } from 'node:crypto';

const ENTRY = 40;
const INT8_MAX = (1n << 63n) - 1n;
const HEAD =
  'SELECT origin, size::text AS size, root, min_index::text AS min_index FROM log_head WHERE id = 1';

const sha256 = (b) => createHash('sha256').update(b).digest();
const buf = (b) => Buffer.from(b.buffer, b.byteOffset, b.byteLength);
const asBytes = (b) => new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
const equal = (a, b) => a.length === b.length && Buffer.compare(a, b) === 0;
const keyOf = (digest) => buf(digest).readBigInt64BE(0);
const tailTime = (tail) => buf(tail).readBigUInt64LE(0);
const asInt64 = (v) => BigInt.asIntN(64, v).toString();
const clamp = (v) => (v > INT8_MAX ? INT8_MAX : v < 0n ? 0n : v);

/** Schema 5's indexes and storage on a database of schema 6. */
export async function undoSchema6(store) {
  await store.query(
    `DROP INDEX decisions_key;
     CREATE INDEX decisions_key ON decisions (key);
     CREATE INDEX decisions_id ON decisions (id);
     CREATE INDEX sets_last_t ON sets (last_t);
     ALTER TABLE log_pending ALTER COLUMN entries SET STORAGE EXTENDED;
     ALTER TABLE log_pending RESET (toast_tuple_target)`,
    [],
  );
}

/** The digests an evidence set names (§7.1 chunks after room, signer, policy and m). */
function namedDigests(set) {
  const out = [];
  const m = set[96] ?? 0;
  let s = 97;
  for (let p = 0; p < m; p++) {
    const k = set[s + 34] ?? 0;
    for (let j = 0; j < k; j++) out.push(buf(set.subarray(s + 35 + 32 * j, s + 67 + 32 * j)));
    s += 35 + 32 * k;
  }
  return out;
}

/** The store's commit and integration as the release before schema 6 made them. */
export function installBefore(store) {
  const decisions = store.decisions;
  const logWrites = store.logWrites;
  if (decisions === undefined || logWrites === undefined) {
    throw new Error('pg-before: the store has no `decisions` or `logWrites` (its internals moved)');
  }
  decisions.write = (batch) => writeBefore(decisions, batch);
  logWrites.integrateLog = (plan, options) => integrateBefore(store, plan, options);
}

class SetGone extends Error {}

async function writeBefore(d, batch) {
  try {
    return await writeOnce(d, batch);
  } catch (e) {
    d.current = undefined;
    if (e instanceof SetGone) return writeOnce(d, batch);
    throw e;
  }
}

async function writeOnce(d, batch) {
  const w = d.ctx.writer;
  await w.query('BEGIN');
  try {
    const inserted = batch.records.length > 0 ? await d.records.write(w, batch.records) : [];
    if (batch.decisions.length > 0) await writeDecisions(d, batch);
    await w.query('COMMIT');
    return { inserted };
  } catch (e) {
    await w.query('ROLLBACK').catch(() => {});
    throw e;
  }
}

async function writeDecisions(d, batch) {
  const w = d.ctx.writer;
  const ts = [];
  const keys = [];
  const setIds = [];
  const tails = [];
  const lastT = new Map();
  const entries = Buffer.alloc(ENTRY * batch.decisions.length);
  for (const x of batch.decisions) {
    if (!('tail' in x)) throw new Error('pg-before: decisions in the compact form only');
    const tail = x.tail;
    const cur = d.current;
    let set =
      cur !== undefined && (cur.body === x.set || equal(cur.body, x.set)) ? undefined : x.set;
    if (set === undefined && cur !== undefined) cur.body = x.set;
    const t = clamp(tailTime(tail));
    if (set !== undefined || cur === undefined) {
      const body = set ?? x.set;
      const { rows } = await w.query(
        `INSERT INTO sets (digest, last_t, min_start, body)
         VALUES ($1, $2, coalesce((SELECT min(start) FROM records WHERE digest = ANY($3::bytea[])), $4), $5)
         ON CONFLICT (digest) DO UPDATE SET last_t = greatest(sets.last_t, EXCLUDED.last_t)
         RETURNING id`,
        [sha256(body), t, namedDigests(body), INT8_MAX, buf(body)],
      );
      d.current = { id: rows[0].id, body };
      set = undefined;
    }
    const id = d.current.id;
    entries.set(tail.subarray(0, 8), ENTRY * ts.length);
    entries.set(x.digest, ENTRY * ts.length + 8);
    ts.push(t);
    keys.push(keyOf(x.digest));
    setIds.push(id);
    tails.push(buf(tail));
    const prev = lastT.get(id);
    if (prev === undefined || t > prev) lastT.set(id, t);
  }
  const ids = [...lastT.keys()];
  const res = await w.query({
    name: 'wai_insert_decisions_before',
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
    values: [ts, keys, setIds, tails, ids, ids.map((i) => lastT.get(i)), entries],
  });
  if (res.rowCount !== ids.length) throw new SetGone();
}

/** The integration as the release before schema 6 made it, in one transaction. */
export function integrateBefore(store, plan, options) {
  const logWrites = store.logWrites;
  const log = store.log;
  return store.transaction(async (q) => {
    const c = { query: (text, values) => q(text, values ?? []) };
    const { rows: heads } = await q(`${HEAD} FOR UPDATE`, []);
    if (heads[0] === undefined) throw new Error('the decision log has not begun (beginLog)');
    const r = heads[0];
    const head = {
      origin: r.origin,
      size: BigInt(r.size),
      root: asBytes(r.root),
      minIndex: BigInt(r.min_index),
    };
    const { rows: latest } = await q(
      'SELECT size::text AS size FROM log_checkpoints ORDER BY log_checkpoints.size DESC LIMIT 1',
      [],
    );
    const checkpointed = latest[0] === undefined ? undefined : BigInt(latest[0].size);
    const { rows } = await q(
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
    const taken = rows.filter((x) => x.entries !== null);
    const more = taken.length < Number(rows[0].eligible);
    if (taken.length === 0 && checkpointed === head.size) return undefined;
    const entries = await admit(
      c,
      log,
      taken.map((x) => asBytes(x.entries)),
      head.size,
    );
    const edge = await logWrites.edgeOf(c, head.size);
    const p = plan({
      head,
      entries: entries.map((e) => e.entry),
      edge,
      complete: !more && !rows[0].held,
      checkpointed,
    });
    if (entries.length > 0) {
      const [one, shared] = [entries.filter((e) => !e.shared), entries.filter((e) => e.shared)];
      for (const [table, list] of [
        ['log_keys', one],
        ['log_keys_more', shared],
      ]) {
        if (list.length === 0) continue;
        await q(
          `INSERT INTO ${table} (t, key, idx)
           SELECT * FROM unnest($1::int8[], $2::int8[], $3::int8[])`,
          [list.map((e) => e.t), list.map((e) => e.key), list.map((e) => e.index.toString())],
        );
      }
    }
    if (p.bundles.length > 0) {
      await q(
        `INSERT INTO log_bundles (idx, data) SELECT * FROM unnest($1::int8[], $2::bytea[])
         ON CONFLICT (idx) DO UPDATE SET data = EXCLUDED.data`,
        [p.bundles.map((b) => b.index.toString()), p.bundles.map((b) => buf(b.data))],
      );
    }
    if (p.tiles.length > 0) {
      await q(
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
    let checkpoint;
    if (p.checkpoint !== undefined) {
      checkpoint = { size: p.size, issued: p.checkpoint.issued, text: p.checkpoint.text };
      await q(
        `INSERT INTO log_checkpoints (size, issued, text) VALUES ($1, $2, $3)
         ON CONFLICT (size) DO UPDATE SET issued = EXCLUDED.issued, text = EXCLUDED.text`,
        [p.size.toString(), asInt64(p.checkpoint.issued), p.checkpoint.text],
      );
    }
    await q('UPDATE log_head SET size = $1, root = $2 WHERE id = 1', [
      p.size.toString(),
      buf(p.root),
    ]);
    if (taken.length > 0) {
      await q(
        `DELETE FROM log_pending WHERE (xid, id) IN
           (SELECT * FROM unnest($1::xid8[], $2::int8[]))`,
        [taken.map((x) => x.xid), taken.map((x) => x.id)],
      );
    }
    return { appended: entries.length, size: p.size, more, ...(checkpoint ? { checkpoint } : {}) };
  });
}

async function admit(c, log, rows, size) {
  const all = [];
  for (const row of rows) {
    for (let at = 0; at + ENTRY <= row.length; at += ENTRY) all.push(row.subarray(at, at + ENTRY));
  }
  const out = [];
  if (all.length === 0) return out;
  const ts = all.map((e) => asInt64(tailTime(e)));
  const keys = all.map((e) => keyOf(e.subarray(8)));
  const { rows: held } = await c.query(
    `SELECT k.t::text AS t, k.key::text AS key, k.idx::text AS idx
     FROM unnest($1::int8[], $2::int8[]) AS w(t, key)
     JOIN LATERAL (SELECT t, key, idx FROM log_keys WHERE t = w.t AND key = w.key
                   UNION ALL SELECT t, key, idx FROM log_keys_more WHERE t = w.t AND key = w.key) k
       ON true`,
    [ts, keys],
  );
  const byKey = new Map();
  for (const h of held) {
    const digest = await log.digestAt(c, BigInt(h.idx));
    const k = `${h.t}/${h.key}`;
    byKey.set(k, [...(byKey.get(k) ?? []), digest]);
  }
  all.forEach((entry, i) => {
    const k = `${ts[i]}/${keys[i]}`;
    const digest = entry.subarray(8);
    const same = byKey.get(k);
    if (same?.some((x) => equal(x, digest))) return;
    out.push({
      entry,
      t: ts[i],
      key: keys[i],
      index: size + BigInt(out.length),
      shared: same !== undefined,
    });
    byKey.set(k, [...(same ?? []), digest]);
  });
  return out;
}
