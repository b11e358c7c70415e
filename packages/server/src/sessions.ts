/**
 * Sessions and loads (§6): each pathway's **load** is the number of sessions the server is
 * steering to it first, its own count, which each decision states (§7.1) and the capacity limit
 * reads (§6.1).
 *
 * A session counts in the load of the first pathway of its latest decision until that decision's
 * TTL plus a **grace** passes without a new request from it (default 10 s: a player asks again
 * when the TTL runs out, and the grace covers its request's time on the network and a late timer;
 * a player that stops asking is counted for TTL + grace at most, plus one sweep pass).
 *
 * The table is open addressing (linear probing, backward-shift deletion) over typed arrays keyed
 * by the 16-byte session, so that a million live sessions take about 42 MB: per slot 16 bytes of
 * key, 4 of expiry (seconds since the table's base) and 1 of pathway, at a load factor of at most
 * 3/4. The slots are probed from a keyed hash (a random seed per table), so that clients choosing
 * their sessions cannot build long probe runs. Expired sessions are swept incrementally: each
 * `sweep(budget)` visits the next `budget` slots, and a session found expired on lookup is removed
 * there and then.
 *
 * The loads a decision states are `loadsAt(now)`: every session whose expiry has come is out of
 * them at once, swept or not, so that the count is exactly the rule an auditor replays
 * (`docs/audit.md`, *The load replay*): the sessions held are counted per expiry second, and
 * `loadsAt` takes each second's count out of the loads when that second comes.
 */
import { randomBytes } from 'node:crypto';

/** Options of {@link SessionTable}. */
export interface SessionTableOptions {
  /** Initial slots (rounded up to a power of two); the table doubles past 3/4 full. */
  readonly initialCapacity?: number;
  /** The most live sessions; `place` refuses a new session past it. */
  readonly maxSessions?: number;
  /** The table's base instant (ms since the epoch): expiries are seconds after it. */
  readonly base?: number;
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

export class SessionTable {
  /**
   * Each pathway's sessions held: those whose latest decision placed it first, until a lookup or
   * the sweep removes them once expired. The loads a decision states are `loadsAt(now)`.
   */
  loads: Uint32Array;
  private capacity: number;
  private mask: number;
  private keys: Uint32Array;
  /** Expiry, whole seconds after `base` (the session is live while now < expiry). */
  private expiry: Uint32Array;
  /** 0: empty slot; otherwise the pathway index + 1. */
  private pathway: Uint8Array;
  private size_ = 0;
  private cursor = 0;
  private readonly seed: Uint32Array;
  private readonly maxSessions: number;
  readonly base: number;
  /** Per expiry second, the sessions due then that still count, per pathway. */
  private due = new Map<number, Uint32Array>();
  /** Every session whose expiry is at or below this second is in `expiredHeld`. */
  private drained = -1;
  /** Per pathway, the sessions held whose expiry is at or below `drained`. */
  private expiredHeld: Uint32Array;
  /** `loadsAt`'s answer, written in place. */
  private live: Uint32Array;

  constructor(pathways: number, options: SessionTableOptions = {}) {
    if (!Number.isInteger(pathways) || pathways < 1 || pathways > 254) {
      throw new RangeError('SessionTable: 1 to 254 pathways');
    }
    this.loads = new Uint32Array(pathways);
    this.expiredHeld = new Uint32Array(pathways);
    this.live = new Uint32Array(pathways);
    let cap = 1024;
    while (cap < (options.initialCapacity ?? 1024)) cap *= 2;
    this.capacity = cap;
    this.mask = cap - 1;
    this.keys = new Uint32Array(cap * 4);
    this.expiry = new Uint32Array(cap);
    this.pathway = new Uint8Array(cap);
    this.seed = new Uint32Array(randomBytes(16).buffer.slice(0, 16));
    this.maxSessions = options.maxSessions ?? 8_000_000;
    this.base = options.base ?? Date.now();
  }

  /** Live sessions held (some may have expired since the last sweep). */
  get size(): number {
    return this.size_;
  }

  /** Slots allocated. */
  get slots(): number {
    return this.capacity;
  }

  /** Bytes of the typed arrays. */
  get bytes(): number {
    return this.keys.byteLength + this.expiry.byteLength + this.pathway.byteLength;
  }

  /** Seconds after `base` of the instant `nowMs` (ms since the epoch), rounded down. */
  secondsAt(nowMs: number): number {
    return Math.max(0, Math.floor((nowMs - this.base) / 1000));
  }

