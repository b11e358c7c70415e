/**
 * The server's health: degraded is visible. A cause (`commit`: group commits fail; `prune`: pruning fails; `store`: the
 * store file was removed or replaced; `log`: the decision log's integration or pruning fails) is raised when it starts and cleared when it ends; while
 * any is raised `/healthz` answers `503` with the causes. Each cause is logged once when raised
 * (its first error, one line, no stack trace) and once when cleared (with how many errors it
 * counted), never once per request.
 */

/** A cause of degraded health. */
export type HealthCause = 'commit' | 'store' | 'prune' | 'log';

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

export class Health {
  private readonly raised = new Map<HealthCause, Raised>();
  private readonly log: (line: string) => void;
  private readonly now: () => number;
  /** Errors counted per cause since the start (the `wai_steering_store_errors_total` metric). */
  readonly errors = new Map<HealthCause, number>();

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

/**
 * Notes what sits at the embedded store's path (`SqliteStore.fileState`): anything but `ok`
 * raises the `store` cause (steering then answers `store_unavailable`, `/healthz` 503), logged
 * once and counted once.
 */
export function noteStoreFile(
  health: Health,
  metrics: { readonly storeErrors: { inc(labels: { op: string }): void } },
  state: 'ok' | 'removed' | 'replaced',
): void {
  if (state === 'ok') return;
  if (!health.has('store')) metrics.storeErrors.inc({ op: 'file' });
  health.fail(
    'store',
    state === 'removed'
      ? 'the store file was removed while the server runs: decisions served now could not be fetched after a restart'
      : 'another file sits at the store path while the server runs: decisions served now would not be in it',
  );
}
