/**
 * The shared store's policies: the blobs (`blobs`: policies, room descriptors and key log heads,
 * by kind and digest; a new one notifies `wai_blobs` with `kind:hex` in its transaction) and the
 * order of the policies put in force for every instance (`policy_rotations`; a claim notifies
 * `wai_live`), with their pruning (`retention.ts` runs it in its transaction).
 */
import type pg from 'pg';
import type { BlobKind, PolicyClaim, PolicyStore } from '../policies.js';
import { POLICY_LAG_US } from '../retention.js';
import { asBytes, buf, clamp, type PgContext } from './context.js';

export class PgPolicies implements PolicyStore {
  constructor(private readonly ctx: PgContext) {}

  async putBlob(kind: BlobKind, digest: Uint8Array, bytes: Uint8Array): Promise<void> {
    await this.ctx.pool.query(
      `WITH ins AS (
         INSERT INTO blobs (kind, digest, bytes) VALUES ($1, $2, $3)
         ON CONFLICT (kind, digest) DO NOTHING RETURNING kind, digest
       )
       SELECT pg_notify('wai_blobs', kind || ':' || encode(digest, 'hex')) FROM ins`,
      [kind, buf(digest), buf(bytes)],
    );
  }

  async getBlob(kind: BlobKind, digest: Uint8Array): Promise<Uint8Array | undefined> {
    if (digest.length !== 32) return undefined;
    const { rows } = await this.ctx.pool.query<{ bytes: Buffer }>(
      'SELECT bytes FROM blobs WHERE kind = $1 AND digest = $2',
      [kind, buf(digest)],
    );
    return rows[0] === undefined ? undefined : asBytes(rows[0].bytes);
  }

  /** Every kept blob of a kind (policies, rooms, key log heads: a handful), by digest. */
  async listBlobs(kind: BlobKind): Promise<{ digest: Uint8Array; bytes: Uint8Array }[]> {
    const { rows } = await this.ctx.pool.query<{ digest: Buffer; bytes: Buffer }>(
      'SELECT digest, bytes FROM blobs WHERE kind = $1 ORDER BY digest',
      [kind],
    );
    return rows.map((r) => ({ digest: asBytes(r.digest), bytes: asBytes(r.bytes) }));
  }

  /** The key log heads kept, in no order (the start-up check of the configured head). */
  async keyLogHeads(): Promise<Uint8Array[]> {
    return (await this.listBlobs('key-log')).map((b) => b.bytes);
  }

  async claimPolicy(room: Uint8Array, c: PolicyClaim): Promise<boolean> {
    // One statement, so one transaction: the claim and the policy's bytes are seen together.
    const { rows } = await this.ctx.pool.query(
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
    const { rows } = await this.ctx.pool.query<ClaimRow>(
      `SELECT r.seq::text AS seq, r.digest, r.template, r.at::text AS at, r.by, b.bytes
       FROM policy_rotations r JOIN blobs b ON b.kind = 'policy' AND b.digest = r.digest
       WHERE r.room = $1 ORDER BY r.seq DESC LIMIT 1`,
      [buf(room)],
    );
    const r = rows[0];
    return r === undefined ? undefined : claimOf(r);
  }

  async policyClaims(room: Uint8Array): Promise<PolicyClaim[]> {
    const { rows } = await this.ctx.pool.query<ClaimRow>(
      `SELECT r.seq::text AS seq, r.digest, r.template, r.at::text AS at, r.by, b.bytes
       FROM policy_rotations r JOIN blobs b ON b.kind = 'policy' AND b.digest = r.digest
       WHERE r.room = $1 ORDER BY r.seq`,
      [buf(room)],
    );
    return rows.map(claimOf);
  }

  /**
   * In the prune's transaction on `c`, the order of policies and the live policies no kept
   * decision can name (§8.4): the claims a later claim replaced more than
   * {@link POLICY_LAG_US} before the oldest kept decision, `oldestKept` (an instance lagging
   * behind the order decides under a replaced policy for a second or so), and the bytes of the
   * live policies among them that no remaining claim names.
   */
  async prune(c: pg.ClientBase, oldestKept: bigint): Promise<void> {
    const cut = oldestKept - POLICY_LAG_US;
    if (cut <= 0n) return;
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
}

interface ClaimRow {
  seq: string;
  digest: Buffer;
  template: Buffer;
  at: string;
  by: string;
  bytes: Buffer;
}

function claimOf(r: ClaimRow): PolicyClaim {
  return {
    seq: Number(r.seq),
    digest: asBytes(r.digest),
    bytes: asBytes(r.bytes),
    template: asBytes(r.template),
    at: BigInt(r.at),
    by: r.by === 'live' ? 'live' : 'operator',
  };
}