  /**
   * Each pathway's load at `now` (seconds after `base`, not decreasing from call to call): the
   * sessions that count at `now`, whether or not a lookup or the sweep has removed those that no
   * longer do (`loads` counts the sessions held).
   */
  loadsAt(now: number): Uint32Array {
    if (now > this.drained) {
      if (now - this.drained <= this.due.size) {
        for (let s = this.drained + 1; s <= now; s++) this.drain(s);
      } else {
        for (const s of [...this.due.keys()]) if (s <= now) this.drain(s);
      }
      this.drained = now;
    }
    const live = this.live;
    for (let p = 0; p < live.length; p++) live[p] = this.loads[p]! - this.expiredHeld[p]!;
    return live;
  }

  private drain(second: number): void {
    const counts = this.due.get(second);
    if (counts === undefined) return;
    for (let p = 0; p < counts.length; p++) this.expiredHeld[p]! += counts[p]!;
    this.due.delete(second);
  }

  /** Counts a session held in `pathway` until `expiry` (`sign` 1), or no longer (-1). */
  private count(pathway: number, expiry: number, sign: 1 | -1): void {
    this.loads[pathway]! += sign;
    if (expiry <= this.drained) {
      this.expiredHeld[pathway]! += sign;
      return;
    }
    let counts = this.due.get(expiry);
    if (counts === undefined) {
      counts = new Uint32Array(this.loads.length);
      this.due.set(expiry, counts);
    }
    counts[pathway]! += sign;
    if (sign < 0 && counts.every((c) => c === 0)) this.due.delete(expiry);
  }

  private hash(k0: number, k1: number, k2: number, k3: number): number {
    const s = this.seed;
    let h = mix32(k0 ^ s[0]!);
    h = mix32(h ^ k1 ^ s[1]!);
    h = mix32(h ^ k2 ^ s[2]!);
    h = mix32(h ^ k3 ^ s[3]!);
    return h;
  }

  private static words(session: Uint8Array): [number, number, number, number] {
    if (session.length !== 16) throw new RangeError('a session is 16 bytes');
    const w = (i: number): number =>
      (session[i]! | (session[i + 1]! << 8) | (session[i + 2]! << 16) | (session[i + 3]! << 24)) >>>
      0;
    return [w(0), w(4), w(8), w(12)];
  }

  /** The slot of a session, or -1. */
  private find(k0: number, k1: number, k2: number, k3: number): number {
    const keys = this.keys;
    let i = this.hash(k0, k1, k2, k3) & this.mask;
    for (;;) {
      if (this.pathway[i] === EMPTY) return -1;
      const o = i * 4;
      if (keys[o] === k0 && keys[o + 1] === k1 && keys[o + 2] === k2 && keys[o + 3] === k3)
        return i;
      i = (i + 1) & this.mask;
    }
  }

  /**
   * The pathway the session's latest decision placed first, while it is live at `now` (seconds
   * after `base`); -1 when the session is not held or has expired (it is then removed, and its
   * pathway's load drops).
   */
  current(session: Uint8Array, now: number): number {
    const [k0, k1, k2, k3] = SessionTable.words(session);
    const i = this.find(k0, k1, k2, k3);
    if (i < 0) return -1;
    if (this.expiry[i]! <= now) {
      this.removeAt(i);
      return -1;
    }
    return this.pathway[i]! - 1;
  }

  /**
   * Counts the session in `pathway`'s load until `expiry` (seconds after `base`), moving it from
   * the pathway it counted in before. `false` when the session is new and the table holds
   * `maxSessions` already (nothing changes then).
   */
  place(session: Uint8Array, pathway: number, expiry: number): boolean {
    if (!Number.isInteger(pathway) || pathway < 0 || pathway >= this.loads.length) {
      throw new RangeError('place: not a pathway');
    }
    const [k0, k1, k2, k3] = SessionTable.words(session);
    const keys = this.keys;
    let i = this.hash(k0, k1, k2, k3) & this.mask;
    for (;;) {
      const p = this.pathway[i]!;
      if (p === EMPTY) break;
      const o = i * 4;
      if (keys[o] === k0 && keys[o + 1] === k1 && keys[o + 2] === k2 && keys[o + 3] === k3) {
        this.count(p - 1, this.expiry[i]!, -1);
        this.pathway[i] = pathway + 1;
        this.expiry[i] = Math.min(expiry, 0xffff_ffff);
        this.count(pathway, this.expiry[i]!, 1);
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
    this.expiry[i] = Math.min(expiry, 0xffff_ffff);
    this.count(pathway, this.expiry[i]!, 1);
    this.size_++;
    if (this.size_ * 4 > this.capacity * 3) this.grow();
    return true;
  }

  /** Removes the entry at slot `i` (backward-shift deletion: no tombstones). */
  private removeAt(i: number): void {
    const keys = this.keys;
    const mask = this.mask;
    this.count(this.pathway[i]! - 1, this.expiry[i]!, -1);
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
        this.expiry[hole] = this.expiry[j]!;
        hole = j;
      }
    }
    this.pathway[hole] = EMPTY;
  }

