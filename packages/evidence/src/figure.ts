/**
 * §5.2 to §5.4: a pathway's coverage, status, class, joules J and delivery D, from the records
 * named for it. Every quantity is an exact `bigint`: a sum is formed in full, never wrapped at
 * 2^128 (C9 "Sums beyond u128").
 */
import { bytesEqual, type HopRecordFields, type PolicyFields, STATUS } from '@wai-steering/wire';
import type { Window } from './window.js';

/** §5.3, §5.4: a pathway's status, and its figure's class, J and D (all 0 without a figure). */
export interface Figure {
  /** §5.3: 0 figure, 1 unmetered, 2 mixed, 3 stale, 4 empty (wire's `STATUS`). */
  readonly status: number;
  /** The figure's class tag (2 to 5); 0 for any status other than figure (§5.4). */
  readonly class: number;
  /** J, microjoules; 0 for any status other than figure (§5.4). */
  readonly joules: bigint;
  /** D, bytes (basis 1) or µs (basis 2); 0 for any status other than figure (§5.4). */
  readonly delivery: bigint;
}

/**
 * What the named records of a pathway give before §5.4 states them: coverage of each hop, the
 * unmetered marker, the classes, and the raw sums J and D. A verifier compares a decision's
 * stated figure with {@link figureOf} of this, and tests `unmetered` and `mixed` on the named
 * records themselves (C9, §9.1 step 5).
 */
export interface PathwayTally {
  /** §5.2: for each hop of the pathway, in its hop order, whether its named records tile [a, b). */
  readonly covered: readonly boolean[];
  /** §5.3 step 1: some hop is not covered. */
  readonly stale: boolean;
  /** §5.3 step 2: some named record's class is the unmetered marker 0. */
  readonly unmetered: boolean;
  /** §5.3 step 3: the named records' classes (the marker 0 included) are not all one. */
  readonly mixed: boolean;
  /** The named records' common class when they have one; 0 otherwise (and with none named). */
  readonly class: number;
  /** J: the sum of every named record's `joules`, of every hop, in full. */
  readonly joules: bigint;
  /** D: over the named records of the edge hops (place 1), per the policy's `basis`, in full. */
  readonly delivery: bigint;
}

/** The policy fields §5 reads. */
export type FigurePolicy = Pick<PolicyFields, 'basis' | 'floor' | 'pathways'>;

/** 2^128: a J or D at or above it cannot be stated in a u128 (§7.1, C9). */
export const U128_LIMIT: bigint = 1n << 128n;

/** C5.1 track `kind` 1 (media) and `direction` 2 (out). */
const MEDIA = 1;
const OUT = 2;
/** §3.2 hop `place` 1: an edge hop. */
const EDGE = 1;

/**
 * §5.3: D of one record on the policy's basis (1: the media bytes out; 2: `subscriber_us` from
 * the floor tier F to 7), counted for the records of a pathway's edge hops only. The energy
 * account sums it per period with this very function.
 */
export function deliveryOf(record: HopRecordFields, basis: number, floor: number): bigint {
  let d = 0n;
  if (basis === 1) {
    // §5.3 basis 1: the `bytes` of every track entry of kind 1 and direction 2.
    for (const t of record.tracks) if (t.kind === MEDIA && t.direction === OUT) d += t.bytes;
  } else if (basis === 2) {
    // §5.3 basis 2: subscriber_us[c] for the layer classes c from F to 7.
    const us = record.subscriber_us;
    for (let c = floor; c < 8 && c < us.length; c++) d += us[c]!;
  } else {
    throw new RangeError('basis is not 1 or 2 (§3.3)');
  }
  return d;
}

/**
 * §5.2, §5.3: the tally of the records `named` for pathway `pathwayIndex`, in the order named
 * (§5.2: grouped by hop in the pathway's hop order, each hop's in ascending `start`).
 *
 * A record belongs to the hop whose key is its `hop`. Coverage is tiling alone (C9): a hop is
 * covered when its records, in the order named, start at a, each start where the one before
 * ended, and the last ends at b; `sessions` is unused; a hop with no named record is not
 * covered, and when a = b no hop is covered. The records are assumed to be of the pathway's
 * hops (§9.1 step 4.4 checks that first); one that is not still counts in J and in the classes,
 * but covers no hop and adds nothing to D.
 */
