/**
 * The energy account (docs/energy.md, *The method*) of records and decisions given at once: `energyAccount`
 * sorts them and runs the streaming {@link EnergyAccumulator}, so that the order they are given
 * in changes nothing.
 */
import type { EvidenceRecord } from '@wai-steering/evidence';
import { type AccountDecision, type AccumulatorOptions, EnergyAccumulator } from './accumulator.js';
import type { EnergyAccount } from './types.js';

/** What {@link energyAccount} is given. */
export interface AccountInput extends AccumulatorOptions {
  /** Every record held (any hops, any spans, duplicates), in any order. */
  readonly records: Iterable<EvidenceRecord>;
  /**
   * The decisions, for `sessions_placed` (with `graceS`): in any order of `t` (decisions of one
   * `t` in the order the server stored them). Absent: `sessions_placed` is `null`.
   */
  readonly decisions?: Iterable<AccountDecision>;
}

/**
 * The account (docs/energy.md, *The method*) of the records and decisions given, a pure function of them:
 * records are taken in ascending `start`, decisions in ascending `t` (a stable sort: decisions of
 * one `t` keep their order), then given to an {@link EnergyAccumulator}. Throws an
 * `EnergySpanError` for a span it refuses.
 */
export function energyAccount(input: AccountInput): EnergyAccount {
  const { records, decisions, ...options } = input;
  if (decisions !== undefined && options.graceS === undefined) {
    throw new TypeError(
      'energyAccount: decisions are replayed with the session grace: give graceS',
    );
  }
  const { graceS: _, ...withoutReplay } = options;
  const acc = new EnergyAccumulator(decisions === undefined ? withoutReplay : options);
  const sorted = [...records].sort((x, y) =>
    x.record.start < y.record.start ? -1 : x.record.start > y.record.start ? 1 : 0,
  );
  if (decisions !== undefined) {
    const byT = [...decisions].sort((x, y) => (x.t < y.t ? -1 : x.t > y.t ? 1 : 0));
    // Interleaved by instant, so that what is held stays small.
    let d = 0;
    for (const r of sorted) {
      while (d < byT.length && byT[d]!.t < r.record.start) acc.addDecision(byT[d++]!);
      acc.addRecord(r);
    }
    while (d < byT.length) acc.addDecision(byT[d++]!);
  } else {
    for (const r of sorted) acc.addRecord(r);
  }
  return acc.finish();
}
