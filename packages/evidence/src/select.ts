/**
 * §5.2: for each pathway, the records of each hop that tile the window, chosen from a store that
 * may hold more (duplicates, overlapping spans, records not cut on the period), then their
 * figure (§5.3, §5.4).
 */
import {
  bytesEqual,
  compareBytes,
  type HopRecordFields,
  type PolicyFields,
  STATUS,
  toHex,
} from '@wai-steering/wire';
import { latin1 } from '@wai-steering/wire/internal';
import { evaluatePathway, type Figure, isStatable } from './figure.js';
import { inWindow, type Window } from './window.js';

/** A per-hop record and its digest (C1: SHA-256 over its bytes before `sig`). */
export interface EvidenceRecord {
  readonly record: HopRecordFields;
  readonly digest: Uint8Array;
}

/** Where the selection finds records. */
export interface EvidenceStore {
  /**
   * The candidate records of the hop with key `hop` that lie in `window` (§5.1). A store may
   * return more (records of other windows or hops are skipped) and in any order.
   */
  recordsOfHop(hop: Uint8Array, window: Window): Iterable<EvidenceRecord>;
}

/** A pathway's evidence: its figure (§5.3, §5.4) and the records named for it, in §5.2's order. */
export type PathwayEvidence = Figure & { readonly named: readonly EvidenceRecord[] };

/** The evidence of every pathway of a policy over one window, in the policy's order. */
export interface Evidence {
  readonly window: Window;
  readonly pathways: readonly PathwayEvidence[];
}

/** §7.1: a decision names at most 255 records per pathway (a u8 count). */
export const MAX_NAMED = 255;

/** The policy fields the selection reads. */
export type SelectPolicy = Pick<PolicyFields, 'basis' | 'floor' | 'pathways'>;

/** A digest as a `Map` key: its bytes as Latin-1. */
const digestKey: (d: Uint8Array) => string = latin1;

/** A set of 32-byte digests, keyed by their first 30 bits (a small integer), then by bytes. */
class DigestSet {
  private readonly map = new Map<number, Uint8Array[]>();

  private static prefix(d: Uint8Array): number {
    return d[0]! | (d[1]! << 8) | (d[2]! << 16) | ((d[3]! & 0x3f) << 24);
  }

  has(d: Uint8Array): boolean {
    const list = this.map.get(DigestSet.prefix(d));
    if (list === undefined) return false;
    for (const x of list) if (bytesEqual(x, d)) return true;
    return false;
  }

  add(d: Uint8Array): void {
    const k = DigestSet.prefix(d);
    const list = this.map.get(k);
    if (list === undefined) this.map.set(k, [d]);
    else list.push(d);
  }
}

/** Whether `list`, in its order, starts at a, each record where the one before ends, and ends at b. */
function isExactChain(list: readonly EvidenceRecord[], a: bigint, b: bigint): boolean {
  let at = a;
  for (const c of list) {
    if (c.record.start !== at) return false;
    at = c.record.end;
  }
  return at === b;
}

/**
 * §5.2: records of one hop, among `candidates`, that tile [a, b), or `undefined` when none do.
 *
 * The positions from which b can be reached by a chain of records are found first, backwards
 * (records by descending `end`); then the chain is walked forwards from a, choosing at each
 * position, among the records that start there and end at a position that still reaches b, the
 * one with the largest `end` (the fewest records), ties broken by the bytewise-smallest digest.
 * So the choice is deterministic, whatever order or duplicates the store gives, and a tiling is
 * found whenever one exists.
 */
