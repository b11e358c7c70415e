/**
 * The embedded store's policies: the blobs (`blobs`: policies, room descriptors and key log
 * heads, by kind and digest) and the order of the policies put in force (`policy_rotations`,
 * for the workers of one file), with their pruning (`retention.ts` runs it in its transaction).
 */
import type Database from 'better-sqlite3';
import type { BlobKind, PolicyClaim, PolicyStore } from '../policies.js';
import { POLICY_LAG_US } from '../retention.js';
import {
  asBytes,
  asInt64,
  clampU64,
  type SqliteContext,
  settle,
  writeFromTheLoop,
} from './context.js';

/** A row of the order of policies, with the policy's bytes. */
interface ClaimRow {
  readonly seq: bigint;
  readonly digest: Buffer;
  readonly template: Buffer;
  readonly at: bigint;
  readonly by: string;
  readonly bytes: Buffer;
}

function claimOf(r: ClaimRow): PolicyClaim {
  return {
    seq: Number(r.seq),
    digest: asBytes(r.digest),
    bytes: asBytes(r.bytes),
    template: asBytes(r.template),
    at: r.at,
    by: r.by === 'live' ? 'live' : 'operator',
  };
}

export class SqlitePolicies implements PolicyStore {
  private readonly db: Database.Database;
  private readonly list: Database.Statement;
  private readonly put: Database.Statement;
  private readonly get: Database.Statement;

  constructor(private readonly ctx: SqliteContext) {
    const db = ctx.db;
    this.db = db;
    this.list = db.prepare('SELECT digest, bytes FROM blobs WHERE kind = ? ORDER BY digest');
    this.put = db.prepare('INSERT OR IGNORE INTO blobs (digest, kind, bytes) VALUES (?, ?, ?)');
    this.get = db.prepare('SELECT bytes FROM blobs WHERE kind = ? AND digest = ?').pluck();
  }

  listBlobs(kind: BlobKind): Promise<{ digest: Uint8Array; bytes: Uint8Array }[]> {
    return settle(() =>
      (this.list.all(kind) as { digest: Buffer; bytes: Buffer }[]).map((r) => ({
        digest: asBytes(r.digest),
        bytes: asBytes(r.bytes),
      })),
    );
  }

  putBlob(kind: BlobKind, digest: Uint8Array, bytes: Uint8Array): Promise<void> {
    return settle(() => {
      this.put.run(digest, kind, bytes);
    });
  }

  getBlob(kind: BlobKind, digest: Uint8Array): Promise<Uint8Array | undefined> {
    return settle(() => this.getBlobSync(kind, digest));
  }

  private getBlobSync(kind: BlobKind, digest: Uint8Array): Uint8Array | undefined {
    if (digest.length !== 32) return undefined;
    const b = this.get.get(kind, digest) as Buffer | undefined;
    return b === undefined ? undefined : asBytes(b);
  }

  /** The key log heads kept (`putBlob('key-log', …)`), in no order. */
  keyLogHeads(): Promise<Uint8Array[]> {
    return settle(() => this.keyLogHeadsSync());
  }

  private keyLogHeadsSync(): Uint8Array[] {
    const rows = this.db
      .prepare("SELECT bytes FROM blobs WHERE kind = 'key-log'")
      .pluck()
      .all() as Buffer[];
    return rows.map(asBytes);
  }

  claimPolicy(room: Uint8Array, c: PolicyClaim): Promise<boolean> {
    // Another worker's commit holding the write lock is waited for from the event loop.
    return writeFromTheLoop(this.ctx, () =>
      this.db
        .transaction(() => {
          const won =
            this.db
              .prepare(
                `INSERT OR IGNORE INTO policy_rotations (room, seq, digest, template, at, by)
               VALUES (?, ?, ?, ?, ?, ?)`,
              )
              .run(room, c.seq, c.digest, c.template, c.at, c.by).changes === 1;
          if (won) this.put.run(c.digest, 'policy', c.bytes);
          return won;
        })
        .immediate(),
    );
  }

  policyInForce(room: Uint8Array): Promise<PolicyClaim | undefined> {
    return settle(() => {
      const r = this.db
        .prepare(
          `SELECT r.seq, r.digest, r.template, r.at, r.by, b.bytes FROM policy_rotations r
           JOIN blobs b ON b.kind = 'policy' AND b.digest = r.digest
           WHERE r.room = ? ORDER BY r.seq DESC LIMIT 1`,
        )
        .safeIntegers(true)
        .get(room) as ClaimRow | undefined;
      return r === undefined ? undefined : claimOf(r);
    });
  }

  policySchedule(room: Uint8Array, now: bigint): Promise<PolicyClaim[]> {
    return settle(() => {
      const rows = this.db
        .prepare(
          `SELECT r.seq, r.digest, r.template, r.at, r.by, b.bytes FROM policy_rotations r
           JOIN blobs b ON b.kind = 'policy' AND b.digest = r.digest
           WHERE r.room = ? AND r.seq >= coalesce(
             (SELECT max(seq) FROM policy_rotations WHERE room = ? AND at <= ?), 0)
           ORDER BY r.seq`,
        )
        .safeIntegers(true)
        .all(room, room, asInt64(now)) as ClaimRow[];
      return rows.map(claimOf);
    });
  }

  policyClaims(room: Uint8Array): Promise<PolicyClaim[]> {
    return settle(() =>
      (
        this.db
          .prepare(
            `SELECT r.seq, r.digest, r.template, r.at, r.by, b.bytes FROM policy_rotations r
             JOIN blobs b ON b.kind = 'policy' AND b.digest = r.digest
             WHERE r.room = ? ORDER BY r.seq`,
          )
          .safeIntegers(true)
          .all(room) as ClaimRow[]
      ).map(claimOf),
    );
  }

  /**
   * In the prune's transaction: removes the claims of the order of policies that a later claim
   * replaced more than {@link POLICY_LAG_US} before the oldest kept decision (no kept decision,
   * nor one an instance lagging behind the order made, names their policy), and the bytes of the
   * live policies among them that no remaining claim names. An operator's policies (few) are
   * kept.
   */
  prune(oldestKept: bigint): void {
    const before = oldestKept - POLICY_LAG_US;
    if (before <= 0n) return;
    const gone = this.db
      .prepare(
        `SELECT r.room, r.seq, r.digest, r.by FROM policy_rotations r
         JOIN policy_rotations n ON n.room = r.room AND n.seq = r.seq + 1
         WHERE n.at < ?`,
      )
      .safeIntegers(true)
      .all(clampU64(before)) as { room: Buffer; seq: bigint; digest: Buffer; by: string }[];
    const removeRow = this.db.prepare('DELETE FROM policy_rotations WHERE room = ? AND seq = ?');
    const removeBlob = this.db.prepare(
      `DELETE FROM blobs WHERE kind = 'policy' AND digest = ? AND NOT EXISTS
         (SELECT 1 FROM policy_rotations WHERE digest = ? OR template = ?)`,
    );
    for (const g of gone) removeRow.run(g.room, g.seq);
    for (const g of gone) if (g.by === 'live') removeBlob.run(g.digest, g.digest, g.digest);
  }
}
