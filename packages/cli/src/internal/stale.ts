/**
 * Why a pathway is stale, in words: for each hop of a stale pathway, the periods its records
 * leave missing, cover twice, cross the window's edge with, or do not cut on the period
 * (`explainCoverage` of `@wai-steering/evidence`). Printed by `decision inspect` (with the policy
 * and the records) and by `verify` under an accepted decision with a stale pathway.
 */

import { formatDurationExact } from '@wai-steering/config-text';
import { type EvidenceRecord, explainCoverage, type Span, windowAt } from '@wai-steering/evidence';
import { digestOf, type Policy, readHopRecord, toHex } from '@wai-steering/wire';
import { spanText } from './time.js';

const spanOf = (s: Span): string => spanText(s.start, s.end);

/** The records of `files` that read as `WMH1`, with their digests (others are skipped). */
export function evidenceOf(files: readonly Uint8Array[]): EvidenceRecord[] {
  const out: EvidenceRecord[] = [];
  for (const bytes of files) {
    const read = readHopRecord(bytes);
    if (read.ok) out.push({ record: read.value, digest: digestOf(read.value) });
  }
  return out;
}

/**
 * One line per hop that does not tile the window at `t`, for the pathways `which` (indexes; all
 * when absent), each naming the pathway, the hop (index, place, key) and what is wrong.
 */
export function staleLines(
  policy: Policy,
  t: bigint,
  records: readonly EvidenceRecord[],
  which?: ReadonlySet<number>,
): string[] {
  const window = windowAt(policy, t);
  const source = {
    recordsOfHop: (hop: Uint8Array) =>
      records.filter(
        (r) => toHex(r.record.hop) === toHex(hop) && toHex(r.record.room) === toHex(policy.room),
      ),
  };
  const lines: string[] = [];
  for (const p of explainCoverage(policy, window, source)) {
    if (which !== undefined && !which.has(p.pathway)) continue;
    for (const h of p.hops) {
      if (h.tiles) continue;
      const place = policy.pathways[p.pathway]!.hops[h.hop]!.place === 2 ? 'interior' : 'edge';
      const what: string[] = [];
      if (window.a >= window.b)
        what.push(`the window at t is empty (${spanText(window.a, window.b)})`);
      if (h.missing.length > 0) what.push(`no record for ${h.missing.map(spanOf).join(', ')}`);
      if (h.overlapping.length > 0) {
        what.push(`records overlap over ${h.overlapping.map(spanOf).join(', ')}`);
      }
      if (h.crossing.length > 0) {
        what.push(`records cross the window's edge: ${h.crossing.map(spanOf).join(', ')}`);
      }
      if (h.offPeriod.length > 0) {
        what.push(
          `records not cut on the ${formatDurationExact(policy.period_us)} period: ${h.offPeriod.map(spanOf).join(', ')}`,
        );
      }
      if (what.length === 0) what.push('its records do not tile the window');
      lines.push(
        `${p.id}: hop ${h.hop + 1} (${place} ${toHex(h.key)}): ${what.join('; ')}; window ${spanText(window.a, window.b)}`,
      );
    }
  }
  return lines;
}
