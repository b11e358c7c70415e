/**
 * What the shared store's concerns share: its connections and the column conversions every
 * concern uses. One context per store, given to each concern (`decisions.ts`, `records.ts`, …).
 *
 * Connections: one writer for the group commit (replaced when it breaks), a pool of readers
 * (and of connections held for a transaction: {@link PgContext.hold}), and one that listens
 * (`notices.ts`).
 *
 * Durability: one transaction per group commit, `synchronous_commit = on` on the writer's
 * connection, so that a commit that returned is on the database's disk (and its standbys', where
 * the database is so configured) whatever then happens to this process.
 */
import { hash } from 'node:crypto';
import pg from 'pg';
import type { FaultSink } from '../../health.js';

export const INT8_MAX = (1n << 63n) - 1n;
/** A u64 in a signed 64-bit column, exactly (two's complement): the log's `t`. */
export const asInt64 = (v: bigint): string => BigInt.asIntN(64, v).toString();
export const asU64 = (v: string): bigint => BigInt.asUintN(64, BigInt(v));

export const clamp = (v: bigint): bigint => (v > INT8_MAX ? INT8_MAX : v < 0n ? 0n : v);
export const sha256 = (b: Uint8Array): Buffer => hash('sha256', b, 'buffer');
export const equal = (a: Uint8Array, b: Uint8Array): boolean =>
  a.length === b.length && Buffer.compare(a, b) === 0;
export const asBytes = (b: Buffer): Uint8Array =>
  new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
export const buf = (b: Uint8Array): Buffer => Buffer.from(b.buffer, b.byteOffset, b.byteLength);

/** `t` of a tail (its first 8 bytes, u64 little-endian), µs. */
export function tailTime(tail: Uint8Array): bigint {
  return new DataView(tail.buffer, tail.byteOffset, 8).getBigUint64(0, true);
}

/** Writers whose connection failed (they are replaced at the next commit). */
const broken = new WeakSet<pg.Client>();

/**
 * The writer's connection: `synchronous_commit = on`, whatever the database's default; with
 * `instance`, the decisions it writes are that instance's (`wai.instance`, the column's default:
 * `schema.ts`, version 5).
 */
export async function connectWriter(url: string, instance?: number): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: url });
  // The commit that fails with it is what is told (`commit`); the next one connects again.
  c.on('error', () => broken.add(c));
  c.on('end', () => broken.add(c));
  await c.connect();
  await c.query('SET synchronous_commit = on');
  if (instance !== undefined) {
    await c.query("SELECT set_config('wai.instance', $1, false)", [String(instance)]);
  }
  return c;
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

/** The connections of one store, and where their faults are told. */
export class PgContext {
  /** Whether the store is closed (or closing). */
  closed = false;
  /** Where the connections' faults are told (the server's health); nowhere until told. */
  faults: FaultSink = { fail() {}, clear() {} };

  constructor(
    readonly url: string,
    /** The group commit's connection. */
    public writer: pg.Client,
    /** The readers. */
    readonly pool: pg.Pool,
    /** The instance the writer's decisions are kept under, when given. */
    readonly instance?: number,
  ) {}

  /** Whether the writer's connection broke (the database restarted, a network cut). */
  writerBroken(): boolean {
    return broken.has(this.writer) && !this.closed;
  }

  /** Replaces the writer by a new connection (the one that broke is ended). */
  async reconnectWriter(): Promise<void> {
    this.writer.end().catch(() => {});
    this.writer = await connectWriter(this.url, this.instance);
  }

  /**
   * A connection of the pool, held for a transaction. While it is held the pool does not listen
   * for its errors, so a connection that drops then (the database stopped or restarted) would be
   * an unhandled `error` event, which ends the process: here it is the transaction's (the query
   * under way fails with it), and the connection is destroyed at its release rather than given
   * back to the pool.
   */
  async hold(): Promise<pg.PoolClient> {
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
}
