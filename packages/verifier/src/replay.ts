/**
 * The load replay (§9.2): the loads a server states are its own count, and this is the rule every
 * implementation counts by and audits by (`docs/audit.md`, *The load replay*):
 *
 * - a decision at `t` with TTL `ttl` places its session at its first pathway; the session counts
 *   there at every `t′` with `t′ < t + (ttl + grace_s) × 10^6` (µs, exact), unless a later
 *   decision of the same session placed it again;
 * - the load a decision states is the count just before it is placed (its own earlier placement
 *   included while it counts);
 * - across a change of policy (a decision naming another policy than the decision before it) a
 *   session keeps counting at the pathway with the same ID in the new policy until its end; a
 *   session whose pathway the new policy lacks stops counting.
 *
 * The count at any instant `t` of the room clock (not only a decision's) is `advance(t)`, then
 * `loads()`, after every decision at or before `t` is placed: the auditor checks the loads a
 * decision states with it, and the energy account counts the sessions placed at each period's
 * midpoint (`@wai-steering/energy`), and a steering server rebuilds its session table at start
 * from the decisions it stored ({@link LoadReplay.placements}: the sessions that still count, with
 * their pathway and end).
 *
 * Memory is bounded by the sessions that count at once (and the placements replaced before their
 * end, until that end).
 */

/** One session's placement: the pathway (an interned ID) and the instant it stops counting. */
interface Placement {
  readonly key: string;
  readonly id: number;
  readonly end: bigint;
  /** What the caller gave with it (the instance that placed it, say). */
  readonly tag: number | undefined;
}

/** A session that counts, as {@link LoadReplay.placements} hands it back. */
export interface LivePlacement {
  /** The session, as given to `place`. */
  readonly session: string;
  /** The ID of the pathway it counts at. */
  readonly pathway: string;
  /** The instant it stops counting (µs, exclusive): its decision's `t + (ttl + grace_s) × 10^6`. */
  readonly end: bigint;
  /** The tag given to `place`, if any. */
  readonly tag: number | undefined;
}

/** A binary min-heap of placements by their end. */
class EndHeap {
  private readonly a: Placement[] = [];
  get size(): number {
    return this.a.length;
  }
  peek(): Placement | undefined {
    return this.a[0];
  }
  push(v: Placement): void {
    const a = this.a;
    a.push(v);
    let i = a.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (a[p]!.end <= v.end) break;
      a[i] = a[p]!;
      i = p;
    }
    a[i] = v;
  }
  pop(): void {
    const a = this.a;
    const last = a.pop();
    if (last === undefined || a.length === 0) return;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= a.length) break;
      const r = l + 1;
      const c = r < a.length && a[r]!.end < a[l]!.end ? r : l;
      if (a[c]!.end >= last.end) break;
      a[i] = a[c]!;
      i = c;
    }
    a[i] = last;
  }
}

/** The µs a second holds. */
const US = 1_000_000n;

export class LoadReplay {
  /** Each session's latest placement that may still count. */
  private readonly sessions = new Map<string, Placement>();
  private readonly heap = new EndHeap();
  /** Pathway IDs, interned: a session's pathway is its index here. */
  private readonly interned = new Map<string, number>();
  /** Sessions counting at each interned ID. */
  private counts = new Int32Array(8);
  /** The policy of the decision before: its key, its IDs as given and their interned indices. */
  private policy: string | undefined;
  private ids: readonly string[] | undefined;
  private order = new Int32Array(0);
  private out = new Int32Array(0);
  private lastT = -1n;
  private readonly graceUs: bigint;

  constructor(graceS: number) {
    if (!Number.isInteger(graceS) || graceS < 0) throw new TypeError('LoadReplay: grace_s');
    this.graceUs = BigInt(graceS) * US;
  }

  /** Sessions held: those that counted at the last instant advanced to. */
  get live(): number {
    return this.sessions.size;
  }

  private intern(id: string): number {
    let i = this.interned.get(id);
    if (i === undefined) {
      i = this.interned.size;
      this.interned.set(id, i);
      if (i >= this.counts.length) {
        const grown = new Int32Array(this.counts.length * 2);
        grown.set(this.counts);
        this.counts = grown;
      }
    }
    return i;
  }

  /**
   * The policy of the decision about to be replayed: `policy` names it (its digest), `ids` are
   * the IDs of its pathways in order. When it is another policy than the decision before's, each
   * session keeps counting at its pathway's ID when `ids` holds it, and stops counting otherwise.
   * Give the same `ids` array again for the same policy (it is then taken as it stands).
   */
  follow(policy: string, ids: readonly string[]): void {
    if (ids === this.ids && policy === this.policy) return;
    const order = new Int32Array(ids.length);
    for (let i = 0; i < ids.length; i++) order[i] = this.intern(ids[i]!);
    if (this.policy !== undefined && policy !== this.policy) {
      const kept = new Uint8Array(this.interned.size);
      for (const i of order) kept[i] = 1;
      let dropped = false;
      for (let i = 0; i < kept.length; i++) {
        if (kept[i] === 0 && this.counts[i] !== 0) {
          this.counts[i] = 0;
          dropped = true;
        }
      }
      if (dropped) {
        for (const [key, p] of this.sessions) if (kept[p.id] === 0) this.sessions.delete(key);
      }
    }
    this.policy = policy;
    this.ids = ids;
    this.order = order;
    this.out = new Int32Array(ids.length);
  }

  /** Moves the room clock to `t` (ascending): placements whose end has come stop counting. */
  advance(t: bigint): void {
    if (t < this.lastT) throw new RangeError('LoadReplay: decisions must come in ascending t');
    this.lastT = t;
    for (;;) {
      const p = this.heap.peek();
      if (p === undefined || p.end > t) break;
      this.heap.pop();
      // Placed again since, or dropped by a change of policy: not this placement's to end.
      if (this.sessions.get(p.key) !== p) continue;
      this.counts[p.id]!--;
      this.sessions.delete(p.key);
    }
  }

  /**
   * The replayed load of each pathway of the policy followed, at the instant advanced to (a view
   * the next call overwrites).
   */
  loads(): Int32Array {
    const out = this.out;
    for (let i = 0; i < out.length; i++) out[i] = this.counts[this.order[i]!]!;
    return out;
  }

  /**
   * The sessions that count at the last instant advanced to (or placed since), each at the
   * pathway ID and until the end of its latest placement, in no order. The IDs are among those
   * of the policy followed.
   */
  *placements(): IterableIterator<LivePlacement> {
    const names = [...this.interned.keys()];
    for (const p of this.sessions.values()) {
      yield { session: p.key, pathway: names[p.id]!, end: p.end, tag: p.tag };
    }
  }

  /**
   * Places `session` at `pathway` (an index into the IDs followed) by a decision at `t` with
   * TTL `ttl` (s): it counts there until `t + (ttl + grace_s) × 10^6`. `tag` is kept with the
   * placement and handed back by {@link LoadReplay.placements} (it changes nothing of the count).
   */
  place(session: string, pathway: number, t: bigint, ttl: number, tag?: number): void {
    if (!Number.isInteger(pathway) || pathway < 0 || pathway >= this.order.length) {
      throw new RangeError('LoadReplay.place: not a pathway of the policy followed');
    }
    const prev = this.sessions.get(session);
    if (prev !== undefined) this.counts[prev.id]!--;
    const p: Placement = {
      key: session,
      id: this.order[pathway]!,
      end: t + BigInt(ttl) * US + this.graceUs,
      tag,
    };
    this.counts[p.id]!++;
    this.sessions.set(session, p);
    this.heap.push(p);
  }
}
