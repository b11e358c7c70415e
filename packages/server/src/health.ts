/**
 * The server's health: a fault is visible, and said once. A cause is raised when it starts and
 * cleared when it ends; each is logged once when raised (its first error, one line, no stack
 * trace) and once when cleared (with how many errors it counted), never once per request:
 *
 * - `commit`: group commits fail (the writer's connection, a full disk);
 * - `store`: the embedded store's file (or its `-wal`) was removed or replaced while running;
 * - `store_queries`: the store's queries fail (reads by digest, the loads heartbeat, the records'
 *   catch-up, the live reports, a connection of the pool dropped): cleared by the next query that
 *   works;
 * - `store_notifications`: the connection that listens for the other instances' notifications
 *   is down (listened again each second);
 * - `prune`: pruning fails;
 * - `log`: the decision log's integration or pruning fails (in the instance holding its lease;
 *   a witness that fails is not a cause);
 * - `store_damaged`: a row of the store does not rebuild the digest it is kept under (altered
 *   inside the database): each damaged row is logged once, naming its digest, and counted
 *   (`wai_steering_store_damaged_total`); it stays raised until the process ends.
 *
 * While any cause but `store_damaged` is raised `/healthz` answers `503` with the causes (the
 * instance cannot keep or read what it serves); `store_damaged` alone answers `200` with the
 * status `damaged` (the decisions served now are sound, and every instance on the same store
 * would be taken out of the balancer alike): see `docs/server.md`, *Faults*.
 */

/** A cause of degraded health. */
export type HealthCause =
  | 'commit'
  | 'store'
  | 'store_queries'
  | 'store_notifications'
  | 'prune'
  | 'log'
  | 'store_damaged';

/** Where faults are told: raised, then cleared (`Health`, or a sink of a test). */
export interface FaultSink {
  fail(cause: HealthCause, why: string): void;
  clear(cause: HealthCause): void;
}

/** Damaged rows logged, at most (a store damaged throughout must not flood the log). */
export const MAX_DAMAGED_LOGGED = 1000;

interface Raised {
  readonly since: number;
  readonly message: string;
  count: number;
}

/** One line of a thrown value: its code and message, no stack. */
export function describeError(e: unknown): string {
  if (e instanceof Error) {
    const code = (e as { code?: unknown }).code;
    const first = e.message.split('\n')[0] ?? '';
    return typeof code === 'string' && !first.includes(code) ? `${code}: ${first}` : first;
  }
  return String(e);
}

/** Options of {@link Health}. */
export interface HealthOptions {
  /** Where the log lines go (stderr by default). */
  readonly log?: (line: string) => void;
  /** ms; `Date.now` by default. */
  readonly now?: () => number;
}

export class Health implements FaultSink {
  private readonly raised = new Map<HealthCause, Raised>();
  private readonly log: (line: string) => void;
  private readonly now: () => number;
  /** Errors counted per cause since the start (the `wai_steering_store_errors_total` metric). */
  readonly errors = new Map<HealthCause, number>();
  /** The damaged rows logged already. */
  private readonly damagedSeen = new Set<string>();

  constructor(options: HealthOptions = {}) {
    this.log = options.log ?? ((line) => process.stderr.write(`${line}\n`));
    this.now = options.now ?? Date.now;
  }

  /** Raises `cause` (logged the first time only) and counts one error of it. */
  fail(cause: HealthCause, why: string): void {
    this.errors.set(cause, (this.errors.get(cause) ?? 0) + 1);
    const r = this.raised.get(cause);
    if (r !== undefined) {
      r.count++;
      return;
    }
    this.raised.set(cause, { since: this.now(), message: why, count: 1 });
    this.log(`wai-steering: degraded (${cause}): ${why}`);
  }

  /** Clears `cause`, logging how long it lasted and how many errors it counted. */
  clear(cause: HealthCause): void {
    const r = this.raised.get(cause);
    if (r === undefined) return;
    this.raised.delete(cause);
    const s = ((this.now() - r.since) / 1000).toFixed(1);
    this.log(`wai-steering: recovered (${cause}) after ${s} s and ${r.count} error(s)`);
  }

  /** Whether `cause` is raised. */
  has(cause: HealthCause): boolean {
    return this.raised.has(cause);
  }

  /** Whether no cause is raised. */
  get ok(): boolean {
    return this.raised.size === 0;
  }

  /** Whether a cause that makes `/healthz` answer 503 is raised (any but `store_damaged`). */
  get degraded(): boolean {
    for (const cause of this.raised.keys()) if (cause !== 'store_damaged') return true;
    return false;
  }

  /**
   * A row of the store that does not rebuild its digest (`what`: a decision, a record, a
   * policy; `digest`: the digest asked for, or the row's key): raises `store_damaged` and logs
   * one line per row found, the first {@link MAX_DAMAGED_LOGGED} of them; whether it is new.
   */
  damaged(what: string, digest: string): boolean {
    const key = `${what} ${digest}`;
    if (this.damagedSeen.has(key)) return false;
    if (this.damagedSeen.size < MAX_DAMAGED_LOGGED) {
      this.damagedSeen.add(key);
      this.log(
        `wai-steering: store damaged: the ${what} row kept for ${digest} does not rebuild its digest`,
      );
    }
    this.errors.set('store_damaged', (this.errors.get('store_damaged') ?? 0) + 1);
    const r = this.raised.get('store_damaged');
    if (r !== undefined) r.count++;
    else {
      this.raised.set('store_damaged', {
        since: this.now(),
        message: `a ${what} row does not rebuild its digest (${digest}): restore the store from a backup, or export what reads`,
        count: 1,
      });
    }
    return true;
  }

  /** The raised causes, for `/healthz`. */
  causes(): { cause: HealthCause; message: string; errors: number; since: string }[] {
    return [...this.raised].map(([cause, r]) => ({
      cause,
      message: r.message,
      errors: r.count,
      since: new Date(r.since).toISOString(),
    }));
  }
}

/** What each state of the store's files means, in the one line logged. */
const FILE_STATES = {
  removed:
    'the store file was removed while the server runs: decisions served now could not be fetched after a restart',
  replaced:
    'another file sits at the store path while the server runs: decisions served now would not be in it',
  wal_removed:
    "the store's -wal or -shm file was removed while the server runs: the commits not yet checkpointed would be lost at the next open",
  wal_replaced:
    "another file sits at the store's -wal or -shm path while the server runs: the commits not yet checkpointed would be lost at the next open",
} as const;

/**
 * Notes what sits at the embedded store's path (`SqliteStore.fileState`): anything but `ok`
 * raises the `store` cause (steering then answers `store_unavailable`, `/healthz` 503), logged
 * once and counted once.
 */
export function noteStoreFile(
  health: Health,
  metrics: { readonly storeErrors: { inc(labels: { op: string }): void } },
  state: 'ok' | keyof typeof FILE_STATES,
): void {
  if (state === 'ok') return;
  if (!health.has('store')) metrics.storeErrors.inc({ op: 'file' });
  health.fail('store', FILE_STATES[state]);
}