export function tallyPathway(
  policy: FigurePolicy,
  pathwayIndex: number,
  named: readonly HopRecordFields[],
  window: Window,
): PathwayTally {
  const pathway = policy.pathways[pathwayIndex];
  if (pathway === undefined) throw new RangeError(`tallyPathway: no pathway ${pathwayIndex}`);
  const hops = pathway.hops;
  const k = hops.length;
  const { a, b } = window;
  // Per hop: the position the next record must start at, whether the tiling broke, how many.
  const next: bigint[] = new Array<bigint>(k).fill(a);
  const broken: boolean[] = new Array<boolean>(k).fill(false);
  const count: number[] = new Array<number>(k).fill(0);
  let joules = 0n;
  let delivery = 0n;
  let unmetered = false;
  let mixed = false;
  let cls = -1;
  let j = 0; // the hop of the previous record: records come grouped by hop
  for (const rec of named) {
    // §5.3: J sums every named record; the classes are those of every named record.
    joules += rec.joules;
    if (rec.class === 0) unmetered = true;
    if (cls === -1) cls = rec.class;
    else if (rec.class !== cls) mixed = true;
    if (j >= k || !bytesEqual(hops[j]!.key, rec.hop)) {
      j = 0;
      while (j < k && !bytesEqual(hops[j]!.key, rec.hop)) j++;
      if (j === k) continue; // not a hop of this pathway: covers nothing, no D
    }
    count[j]!++;
    // §5.2: each record starts where the one before it ends (the first at a).
    if (rec.start !== next[j] || rec.end <= rec.start) broken[j] = true;
    next[j] = rec.end;
    // §5.3: D over the records of the edge hops only.
    if (hops[j]!.place === EDGE) delivery += deliveryOf(rec, policy.basis, policy.floor);
  }
  const covered: boolean[] = [];
  let stale = false;
  for (let h = 0; h < k; h++) {
    // §5.2: at least one record, the last ends at b; when a = b no hop is covered.
    const ok = a < b && count[h]! > 0 && !broken[h] && next[h] === b;
    covered.push(ok);
    if (!ok) stale = true;
  }
  return {
    covered,
    stale,
    unmetered,
    mixed,
    class: cls === -1 || mixed ? 0 : cls,
    joules,
    delivery,
  };
}

/** §5.3, §5.4: the status of a tally, and its figure, or zeros when it has none. */
export function figureOf(tally: PathwayTally): Figure {
  // §5.3: the first of stale, unmetered, mixed, empty that holds; otherwise figure.
  let status: number;
  if (tally.stale) status = STATUS.stale;
  else if (tally.unmetered) status = STATUS.unmetered;
  else if (tally.mixed) status = STATUS.mixed;
  else if (tally.delivery === 0n) status = STATUS.empty;
  else status = STATUS.figure;
  // §5.4: what is not known is not zero: any other status states class, J and D as 0.
  if (status !== STATUS.figure) return { status, class: 0, joules: 0n, delivery: 0n };
  return { status, class: tally.class, joules: tally.joules, delivery: tally.delivery };
}

/**
 * §5.2 to §5.4: the status, class, J and D of pathway `pathwayIndex` from the records named for
 * it, in §5.2's order. J and D are the exact sums; one at or above 2^128, or a figure with J = 0,
 * is returned as computed (it cannot be stated: see {@link isStatable}).
 */
export function evaluatePathway(
  policy: FigurePolicy,
  pathwayIndex: number,
  named: readonly HopRecordFields[],
  window: Window,
): Figure {
  return figureOf(tallyPathway(policy, pathwayIndex, named, window));
}

/**
 * §7.2, C9: whether a decision can state this figure: a status other than figure always (its
 * zeros), a figure only with 0 < J < 2^128 and 0 < D < 2^128.
 */
export function isStatable(figure: Figure): boolean {
  if (figure.status !== STATUS.figure) return true;
  return (
    figure.joules > 0n &&
    figure.delivery > 0n &&
    figure.joules < U128_LIMIT &&
    figure.delivery < U128_LIMIT
  );
}
