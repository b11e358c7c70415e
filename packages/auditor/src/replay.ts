/**
 * The load replay (§9.2): the loads a server states are its own count, and this is the rule it
 * counts by (`docs/audit.md`, *The load replay*):
 *
 * - the room clock's whole seconds: `s(t) = ⌊t / 10^6⌋`;
 * - a decision at `t` with TTL `ttl` places its session at the first pathway of its priority
 *   until `s(t) + ttl + grace_s`: the session counts there at every `t'` with
 *   `s(t') < s(t) + ttl + grace_s`, unless a later decision of the session placed it elsewhere;
 * - the load a decision states for each pathway is the count just before it is placed, the
 *   session's own previous placement included while it still counts.
 *
 * Sessions are counted per policy (a server serves one policy at a time and starts afresh when it
 * changes). Memory is bounded by the sessions that count at once.
 */

/** One session's placement. */
interface Placement {
  policy: string;
  pathway: number;
  /** The second (room clock) from which it no longer counts. */
  until: number;
}

/** A binary min-heap of distinct seconds. */
class SecondHeap {
  private readonly a: number[] = [];
  get size(): number {
    return this.a.length;
  }
  peek(): number | undefined {
    return this.a[0];
  }
  push(v: number): void {
    const a = this.a;
    a.push(v);
    let i = a.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (a[p]! <= v) break;
      a[i] = a[p]!;
      i = p;
    }
    a[i] = v;
  }
  pop(): number | undefined {
    const a = this.a;
    if (a.length === 0) return undefined;
    const top = a[0]!;
    const last = a.pop()!;
    if (a.length > 0) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= a.length) break;
        const r = l + 1;
        const c = r < a.length && a[r]! < a[l]! ? r : l;
        if (a[c]! >= last) break;
        a[i] = a[c]!;
        i = c;
      }
      a[i] = last;
    }
    return top;
  }
}

/** `s(t)`: the room clock's whole seconds of `t` (µs). */
export function secondOf(t: bigint): number {
  return Number(t / 1_000_000n);
}

export class LoadReplay {
  private readonly sessions = new Map<string, Placement>();
  private readonly counts = new Map<string, Int32Array>();
  /** Sessions by the second their placement ends (checked against the placement when due). */
  private readonly due = new Map<number, string[]>();
  private readonly heap = new SecondHeap();
  private lastT = -1n;

  constructor(private readonly graceS: number) {
    if (!Number.isInteger(graceS) || graceS < 0) throw new TypeError('LoadReplay: grace_s');
  }

  /** Sessions that count at the last instant advanced to. */
  get live(): number {
    return this.sessions.size;
  }

  private countsOf(policy: string, m: number): Int32Array {
    let c = this.counts.get(policy);
    if (c === undefined || c.length < m) {
      const grown = new Int32Array(Math.max(m, c?.length ?? 0));
      if (c !== undefined) grown.set(c);
      c = grown;
      this.counts.set(policy, c);
    }
    return c;
  }

  /** Moves the room clock to `t` (ascending): placements that no longer count are dropped. */
  advance(t: bigint): void {
    if (t < this.lastT) throw new RangeError('LoadReplay: decisions must come in ascending t');
    this.lastT = t;
    const now = secondOf(t);
    for (;;) {
      const s = this.heap.peek();
      if (s === undefined || s > now) break;
      this.heap.pop();
      const list = this.due.get(s) ?? [];
      this.due.delete(s);
      for (const key of list) {
        const p = this.sessions.get(key);
        if (p === undefined || p.until !== s) continue; // placed again since
        this.countsOf(p.policy, p.pathway + 1)[p.pathway]!--;
        this.sessions.delete(key);
      }
    }
  }

  /** The replayed load of each of `m` pathways of `policy` at the instant advanced to. */
  loads(policy: string, m: number): Int32Array {
    return this.countsOf(policy, m).subarray(0, m);
  }

  /** Places `session` at `pathway` of `policy` by a decision at `t` with TTL `ttl` (s). */
  place(policy: string, session: string, pathway: number, t: bigint, ttl: number): void {
    const prev = this.sessions.get(session);
    if (prev !== undefined) this.countsOf(prev.policy, prev.pathway + 1)[prev.pathway]!--;
    const until = secondOf(t) + ttl + this.graceS;
    this.countsOf(policy, pathway + 1)[pathway]!++;
    if (prev !== undefined) {
      prev.policy = policy;
      prev.pathway = pathway;
      prev.until = until;
    } else {
      this.sessions.set(session, { policy, pathway, until });
    }
    let list = this.due.get(until);
    if (list === undefined) {
      list = [];
      this.due.set(until, list);
      this.heap.push(until);
    }
    list.push(session);
  }
}