export function tileHop(
  candidates: readonly EvidenceRecord[],
  window: Window,
): EvidenceRecord[] | undefined {
  const { a, b } = window;
  if (a >= b || candidates.length === 0) return undefined; // §5.2: when a = b no hop is covered
  // The common case: the candidates, as given, are exactly one chain from a to b (a store holding
  // one record per period, in ascending start). It is then the only tiling there is.
  if (isExactChain(candidates, a, b)) return candidates.slice();
  // Backwards: which positions reach b.
  const byEnd = candidates
    .slice()
    .sort((x, y) => (x.record.end > y.record.end ? -1 : x.record.end < y.record.end ? 1 : 0));
  const reaches = new Set<bigint>([b]);
  for (const c of byEnd) {
    // Each record's start is below its end, so every record ending at e' > e was seen before.
    if (reaches.has(c.record.end)) reaches.add(c.record.start);
  }
  if (!reaches.has(a)) return undefined;
  // Forwards: from a, the record starting here with the largest end that still reaches b.
  const byStart = new Map<bigint, EvidenceRecord[]>();
  for (const c of candidates) {
    const list = byStart.get(c.record.start);
    if (list === undefined) byStart.set(c.record.start, [c]);
    else list.push(c);
  }
  const chain: EvidenceRecord[] = [];
  let at = a;
  while (at !== b) {
    let best: EvidenceRecord | undefined;
    for (const c of byStart.get(at) ?? []) {
      if (!reaches.has(c.record.end)) continue;
      if (
        best === undefined ||
        c.record.end > best.record.end ||
        (c.record.end === best.record.end && compareBytes(c.digest, best.digest) < 0)
      ) {
        best = c;
      }
    }
    // `at` reaches b, so some record starting here ends at a position that reaches b.
    if (best === undefined) return undefined;
    chain.push(best);
    at = best.record.end;
  }
  return chain;
}

/**
 * §5.2: for each pathway, in the policy's order, and each of its hops, in its hop order, the
 * records of `store` that tile `window` (see {@link tileHop}), named grouped by hop and each
 * hop's in ascending `start`; then the pathway's figure (§5.3, §5.4) over them.
 *
 * Choices where the text leaves the server free (docs/decisions.md):
 * - A hop with no tiling makes the pathway stale; the tilings of its covered hops are still
 *   named (they are what the server read) and none for the uncovered hops.
 * - A pathway is named NO record, and so is stale, the only outcome a verifier then accepts,
 *   when what it would name cannot be stated: more than 255 records (§7.1's u8 count); a figure
 *   with J = 0 (§7.2: a figure's J is above 0); a figure with J or D at or above 2^128 (C9
 *   "Sums beyond u128"); or a digest already named for an earlier pathway (§7.2: no digest
 *   twice in a decision; only a store whose digests are wrong can give this, since a hop belongs
 *   to one pathway and a hop's chain has strictly ascending starts).
 */
export function selectEvidence(
  policy: SelectPolicy,
  window: Window,
  store: EvidenceStore,
): Evidence {
  const seen = new DigestSet();
  const pathways: PathwayEvidence[] = [];
  policy.pathways.forEach((pathway, index) => {
    const named: EvidenceRecord[] = [];
    for (const hop of pathway.hops) {
      const candidates: EvidenceRecord[] = [];
      for (const c of store.recordsOfHop(hop.key, window)) {
        // Defensive: only the hop's own records, in the window (§5.1), whatever the store gives.
        if (
          inWindow(c.record, window) &&
          c.record.end > c.record.start &&
          bytesEqual(c.record.hop, hop.key)
        ) {
          candidates.push(c);
        }
      }
      // §5.2: the tiling where there is one; otherwise (the pathway is stale) the records the
      // hop has in the window, one per `start`, so that the decision names what was read.
      named.push(...(tileHop(candidates, window) ?? untiledHop(candidates)));
    }
    pathways.push(finish(policy, index, named, window, seen));
  });
  return { window, pathways };
}

/**
 * The records of a hop that does not tile the window, as a decision may name them (§9.1 step
 * 4.6: ascending, strictly later `start`): one per `start`, the one with the largest `end`
 * (then the bytewise-smallest digest), in ascending `start`.
 */
function untiledHop(candidates: readonly EvidenceRecord[]): EvidenceRecord[] {
  const byStart = new Map<bigint, EvidenceRecord>();
  for (const c of candidates) {
    const held = byStart.get(c.record.start);
    if (
      held === undefined ||
      c.record.end > held.record.end ||
      (c.record.end === held.record.end && compareBytes(c.digest, held.digest) < 0)
    ) {
      byStart.set(c.record.start, c);
    }
  }
  return [...byStart.values()].sort((x, y) =>
    x.record.start < y.record.start ? -1 : x.record.start > y.record.start ? 1 : 0,
  );
}

const STALE_NONE: Figure = { status: STATUS.stale, class: 0, joules: 0n, delivery: 0n };

