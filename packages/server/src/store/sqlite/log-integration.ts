/**
 * The embedded store's decision log, written: an integration (the pending entries made entries,
 * tiles and maybe a checkpoint, in one transaction) and the log's pruning. The tables and the
 * reads are `log.ts`.
 */
import { bytesEqual } from '@wai-steering/wire';
import { traced } from '../../trace.js';
import { bundleEntries, ENTRY } from '../entries.js';
import type { LogIntegrated, LogPlan, LogPlanInput, LogWrites, StoredCheckpoint } from '../log.js';
import { asBytes, asInt64, asU64, INT_MAX, writeFromTheLoop } from './context.js';
import { entryTime, indexColumn, KEYS_AT_ONCE, logKeyOf, type SqliteLog } from './log.js';

export class SqliteLogIntegration implements Pick<LogWrites, 'integrateLog' | 'pruneLog'> {
  constructor(private readonly log: SqliteLog) {}

  integrateLog(
    plan: (input: LogPlanInput) => LogPlan,
    options: { readonly maxEntries: number; readonly maxDelayMs: number },
  ): Promise<LogIntegrated | undefined> {
    // Another worker's commit holding the write lock is waited for from the event loop.
    return writeFromTheLoop(this.log.ctx, () =>
      traced('log-integration', () =>
        this.log.db.transaction(() => this.integrateSync(plan, options.maxEntries)).immediate(),
      ),
    );
  }

  /**
   * The integration's transaction (IMMEDIATE: the write lock held throughout, so that nothing
   * commits meanwhile and every pending row is settled). Pending rows in the order of their ids,
   * which is the order of the commits.
   */
  private integrateSync(
    plan: (input: LogPlanInput) => LogPlan,
    maxEntries: number,
  ): LogIntegrated | undefined {
    const st = this.log.st;
    const head = this.log.headSync();
    if (head === undefined) throw new Error('the decision log has not begun (beginLog)');
    const latest = st.latest.get() as { size: bigint } | undefined;
    const checkpointed = latest === undefined ? undefined : asU64(latest.size);
    const taken: Uint8Array[] = [];
    let last: number | undefined;
    let more = false;
    let count = 0;
    for (const row of st.pending.iterate() as Iterable<{ id: number; entries: Buffer }>) {
      if (last !== undefined && count >= maxEntries) {
        more = true;
        break;
      }
      last = row.id;
      taken.push(asBytes(row.entries));
      count += row.entries.length / ENTRY;
    }
    if (last === undefined && checkpointed === head.size) return undefined;
    const entries = this.admit(taken, head.size);
    const edge = this.edgeOf(head.size);
    const p = plan({ head, entries, edge, complete: !more, checkpointed });
    if (p.size !== head.size + BigInt(entries.length)) {
      throw new TypeError('integrateLog: the plan is not of the entries given');
    }
    for (const b of p.bundles) st.putBundle.run(asInt64(b.index), b.data);
    for (const tile of p.tiles) st.putTile.run(tile.level, asInt64(tile.index), tile.data);
    let checkpoint: StoredCheckpoint | undefined;
    if (p.checkpoint !== undefined) {
      checkpoint = { size: p.size, issued: p.checkpoint.issued, text: p.checkpoint.text };
      st.putCheckpoint.run(asInt64(p.size), asInt64(p.checkpoint.issued), p.checkpoint.text);
    }
    st.setHead.run(asInt64(p.size), p.root);
    if (last !== undefined) st.dropPending.run(last);
    return {
      appended: entries.length,
      size: p.size,
      more,
      ...(checkpoint === undefined ? {} : { checkpoint }),
    };
  }

  /**
   * The entries of the pending rows, in order, each given the next index under its `t` and its
   * digest's first 8 bytes (one insert of `log_keys` an entry, which tells a digest already
   * logged): a (t, key) held already is a digest the log holds (left out) or another digest of
   * the same t and first 8 bytes (kept, its index in `log_keys_more`).
   */
  private admit(rows: readonly Uint8Array[], size: bigint): Uint8Array[] {
    const st = this.log.st;
    const all: Uint8Array[] = [];
    for (const row of rows) {
      for (let at = 0; at + ENTRY <= row.length; at += ENTRY)
        all.push(row.subarray(at, at + ENTRY));
    }
    const out: Uint8Array[] = [];
    const params: (number | bigint)[] = new Array(3 * KEYS_AT_ONCE);
    for (let from = 0; from < all.length; from += KEYS_AT_ONCE) {
      const chunk = all.slice(from, from + KEYS_AT_ONCE);
      // A whole chunk at once, in one statement, when none of it is held already (the rule):
      // under a savepoint, undone when one was, and that chunk taken one entry at a time.
      if (chunk.length === KEYS_AT_ONCE) {
        const first = size + BigInt(out.length);
        // The indexes as numbers while they are exact (every log of this era), else bigints.
        const from = first + BigInt(KEYS_AT_ONCE) <= INT_MAX ? Number(first) : undefined;
        for (let j = 0; j < KEYS_AT_ONCE; j++) {
          const e = chunk[j]!;
          params[3 * j] = entryTime(e);
          params[3 * j + 1] = logKeyOf(e);
          params[3 * j + 2] = from === undefined ? indexColumn(first + BigInt(j)) : from + j;
        }
        st.savepoint.run();
        if (st.addKeys.run(...params).changes === KEYS_AT_ONCE) {
          st.releaseSavepoint.run();
          out.push(...chunk);
          continue;
        }
        st.rollbackTo.run();
        st.releaseSavepoint.run();
      }
      for (const e of chunk) {
        const digest = e.subarray(8);
        const t = entryTime(e);
        const key = logKeyOf(e);
        const idx = indexColumn(size + BigInt(out.length));
        if (st.addKey.run(t, key, idx).changes === 1) {
          out.push(e);
          continue;
        }
        const held = (st.keyIdx.all(t, key, t, key) as bigint[]).map(asU64);
        if (held.some((i) => bytesEqual(this.log.digestAt(i, size, out), digest))) continue;
        st.addMoreKey.run(t, key, idx);
        out.push(e);
      }
    }
    return out;
  }

