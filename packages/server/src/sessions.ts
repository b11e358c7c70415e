/**
 * Sessions and loads (§6): each pathway's **load** is the number of sessions the server is
 * steering to it first, its own count, which each decision states (§7.1) and the capacity limit
 * reads (§6.1).
 *
 * The count follows the rule every implementation counts by and audits by (`docs/audit.md`, *The
 * load replay*; `LoadReplay` in `@wai-steering/verifier` replays it):
 *
 * - a decision at `t` with TTL `ttl` places its session at its first pathway; the session counts
 *   there at every `t′ < t + (ttl + grace_s) × 10^6` (µs of the room clock, exact), unless a later
 *   decision of the same session placed it again;
 * - the load a decision states is the count just before it is placed (its own earlier placement
 *   included while it counts);
 * - across a change of policy (a decision under another policy than the decision before it) a
 *   session keeps counting at the pathway with the same ID until its end; a session whose pathway
 *   the new policy lacks stops counting. The table counts under the pathway IDs of the last
 *   decision's policy ({@link SessionTable.follow}, called for each decision), not of the policy
 *   put in force by a rotation: a rotation undone before any decision drops nothing.
 *
 * The table is open addressing (linear probing, backward-shift deletion) over typed arrays keyed
 * by the 16-byte session: per slot 16 bytes of key, 8 of end (µs, a float64 that holds an integer
 * exactly below 2^53) and 1 of pathway, at a load factor of at most 3/4, so that a million live
 * sessions take 25 to 50 MB. The slots are probed from a keyed hash (a random seed per table), so
 * that clients choosing their sessions cannot build long probe runs. Sessions whose end has come
 * are swept incrementally: each `sweep(budget)` visits the next `budget` slots, and a session found
 * ended on lookup is removed there and then.
 *
 * The loads a decision states are `loadsAt(now)`: every session whose end has come is out of them
 * at once, swept or not. For that, the ends are also kept on a wheel of one bucket per second of
 * the room clock (`end-wheel.ts`). `current`, `place` and `loadsAt` allocate nothing but a
 * bucket's list now and then.
 */
import { randomBytes } from 'node:crypto';
import { EndWheel, MAX_PATHWAYS } from './end-wheel.js';

/** Options of {@link SessionTable}. */
export interface SessionTableOptions {
  /** Initial slots (rounded up to a power of two); the table doubles past 3/4 full. */
  readonly initialCapacity?: number;
  /** The most live sessions; `place` refuses a new session past it. */
  readonly maxSessions?: number;
}

const EMPTY = 0;

function mix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

