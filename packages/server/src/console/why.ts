/**
 * Why a pathway has no figure when it is not stale (stale has its own explanation, hop by hop,
 * from `explainCoverage`): `unmetered` (a hop signed the unmetered marker), `mixed` (its records
 * are of two classes) or `empty` (its edge hops delivered nothing: D = 0). `/status` states it
 * beside the pathway, with the joules its records hold (§5.4 states J as 0 without a figure,
 * which is not what the hops measured), so that the console can say what to fix.
 */
import { type PathwayEvidence, tallyPathway, type Window } from '@wai-steering/evidence';
import { bytesEqual, CLASS_LABEL, type Policy, STATUS, toHex } from '@wai-steering/wire';
import { PLACE_NAME } from './names.js';

/** `/status`'s `why` of a pathway: a sentence, the hops it names, the joules its records hold. */
export interface NoFigureWhy {
  readonly text: string;
  readonly hops: readonly {
    readonly index: number;
    readonly key: string;
    readonly place: string;
  }[];
  /** The sum of the joules of the records named (µJ, decimal string), before §5.4 states 0. */
  readonly records_joules_uj: string;
}

/** Why pathway `index` has no figure over `window`; `null` for a figure or a stale pathway. */
export function whyNoFigure(
  policy: Policy,
  index: number,
  ev: PathwayEvidence,
  window: Window,
): NoFigureWhy | null {
  if (ev.status === STATUS.figure || ev.status === STATUS.stale) return null;
  const pathway = policy.pathways[index]!;
  const named = ev.named.map((n) => n.record);
  const tally = tallyPathway(policy, index, named, window);
  const hopOf = (k: number) => ({
    index: k,
    key: toHex(pathway.hops[k]!.key),
    place: PLACE_NAME[pathway.hops[k]!.place] ?? String(pathway.hops[k]!.place),
  });
  const recordsOf = (k: number) => named.filter((r) => bytesEqual(r.hop, pathway.hops[k]!.key));
  const joules = String(tally.joules);
  switch (ev.status) {
    case STATUS.unmetered: {
      const hops = pathway.hops.flatMap((_, k) =>
        recordsOf(k).some((r) => r.class === 0) ? [hopOf(k)] : [],
      );
      return {
        text: 'a hop signed the unmetered marker (class 0: its energy was not measured), and an unmetered hop is not a hop of zero joules: give its agent an energy source (docs/metering.md)',
        hops,
        records_joules_uj: joules,
      };
    }
    case STATUS.mixed: {
      const classes = pathway.hops.map((_, k) =>
        [...new Set(recordsOf(k).map((r) => CLASS_LABEL[r.class] ?? String(r.class)))].join(
          ' and ',
        ),
      );
      return {
        text: `its hops' records are of more than one class (${classes.join('; ')}), and figures of two classes are never summed: meter its hops in one class`,
        hops: pathway.hops.map((_, k) => hopOf(k)),
        records_joules_uj: joules,
      };
    }
    case STATUS.empty: {
      const what =
        policy.basis === 1
          ? 'no media bytes sent out'
          : `no delivery at or above the floor tier ${policy.floor}`;
      return {
        text: `its edge hops' records state ${what} over the window (D = 0), so there is no rate to state: a hop agent with traffic: none (the default) states no traffic; give each edge hop's agent a traffic source (traffic: nginx or prometheus, docs/metering.md)`,
        hops: pathway.hops.flatMap((h, k) => (h.place === 1 ? [hopOf(k)] : [])),
        records_joules_uj: joules,
      };
    }
    default:
      return null;
  }
}