  /** The right edge of the log of `size` entries, as stored. */
  private edgeOf(size: bigint): LogPlanInput['edge'] {
    const st = this.log.st;
    let entries: Uint8Array[] = [];
    if (size % 256n !== 0n) {
      const data = st.bundle.get(asInt64(size >> 8n)) as Buffer | undefined;
      entries = data === undefined ? [] : bundleEntries(asBytes(data));
    }
    const tiles = new Map<number, Uint8Array>();
    for (let level = 1; size >> BigInt(8 * level) > 0n; level++) {
      const width = Number((size >> BigInt(8 * level)) & 255n);
      if (width === 0) continue;
      const data = st.tile.get(level, asInt64(size >> BigInt(8 * (level + 1)))) as
        | Buffer
        | undefined;
      if (data === undefined || data.length < width * 32) {
        throw new Error(
          `the decision log's tile ${level}/${size >> BigInt(8 * (level + 1))} is missing`,
        );
      }
      tiles.set(level, asBytes(data).subarray(0, width * 32));
    }
    return { entries, tiles };
  }

  pruneLog(
    issuedBefore: bigint,
  ): Promise<{ minIndex: bigint; entries: number; checkpoints: number }> {
    // Another worker's commit holding the write lock is waited for from the event loop.
    return writeFromTheLoop(this.log.ctx, () =>
      this.log.db
        .transaction(() => {
          const head = this.log.headSync();
          if (head === undefined) return { minIndex: 0n, entries: 0, checkpoints: 0 };
          const db = this.log.db;
          // The newest checkpoint issued before the cutoff, the latest of all kept whatever its age.
          const cut = db
            .prepare(
              `SELECT max(size) FROM log_checkpoints WHERE issued < ?
                 AND size < (SELECT max(size) FROM log_checkpoints)`,
            )
            .safeIntegers(true)
            .pluck()
            .get(asInt64(issuedBefore)) as bigint | null;
          if (cut === null) return { minIndex: head.minIndex, entries: 0, checkpoints: 0 };
          // Never lowered (bigints: no Math.max).
          let minIndex = head.minIndex;
          if (asU64(cut) > minIndex) minIndex = asU64(cut);
          const checkpoints = db
            .prepare('DELETE FROM log_checkpoints WHERE size <= ?')
            .run(cut).changes;
          // The bundles wholly below the minimum index, and their entries' keys (tlog-tiles,
          // Pruning: the level-0 tiles derived from them go too; level 1 keeps their hashes).
          const st = this.log.st;
          let entries = 0;
          const below = asInt64(minIndex >> 8n);
          const lowest = db
            .prepare('SELECT min(idx) FROM log_bundles')
            .safeIntegers(true)
            .pluck()
            .get() as bigint | null;
          // A page of bundles at a time (a statement cannot run while another iterates).
          for (let from = lowest ?? below; from < below; from += 64n) {
            const page = st.bundles.all(from, from + 64n < below ? from + 64n : below) as {
              idx: bigint;
              data: Buffer;
            }[];
            for (const b of page) {
              bundleEntries(asBytes(b.data)).forEach((e, i) => {
                const key = logKeyOf(e);
                const t = entryTime(e);
                const idx = indexColumn((asU64(b.idx) << 8n) + BigInt(i));
                if (st.dropKey.run(t, key, idx).changes === 0) st.dropMoreKey.run(t, key, idx);
                entries++;
              });
            }
          }
          db.prepare('DELETE FROM log_bundles WHERE idx < ?').run(asInt64(minIndex >> 8n));
          db.prepare('UPDATE log_head SET min_index = ? WHERE id = 1').run(asInt64(minIndex));
          return { minIndex, entries, checkpoints };
        })
        .immediate(),
    );
  }
}