function sameIds(a: readonly string[], b: readonly string[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function checkIds(ids: readonly string[], where: string): void {
  if (!Array.isArray(ids) || ids.length < 1 || ids.length > MAX_PATHWAYS) {
    throw new RangeError(`${where}: 1 to ${MAX_PATHWAYS} pathway IDs`);
  }
}

export class SessionTable {
  private capacity: number;
  private mask: number;
  private keys: Uint32Array;
  /** Each session's end, µs of the room clock (it counts while now < end). */
  private end: Float64Array;
  /** 0: empty slot; otherwise the pathway index + 1, among {@link SessionTable.ids}. */
  private pathway: Uint8Array;
  private size_ = 0;
  private cursor = 0;
  private readonly seed: Uint32Array;
  private readonly maxSessions: number;
  /** The pathway IDs the sessions are counted under: those of the last decision's policy. */
  private counted: readonly string[];
  /** The pathway IDs `loads` and `loadsAt` give by default: the policy in force's. */
  private shown: readonly string[];
  /** Per pathway counted, the sessions held (some may have ended: see the wheel's `gone`). */
  private readonly held = new Uint32Array(MAX_PATHWAYS);
  /** The sessions' ends, and per pathway how many have come (`end-wheel.ts`). */
  private readonly wheel = new EndWheel();
  private heldView: Uint32Array;
  /** `loadsAt`'s answer for the counted IDs, written in place. */
  private live: Uint32Array;
  /** `loadsAt`'s answer for other IDs: the last ones asked, their indices counted, the answer. */
  private viewIds: readonly string[] | undefined;
  private viewMap = new Int16Array(0);
  private viewOut = new Uint32Array(0);
  /** The session being looked up, as four words (no allocation per call). */
  private k0 = 0;
  private k1 = 0;
  private k2 = 0;
  private k3 = 0;

  /** A table counting sessions under a policy whose pathways have these IDs, in order. */
  constructor(ids: readonly string[], options: SessionTableOptions = {}) {
    checkIds(ids, 'SessionTable');
    this.counted = ids;
    this.shown = ids;
    this.heldView = this.held.subarray(0, ids.length);
    this.live = new Uint32Array(ids.length);
    let cap = 1024;
    while (cap < (options.initialCapacity ?? 1024)) cap *= 2;
    this.capacity = cap;
    this.mask = cap - 1;
    this.keys = new Uint32Array(cap * 4);
    this.end = new Float64Array(cap);
    this.pathway = new Uint8Array(cap);
    this.seed = new Uint32Array(randomBytes(16).buffer.slice(0, 16));
    this.maxSessions = options.maxSessions ?? 8_000_000;
  }

  /** Live sessions held (some may have ended since the last sweep). */
  get size(): number {
    return this.size_;
  }

  /** Slots allocated. */
  get slots(): number {
    return this.capacity;
  }

  /** Bytes of the typed arrays: the slots and the wheel's events. */
  get bytes(): number {
    const table = this.keys.byteLength + this.end.byteLength + this.pathway.byteLength;
    return table + this.wheel.bytes;
  }

  /** The pathway IDs the sessions are counted under (the last decision's policy's). */
  get ids(): readonly string[] {
    return this.counted;
  }

  /**
   * Each pathway's sessions held, for the pathway IDs shown (the policy in force's): those
   * whose latest decision placed them first, until a lookup or the sweep removes them once
   * ended. The loads a decision states are {@link SessionTable.loadsAt}.
   */
  get loads(): Uint32Array {
    if (sameIds(this.shown, this.counted)) return this.heldView;
    return Uint32Array.from(this.shown, (id) => {
      const i = this.counted.indexOf(id);
      return i < 0 ? 0 : this.held[i]!;
    });
  }

  /**
   * The pathway IDs `loads` and `loadsAt` give by default: those of the policy put in force. It
   * changes no count: the sessions follow the policy of the next decision.
   */
  show(ids: readonly string[]): void {
    checkIds(ids, 'show');
    this.shown = ids;
  }

  /**
   * A decision is about to be made under a policy of these pathway IDs (in order): when they are
   * not the IDs of the last decision's policy, each session held moves to its pathway's index in
   * `ids`, or stops counting when `ids` lacks its pathway's ID. Nothing is done for the IDs of the
   * last decision (the same array is recognised at once). One pass over the table on a change.
   */
  follow(ids: readonly string[]): void {
    if (ids === this.counted) return;
    checkIds(ids, 'follow');
    if (!sameIds(ids, this.counted)) {
      const index = new Map(ids.map((id, i) => [id, i]));
      this.rebuild(this.counted.map((id) => index.get(id) ?? -1));
    }
    this.counted = ids;
    if (this.shown !== ids && sameIds(this.shown, ids)) this.shown = ids;
    this.heldView = this.held.subarray(0, ids.length);
    if (this.live.length !== ids.length) this.live = new Uint32Array(ids.length);
    this.viewIds = undefined;
  }

  /**
   * Each pathway's load at `now` (µs of the room clock, not decreasing from call to call): the
   * sessions that count at `now`, whether or not a lookup or the sweep has removed those that no
   * longer do. For the pathway IDs `ids` (those shown by default), by ID: a pathway the sessions
   * are not counted under has none. The answer is a view the next call overwrites.
   */
  loadsAt(now: number, ids: readonly string[] = this.shown): Uint32Array {
    this.wheel.advance(now);
    const gone = this.wheel.gone;
    if (ids === this.counted) {
      const live = this.live;
      for (let p = 0; p < live.length; p++) live[p] = this.held[p]! - gone[p]!;
      return live;
    }
    if (ids !== this.viewIds) {
      this.viewIds = ids;
      this.viewMap = Int16Array.from(ids, (id) => this.counted.indexOf(id));
      this.viewOut = new Uint32Array(ids.length);
    }
    const out = this.viewOut;
    for (let i = 0; i < out.length; i++) {
      const p = this.viewMap[i]!;
      out[i] = p < 0 ? 0 : this.held[p]! - gone[p]!;
    }
    return out;
  }

  /** Counts a session held in `pathway` until `end` (`sign` 1), or no longer (-1). */
  private count(pathway: number, end: number, sign: 1 | -1): void {
    this.held[pathway]! += sign;
    this.wheel.add(pathway, end, sign);
  }

  private hash(k0: number, k1: number, k2: number, k3: number): number {
    const s = this.seed;
    let h = mix32(k0 ^ s[0]!);
    h = mix32(h ^ k1 ^ s[1]!);
    h = mix32(h ^ k2 ^ s[2]!);
    h = mix32(h ^ k3 ^ s[3]!);
    return h;
  }

  /** Reads a session into `k0` to `k3`. */
  private take(session: Uint8Array): void {
    if (session.length !== 16) throw new RangeError('a session is 16 bytes');
    const s = session;
    this.k0 = (s[0]! | (s[1]! << 8) | (s[2]! << 16) | (s[3]! << 24)) >>> 0;
    this.k1 = (s[4]! | (s[5]! << 8) | (s[6]! << 16) | (s[7]! << 24)) >>> 0;
    this.k2 = (s[8]! | (s[9]! << 8) | (s[10]! << 16) | (s[11]! << 24)) >>> 0;
    this.k3 = (s[12]! | (s[13]! << 8) | (s[14]! << 16) | (s[15]! << 24)) >>> 0;
  }

  /**
   * The pathway (an index among {@link SessionTable.ids}) the session's latest decision placed
   * first, while it counts at `now` (µs); -1 when the session is not held or its end has come (it
   * is then removed, and its pathway's load drops).
   */
  current(session: Uint8Array, now: number): number {
    this.take(session);
    const { k0, k1, k2, k3 } = this;
    const keys = this.keys;
    let i = this.hash(k0, k1, k2, k3) & this.mask;
    for (;;) {
      if (this.pathway[i] === EMPTY) return -1;
      const o = i * 4;
      if (keys[o] === k0 && keys[o + 1] === k1 && keys[o + 2] === k2 && keys[o + 3] === k3) break;
      i = (i + 1) & this.mask;
    }
    if (this.end[i]! <= now) {
      this.removeAt(i);
      return -1;
    }
    return this.pathway[i]! - 1;
  }

  /**
   * Counts the session in `pathway`'s load (an index among {@link SessionTable.ids}) until `end`
   * (µs of the room clock, an integer), moving it from the pathway it counted in before. `false`
   * when the session is new and the table holds `maxSessions` already (nothing changes then).
   */
  place(session: Uint8Array, pathway: number, end: number): boolean {
    if (!Number.isInteger(pathway) || pathway < 0 || pathway >= this.counted.length) {
      throw new RangeError('place: not a pathway');
    }
    if (!Number.isSafeInteger(end) || end < 0) throw new RangeError('place: not an instant (µs)');
    this.take(session);
    const { k0, k1, k2, k3 } = this;
    const keys = this.keys;
    let i = this.hash(k0, k1, k2, k3) & this.mask;
    for (;;) {
      const p = this.pathway[i]!;
      if (p === EMPTY) break;
      const o = i * 4;
      if (keys[o] === k0 && keys[o + 1] === k1 && keys[o + 2] === k2 && keys[o + 3] === k3) {
        this.count(p - 1, this.end[i]!, -1);
        this.pathway[i] = pathway + 1;
        this.end[i] = end;
        this.count(pathway, end, 1);
        return true;
      }
      i = (i + 1) & this.mask;
    }
    if (this.size_ >= this.maxSessions) return false;
    const o = i * 4;
    keys[o] = k0;
    keys[o + 1] = k1;
    keys[o + 2] = k2;
    keys[o + 3] = k3;
    this.pathway[i] = pathway + 1;
    this.end[i] = end;
    this.count(pathway, end, 1);
    this.size_++;
    if (this.size_ * 4 > this.capacity * 3) this.grow();
    return true;
  }

  /** Removes the entry at slot `i` (backward-shift deletion: no tombstones). */
  private removeAt(i: number): void {
    const keys = this.keys;
    const mask = this.mask;
    this.count(this.pathway[i]! - 1, this.end[i]!, -1);
    this.size_--;
    let hole = i;
    let j = i;
    for (;;) {
      j = (j + 1) & mask;
      const p = this.pathway[j]!;
      if (p === EMPTY) break;
      const o = j * 4;
      const home = this.hash(keys[o]!, keys[o + 1]!, keys[o + 2]!, keys[o + 3]!) & mask;
      // Move j into the hole when its home is not cyclically in (hole, j].
      const inRange = hole <= j ? hole < home && home <= j : hole < home || home <= j;
      if (!inRange) {
        const h = hole * 4;
        keys[h] = keys[o]!;
        keys[h + 1] = keys[o + 1]!;
        keys[h + 2] = keys[o + 2]!;
        keys[h + 3] = keys[o + 3]!;
        this.pathway[hole] = p;
        this.end[hole] = this.end[j]!;
        hole = j;
      }
    }
    this.pathway[hole] = EMPTY;
  }

  /** Inserts a session known to be absent into the arrays (no count). */
  private insert(k0: number, k1: number, k2: number, k3: number, p: number, end: number): void {
    let i = this.hash(k0, k1, k2, k3) & this.mask;
    while (this.pathway[i] !== EMPTY) i = (i + 1) & this.mask;
    const n = i * 4;
    this.keys[n] = k0;
    this.keys[n + 1] = k1;
    this.keys[n + 2] = k2;
    this.keys[n + 3] = k3;
    this.pathway[i] = p;
    this.end[i] = end;
  }

  /**
   * The arrays again at `capacity` slots, each session's pathway `p` (from 1) now `map[p − 1] + 1`
   * and counted anew (dropped where `map` says -1), or kept as it is without `map`.
   */
  private rehash(capacity: number, map?: readonly number[]): void {
    const oldKeys = this.keys;
    const oldEnd = this.end;
    const oldPathway = this.pathway;
    const oldCap = this.capacity;
    this.capacity = capacity;
    this.mask = capacity - 1;
    this.keys = new Uint32Array(capacity * 4);
    this.end = new Float64Array(capacity);
    this.pathway = new Uint8Array(capacity);
    this.cursor = 0;
    for (let s = 0; s < oldCap; s++) {
      const p = oldPathway[s]!;
      if (p === EMPTY) continue;
      const to = map === undefined ? p - 1 : map[p - 1]!;
      if (to < 0) continue;
      const o = s * 4;
      this.insert(
        oldKeys[o]!,
        oldKeys[o + 1]!,
        oldKeys[o + 2]!,
        oldKeys[o + 3]!,
        to + 1,
        oldEnd[s]!,
      );
      if (map !== undefined) {
        this.count(to, oldEnd[s]!, 1);
        this.size_++;
      }
    }
  }

  private grow(): void {
    this.rehash(this.capacity * 2);
  }

  /** The sessions counted again under other pathways: `map` from the old index to the new. */
  private rebuild(map: readonly number[]): void {
    this.held.fill(0);
    this.size_ = 0;
    // The ends come again in any order: the wheel sorts the current second's once all are in.
    this.wheel.recount(() => this.rehash(this.capacity, map));
  }

  /**
   * Visits the next `budget` slots from the sweep cursor and removes the sessions whose end has
   * come at `now` (µs); the number removed. A pass over the whole table takes `slots / budget`
   * calls.
   */
  sweep(budget: number, now: number): number {
    let removed = 0;
    let visited = 0;
    let i = this.cursor;
    while (visited < budget && this.size_ > 0) {
      if (this.pathway[i] !== EMPTY && this.end[i]! <= now) {
        // The shift may bring a later entry into slot i: visit it again.
        this.removeAt(i);
        removed++;
      } else {
        i = (i + 1) & this.mask;
      }
      visited++;
    }
    this.cursor = i;
    return removed;
  }

  /** Removes every session. */
  clear(): void {
    this.keys.fill(0);
    this.end.fill(0);
    this.pathway.fill(0);
    this.held.fill(0);
    this.wheel.reset();
    this.size_ = 0;
    this.cursor = 0;
  }
}