  private grow(): void {
    const oldKeys = this.keys;
    const oldExpiry = this.expiry;
    const oldPathway = this.pathway;
    const oldCap = this.capacity;
    this.capacity = oldCap * 2;
    this.mask = this.capacity - 1;
    this.keys = new Uint32Array(this.capacity * 4);
    this.expiry = new Uint32Array(this.capacity);
    this.pathway = new Uint8Array(this.capacity);
    this.cursor = 0;
    for (let s = 0; s < oldCap; s++) {
      const p = oldPathway[s]!;
      if (p === EMPTY) continue;
      const o = s * 4;
      const k0 = oldKeys[o]!;
      const k1 = oldKeys[o + 1]!;
      const k2 = oldKeys[o + 2]!;
      const k3 = oldKeys[o + 3]!;
      let i = this.hash(k0, k1, k2, k3) & this.mask;
      while (this.pathway[i] !== EMPTY) i = (i + 1) & this.mask;
      const n = i * 4;
      this.keys[n] = k0;
      this.keys[n + 1] = k1;
      this.keys[n + 2] = k2;
      this.keys[n + 3] = k3;
      this.pathway[i] = p;
      this.expiry[i] = oldExpiry[s]!;
    }
  }

  /**
   * Visits the next `budget` slots from the sweep cursor and removes the sessions expired at
   * `now` (seconds after `base`); the number removed. A pass over the whole table takes
   * `slots / budget` calls.
   */
  sweep(budget: number, now: number): number {
    let removed = 0;
    let visited = 0;
    let i = this.cursor;
    while (visited < budget && this.size_ > 0) {
      if (this.pathway[i] !== EMPTY && this.expiry[i]! <= now) {
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

  /**
   * The policy's pathways changed (a rotation by the operator): each session's pathway `p` is
   * now `map[p]`, or the session is dropped when `map[p]` is negative (its pathway was removed,
   * so it counts in no load). The table then counts `pathways` loads. One pass over the table.
   */
  remap(map: readonly number[], pathways: number): void {
    if (!Number.isInteger(pathways) || pathways < 1 || pathways > 254) {
      throw new RangeError('remap: 1 to 254 pathways');
    }
    if (map.length !== this.loads.length) throw new RangeError('remap: one entry per pathway');
    for (const m of map) {
      if (!Number.isInteger(m) || m >= pathways) throw new RangeError('remap: not a pathway');
    }
    const oldKeys = this.keys;
    const oldExpiry = this.expiry;
    const oldPathway = this.pathway;
    this.keys = new Uint32Array(this.capacity * 4);
    this.expiry = new Uint32Array(this.capacity);
    this.pathway = new Uint8Array(this.capacity);
    this.loads = new Uint32Array(pathways);
    this.expiredHeld = new Uint32Array(pathways);
    this.live = new Uint32Array(pathways);
    this.due = new Map();
    this.size_ = 0;
    this.cursor = 0;
    for (let s = 0; s < this.capacity; s++) {
      const p = oldPathway[s]!;
      if (p === EMPTY) continue;
      const to = map[p - 1]!;
      if (to < 0) continue;
      const o = s * 4;
      const k0 = oldKeys[o]!;
      const k1 = oldKeys[o + 1]!;
      const k2 = oldKeys[o + 2]!;
      const k3 = oldKeys[o + 3]!;
      let i = this.hash(k0, k1, k2, k3) & this.mask;
      while (this.pathway[i] !== EMPTY) i = (i + 1) & this.mask;
      const n = i * 4;
      this.keys[n] = k0;
      this.keys[n + 1] = k1;
      this.keys[n + 2] = k2;
      this.keys[n + 3] = k3;
      this.pathway[i] = to + 1;
      this.expiry[i] = oldExpiry[s]!;
      this.count(to, oldExpiry[s]!, 1);
      this.size_++;
    }
  }

  /** Removes every session. */
  clear(): void {
    this.keys.fill(0);
    this.expiry.fill(0);
    this.pathway.fill(0);
    this.loads.fill(0);
    this.due.clear();
    this.expiredHeld.fill(0);
    this.size_ = 0;
    this.cursor = 0;
  }
}
