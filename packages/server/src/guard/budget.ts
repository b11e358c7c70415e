/**
 * Abuse budgets: a token bucket per client address, one for requests and one for new sessions,
 * both spent at the door (the routes), before the engine does any work. A request past its
 * client's budget is declined with the time until it is within it again (`routes/responses.ts`
 * says how that is answered).
 *
 * The client address is the peer's, or, when the peer is a configured trusted proxy, the
 * rightmost address of `X-Forwarded-For` that is not itself a trusted proxy (the one the first
 * trusted proxy saw; what lies left of it the client wrote and is not read).
 *
 * Buckets are kept for at most `maxClients` addresses; past it the least recently seen bucket
 * that is full again (its client idle long enough to have earned its whole burst back) goes, or
 * when none is, the least recently seen one (its client then starts with a full burst: the bound
 * on memory wins over the bound on a client that rotates through more addresses than that).
 */

/** One bucket's parameters: `rate` tokens a second, at most `burst`; `rate` 0 turns it off. */
export interface BucketLimits {
  readonly rate: number;
  readonly burst: number;
}

interface Bucket {
  tokens: number;
  /** ms, of the clock given. */
  at: number;
}

/** Token buckets by key. */
export class TokenBuckets {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly limits: BucketLimits,
    private readonly maxKeys: number,
  ) {
    if (!(limits.rate >= 0) || !(limits.burst >= 1)) {
      throw new TypeError('TokenBuckets: rate ≥ 0 and burst ≥ 1');
    }
  }

  /** Whether the budget is on. */
  get enabled(): boolean {
    return this.limits.rate > 0;
  }

  /** Keys tracked. */
  get size(): number {
    return this.buckets.size;
  }

  /**
   * Takes one token of `key`'s bucket at `nowMs`: 0 when taken, otherwise the seconds until one
   * is there (for `Retry-After`, at least 1).
   */
  take(key: string, nowMs: number): number {
    const { rate, burst } = this.limits;
    if (rate <= 0) return 0;
    let b = this.buckets.get(key);
    if (b === undefined) {
      if (this.buckets.size >= this.maxKeys) this.evict(nowMs);
      b = { tokens: burst, at: nowMs };
    } else {
      this.buckets.delete(key); // re-inserted below: the map's order is last seen
      b.tokens = Math.min(burst, b.tokens + ((nowMs - b.at) / 1000) * rate);
      b.at = nowMs;
    }
    this.buckets.set(key, b);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - b.tokens) / rate));
  }

  private evict(nowMs: number): void {
    const { rate, burst } = this.limits;
    let scanned = 0;
    for (const [key, b] of this.buckets) {
      if (b.tokens + ((nowMs - b.at) / 1000) * rate >= burst) {
        this.buckets.delete(key);
        return;
      }
      if (++scanned >= 64) break;
    }
    // None of the oldest is full again: the oldest goes.
    const oldest = this.buckets.keys().next();
    if (oldest.done !== true) this.buckets.delete(oldest.value);
  }
}

/** Options of {@link ClientBudget}. */
export interface ClientBudgetOptions {
  readonly requests: BucketLimits;
  readonly sessions: BucketLimits;
  /** Peers whose `X-Forwarded-For` is read (exact addresses, as the socket gives them). */
  readonly trustedProxies: readonly string[];
  /** Addresses tracked at most, per budget. */
  readonly maxClients: number;
  /** ms; `Date.now` by default. */
  readonly now?: () => number;
  /** Told of each request or new session refused (the server counts them). */
  readonly onRefused?: (budget: 'requests' | 'sessions') => void;
}

/** IPv4-mapped IPv6 addresses as IPv4 (`::ffff:127.0.0.1` → `127.0.0.1`). */
function normal(address: string): string {
  const a = address.trim();
  return a.startsWith('::ffff:') && a.includes('.') ? a.slice(7) : a;
}

/** A client past one of its budgets: which, and how long until it is within it again. */
export interface OverBudget {
  readonly kind: 'over_budget';
  readonly budget: 'requests' | 'sessions';
  readonly why: string;
  /** Seconds until the bucket holds a token again (at least 1). */
  readonly waitS: number;
}

/** The per-client budgets of requests and of new sessions, spent at the door. */
export class ClientBudget {
  private readonly requests: TokenBuckets;
  private readonly sessions: TokenBuckets;
  private readonly trusted: ReadonlySet<string>;
  private readonly now: () => number;
  private readonly onRefused: ((budget: 'requests' | 'sessions') => void) | undefined;

  constructor(options: ClientBudgetOptions) {
    this.onRefused = options.onRefused;
    this.requests = new TokenBuckets(options.requests, options.maxClients);
    this.sessions = new TokenBuckets(options.sessions, options.maxClients);
    this.trusted = new Set(options.trustedProxies.map(normal));
    this.now = options.now ?? Date.now;
  }

  /** Addresses tracked (requests, sessions). */
  get tracked(): { requests: number; sessions: number } {
    return { requests: this.requests.size, sessions: this.sessions.size };
  }

  /**
   * The client's address: the peer's, or, behind a trusted proxy, the rightmost address of
   * `X-Forwarded-For` that is not a trusted proxy. `undefined` when the peer is unknown.
   */
  clientOf(peer: string | undefined, forwardedFor: string | undefined): string | undefined {
    if (peer === undefined) return undefined;
    let client = normal(peer);
    if (forwardedFor === undefined || !this.trusted.has(client)) return client;
    const hops = forwardedFor.split(',');
    for (let i = hops.length - 1; i >= 0; i--) {
      const hop = normal(hops[i]!);
      if (hop === '') break;
      client = hop;
      if (!this.trusted.has(hop)) break;
    }
    return client;
  }

  /** A request of `client`: 0 when within its budget, else the seconds to wait. */
  request(client: string | undefined): number {
    return client === undefined ? 0 : this.requests.take(client, this.now());
  }

  /** A new session minted for `client`: 0 when within its budget, else the seconds to wait. */
  newSession(client: string | undefined): number {
    return client === undefined ? 0 : this.sessions.take(client, this.now());
  }

  /**
   * Spends one token of `client`'s budget of `budget` (a request, or a session minted for it):
   * `undefined` when within it, an {@link OverBudget} past it (counted by `onRefused`).
   */
  spend(budget: 'requests' | 'sessions', client: string | undefined): OverBudget | undefined {
    const wait = budget === 'requests' ? this.request(client) : this.newSession(client);
    if (wait === 0) return undefined;
    this.onRefused?.(budget);
    return {
      kind: 'over_budget',
      budget,
      why:
        budget === 'requests'
          ? 'this client sent too many requests'
          : 'this client asked for too many new sessions',
      waitS: wait,
    };
  }
}
