/**
 * Why a pathway has no figure, in words (§5.3, §5.4), for each status that is not `figure`:
 *
 * - `stale`: the hops that do not tile the window and what is wrong (`staleLines`);
 * - `unmetered`: the hops whose records carry the unmetered marker (class 0), and what they
 *   would need (an energy source);
 * - `mixed`: the classes of the hops' records, which are never summed;
 * - `empty`: the joules the records state, and that the edge hops delivered nothing (D = 0) on
 *   the policy's basis: a hop agent with `traffic: none` states no bytes.
 *
 * `decision inspect`, `verify` (from files and `--url`) and `doctor` print these lines.
 */
import { formatDuration } from '@wai-steering/config-text';
import {
  type EvidenceRecord,
  MemoryEvidenceStore,
  selectEvidence,
  tallyPathway,
  windowAt,
} from '@wai-steering/evidence';
import { bytesEqual, CLASS_LABEL, type Policy, STATUS, toHex } from '@wai-steering/wire';
import { staleLines } from './stale.js';

/** Joules for people: µJ as J with up to three decimals (`71 J`, `0.25 J`). */
export function joulesText(uj: bigint): string {
  const whole = uj / 1_000_000n;
  const milli = (uj % 1_000_000n) / 1000n;
  return milli === 0n
    ? `${whole} J`
    : `${whole}.${String(milli).padStart(3, '0').replace(/0+$/, '')} J`;
}

function hopName(policy: Policy, pathway: number, hop: number): string {
  const h = policy.pathways[pathway]!.hops[hop]!;
  return `hop ${hop + 1} (${h.place === 2 ? 'interior' : 'edge'} ${toHex(h.key)})`;
}

/** Why one pathway has no figure: its id, its §5.3 status, and a sentence (stale: one a hop). */
export interface NoFigure {
  readonly pathway: number;
  readonly id: string;
  readonly status: 'stale' | 'unmetered' | 'mixed' | 'empty';
  /** Starts with the pathway's id: `cdn-b: hop 0 (edge …): no record for …`. */
  readonly text: string;
  /** What to do about it. */
  readonly fix: string;
}

const STALE_FIX =
  "check that the hop's agent runs and delivers to this server (its log says what was sent and refused), and that the hop's clock is right";

/**
 * The lines of {@link NoFigure}s, the status first in a column of `width`, each with its fix
 * (a stale one's is not repeated under every hop).
 */
export function noFigureText(why: readonly NoFigure[], width = 9): string[] {
  return why.map(
    (w) => `${w.status.padEnd(width - 1)} ${w.text}${w.status === 'stale' ? '' : `: ${w.fix}`}`,
  );
}

/**
 * Why each pathway of `which` (all when absent) has no figure at `t` over `records` (the records
 * a server or a directory holds), in the policy's order.
 */
export function noFigure(
  policy: Policy,
  t: bigint,
  records: readonly EvidenceRecord[],
  which?: ReadonlySet<number>,
): NoFigure[] {
  const window = windowAt(policy, t);
  const store = new MemoryEvidenceStore();
  for (const r of records) {
    if (bytesEqual(r.record.room, policy.room)) store.add(r.record, r.digest);
  }
  const evidence = selectEvidence(policy, window, store);
  const lines: NoFigure[] = [];
  const stale = new Set<number>();
  evidence.pathways.forEach((ev, i) => {
    if (which !== undefined && !which.has(i)) return;
    if (ev.status === STATUS.stale) stale.add(i);
  });
  const staleText = staleLines(policy, t, records, stale);
  evidence.pathways.forEach((ev, i) => {
    if (which !== undefined && !which.has(i)) return;
    const id = policy.pathways[i]!.id;
    const named = ev.named.map((n) => n.record);
    switch (ev.status) {
      case STATUS.stale: {
        const own = staleText.filter((l) => l.startsWith(`${id}: `));
        for (const text of own) {
          lines.push({ pathway: i, id, status: 'stale', text, fix: STALE_FIX });
        }
        if (own.length === 0) {
          lines.push({
            pathway: i,
            id,
            status: 'stale',
            text: `${id}: every hop tiles the window, but its evidence cannot be stated (more than 255 records, or a sum of 2^128 or more)`,
            fix: 'a longer period P, or fewer records per period',
          });
        }
        break;
      }
      case STATUS.unmetered: {
        const hops = policy.pathways[i]!.hops.flatMap((h, k) =>
          named.some((r) => bytesEqual(r.hop, h.key) && r.class === 0) ? [k] : [],
        );
        lines.push({
          pathway: i,
          id,
          status: 'unmetered',
          text: `${id}: ${hops.map((k) => hopName(policy, i, k)).join(', ')} signed the unmetered marker (class 0: its energy was not measured); an unmetered hop is not a hop of zero joules, so the pathway has no figure`,
          fix: "give that hop's agent an energy source (rapl, prometheus or model; docs/metering.md)",
        });
        break;
      }
      case STATUS.mixed: {
        const byHop = policy.pathways[i]!.hops.map((h, k) => {
          const classes = [
            ...new Set(named.filter((r) => bytesEqual(r.hop, h.key)).map((r) => r.class)),
          ];
          return `${hopName(policy, i, k)} ${classes.map((c) => CLASS_LABEL[c] ?? String(c)).join(' and ')}`;
        });
        lines.push({
          pathway: i,
          id,
          status: 'mixed',
          text: `${id}: its records are of more than one class (${byHop.join('; ')}); figures of two classes are never summed`,
          fix: "meter the pathway's hops in one class",
        });
        break;
      }
      case STATUS.empty: {
        const tally = tallyPathway(policy, i, named, window);
        const what =
          policy.basis === 1
            ? 'no media bytes sent out (track entries of kind media, direction out)'
            : `no µs of delivery at or above the floor tier ${policy.floor}`;
        lines.push({
          pathway: i,
          id,
          status: 'empty',
          text: `${id}: its records state ${joulesText(tally.joules)} over the window (${formatDuration(window.b - window.a)}), but its edge hops' records state ${what}, so D = 0 and there is no rate to state`,
          fix: "give each edge hop's agent a traffic source (traffic: nginx or prometheus; docs/metering.md): traffic: none, the default, states no traffic",
        });
        break;
      }
      default:
        break;
    }
  });
  return lines;
}
