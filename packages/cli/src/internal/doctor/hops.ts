/**
 * Each hop of the policy by the records the store holds: its last record (span, class, joules,
 * bytes out) and how long ago it ended, against the lag (a record is due L after each period
 * ends: a hop is late past P + L); then each pathway's status at the room clock now, and, for a
 * pathway without a figure, why (`noFigure`: stale hop by hop, unmetered, mixed, empty).
 */
import { formatBytes, formatDuration } from '@wai-steering/config-text';
import type { EvidenceRecord } from '@wai-steering/evidence';
import { bytesEqual, CLASS_LABEL, type Policy, toHex } from '@wai-steering/wire';
import { spanText } from '../time.js';
import { joulesText, noFigure } from '../why.js';
import type { Report } from './report.js';

const HOP_FIX =
  'start its hop agent (`wai-steer hop run --config hop.yaml`) with this server among its servers; its log says what it sent and what was refused (`wai-steer doctor --config … --hop hop.yaml` checks it)';

/**
 * How far after this machine's clock a record may end before doctor warns: the 2 s it allows
 * between the server's clock and this one. Two machines' clocks under NTP agree to well within
 * it, and a record posted while doctor runs (its checks take a moment) ends just after the
 * instant doctor started at.
 */
export const AHEAD_TOLERANCE_US = 2_000_000n;

function bytesOut(r: EvidenceRecord['record']): bigint {
  let n = 0n;
  for (const t of r.tracks) if (t.direction === 2) n += t.bytes;
  return n;
}

/** The class each hop key states in its last record (for the key log's check). */
export function lastClasses(records: readonly EvidenceRecord[]): Map<string, number> {
  const last = new Map<string, EvidenceRecord['record']>();
  for (const { record } of records) {
    const key = toHex(record.hop);
    const held = last.get(key);
    if (held === undefined || record.end > held.end) last.set(key, record);
  }
  return new Map([...last].map(([k, r]) => [k, r.class]));
}

/**
 * Checks the hops and the pathways at `now` (µs) by `records` (the store's last hour);
 * `noTraffic`: the keys of hops whose agents are known to have no traffic source.
 */
export function checkHops(
  policy: Policy,
  records: readonly EvidenceRecord[],
  now: bigint,
  report: Report,
  noTraffic: ReadonlySet<string> = new Set(),
): void {
  const P = policy.period_us;
  const L = policy.lag_us;
  for (const p of policy.pathways) {
    p.hops.forEach((h, k) => {
      const name = `${p.id} hop ${k + 1} (${h.place === 2 ? 'interior' : 'edge'} ${toHex(h.key)})`;
      let last: EvidenceRecord['record'] | undefined;
      for (const { record } of records) {
        if (bytesEqual(record.hop, h.key) && (last === undefined || record.end > last.end)) {
          last = record;
        }
      }
      if (last === undefined) {
        report.problem(
          'hops',
          `${name}: no record in the store (over the records' retention)`,
          HOP_FIX,
        );
        return;
      }
      const age = now - last.end;
      const what = `last record ${spanText(last.start, last.end)}, ${CLASS_LABEL[last.class] ?? 'unmetered'}, ${joulesText(last.joules)}, ${formatBytes(bytesOut(last))} out`;
      if (age > P + L) {
        report.problem(
          'hops',
          `${name}: late: its ${what}, ended ${formatDuration(age)} ago (a record is due within L, ${formatDuration(L)}, of each period's end)`,
          HOP_FIX,
        );
      } else if (age < 0n && -age <= AHEAD_TOLERANCE_US) {
        report.ok('hops', `${name}: ${what}, ended just now`);
      } else if (age < 0n) {
        report.warning(
          'clock',
          `${name}: its ${what} ends ${formatDuration(-age)} after this machine's clock`,
          "set the hop's clock and this machine's right (NTP); a record ending more than records.max_ahead after the server's clock is refused",
        );
      } else {
        report.ok('hops', `${name}: ${what}, ended ${formatDuration(age)} ago`);
      }
    });
  }
  const none = noFigure(policy, now, records);
  const without = new Set(none.map((n) => n.pathway));
  for (const n of none) {
    // An empty pathway is one whose edge hops delivered nothing over the window: a pathway with
    // no audience yet is so, and that is no fault of the setup, unless an edge hop's agent is
    // known to have no traffic source, when it can never be otherwise.
    const edges = policy.pathways[n.pathway]!.hops.filter((h) => h.place === 1);
    const never = edges.some((h) => noTraffic.has(toHex(h.key)));
    if (n.status === 'empty' && !never) {
      report.warning(
        'pathways',
        `${n.status}: ${n.text}`,
        `nothing, if ${n.id} has no audience yet; otherwise check its edge hops' traffic sources (\`wai-steer doctor --hop hop.yaml\` on each)`,
      );
    } else report.problem('pathways', `${n.status}: ${n.text}`, n.fix);
  }
  policy.pathways.forEach((p, i) => {
    if (!without.has(i)) report.ok('pathways', `${p.id}: a figure over the window in use`);
  });
}