/** The pathway's evidence, or a stale one naming nothing when it could not be stated. */
function finish(
  policy: SelectPolicy,
  index: number,
  named: EvidenceRecord[],
  window: Window,
  seen: DigestSet,
): PathwayEvidence {
  // §7.1: at most 255 digests per pathway.
  if (named.length > MAX_NAMED) return { ...STALE_NONE, named: [] };
  const figure = evaluatePathway(
    policy,
    index,
    named.map((n) => n.record),
    window,
  );
  // §7.2, C9: a figure with J = 0, or with J or D ≥ 2^128, cannot be stated.
  if (!isStatable(figure)) return { ...STALE_NONE, named: [] };
  // §7.2: no digest twice in the decision.
  const own = new DigestSet();
  for (const n of named) {
    if (seen.has(n.digest) || own.has(n.digest)) return { ...STALE_NONE, named: [] };
    own.add(n.digest);
  }
  for (const n of named) seen.add(n.digest);
  return { ...figure, named };
}

/** A hop record store in memory, indexed by hop key and kept sorted by `start` lazily. */
export class MemoryEvidenceStore implements EvidenceStore {
  /** Per hop (key in hex): its records; `sorted` false after an add out of order. */
  private readonly hops = new Map<string, { list: EvidenceRecord[]; sorted: boolean }>();
  /** Digests held (bytes as a string), so that one record added twice is held once. */
  private readonly digests = new Set<string>();

  /** The number of records held. */
  get size(): number {
    return this.digests.size;
  }

  /**
   * Adds a record with its digest; `false` when a record of that digest is already held. O(1)
   * (amortised): records arriving in ascending `start` per hop keep the index sorted; any other
   * add marks the hop to be sorted at its next read.
   */
  add(record: HopRecordFields, digest: Uint8Array): boolean {
    if (!(digest instanceof Uint8Array) || digest.length !== 32) {
      throw new TypeError('MemoryEvidenceStore.add: the digest must be 32 bytes');
    }
    if (
      !(record.hop instanceof Uint8Array) ||
      typeof record.start !== 'bigint' ||
      typeof record.end !== 'bigint'
    ) {
      throw new TypeError('MemoryEvidenceStore.add: expected a per-hop record');
    }
    const key = digestKey(digest);
    if (this.digests.has(key)) return false;
    this.digests.add(key);
    const hop = toHex(record.hop);
    let entry = this.hops.get(hop);
    if (entry === undefined) {
      entry = { list: [], sorted: true };
      this.hops.set(hop, entry);
    }
    const last = entry.list[entry.list.length - 1];
    if (last !== undefined && last.record.start > record.start) entry.sorted = false;
    entry.list.push({ record, digest: digest.slice() });
    return true;
  }

  /** Removes the record of `digest`; whether one was held. */
  remove(digest: Uint8Array): boolean {
    const key = digestKey(digest);
    if (!this.digests.has(key)) return false;
    for (const [hop, entry] of this.hops) {
      const i = entry.list.findIndex((e) => digestKey(e.digest) === key);
      if (i >= 0) {
        entry.list.splice(i, 1);
        if (entry.list.length === 0) this.hops.delete(hop);
        break;
      }
    }
    this.digests.delete(key);
    return true;
  }

  /**
   * Removes every record whose `start` is below `before`: no window whose a is at or after
   * `before` can hold one (§5.1). The number removed.
   */
  prune(before: bigint): number {
    let removed = 0;
    for (const [hop, entry] of this.hops) {
      const keep: EvidenceRecord[] = [];
      for (const e of entry.list) {
        if (e.record.start < before) {
          this.digests.delete(digestKey(e.digest));
          removed++;
        } else {
          keep.push(e);
        }
      }
      if (keep.length === 0) this.hops.delete(hop);
      else entry.list = keep;
    }
    return removed;
  }

  /** §5.1: the records of `hop` in `window`, in ascending `start`. */
  recordsOfHop(hop: Uint8Array, window: Window): EvidenceRecord[] {
    const entry = this.hops.get(toHex(hop));
    if (entry === undefined) return [];
    if (!entry.sorted) {
      entry.list.sort((x, y) =>
        x.record.start < y.record.start ? -1 : x.record.start > y.record.start ? 1 : 0,
      );
      entry.sorted = true;
    }
    const list = entry.list;
    // The first record whose start is at or after a (binary search), then up to b.
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (list[mid]!.record.start < window.a) lo = mid + 1;
      else hi = mid;
    }
    const out: EvidenceRecord[] = [];
    for (let i = lo; i < list.length && list[i]!.record.start < window.b; i++) {
      if (inWindow(list[i]!.record, window)) out.push(list[i]!);
    }
    return out;
  }
}
