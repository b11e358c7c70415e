/**
 * Verdicts packed into bytes for the trip from a worker back to the audit's thread: one buffer a
 * batch, transferred, instead of a structured clone of an object per decision (which costs about
 * as much as a tenth of the decision's signature). Per decision: a flags byte (bit 0 accepted,
 * bit 1 facts follow), then the facts: `t` (u64), the session (16), the policy (32), `ttl` (u32),
 * the first pathway, the reason and the count m (u8 each), and m loads (u32). A refusal's reason
 * and place travel beside the buffer, by the decision's index.
 */
import type { Reason } from '@wai-steering/wire';
import type { Verdict, Where } from '../verdict.js';

/** The refusals of a batch: index, reason, place. */
export type PackedRefusals = { i: number; reason: Reason; where: Where }[];

export function packVerdicts(verdicts: readonly Verdict[]): {
  buf: Uint8Array;
  refused: PackedRefusals;
} {
  let n = 0;
  for (const v of verdicts)
    n += 1 + (v.facts === undefined ? 0 : 8 + 16 + 32 + 4 + 3 + 4 * v.facts.loads.length);
  const buf = new Uint8Array(n);
  const view = new DataView(buf.buffer);
  const refused: PackedRefusals = [];
  let o = 0;
  verdicts.forEach((v, i) => {
    buf[o] = (v.accepted ? 1 : 0) | (v.facts === undefined ? 0 : 2);
    o += 1;
    if (!v.accepted) refused.push({ i, reason: v.reason, where: v.where });
    const f = v.facts;
    if (f === undefined) return;
    view.setBigUint64(o, f.t, true);
    buf.set(f.session, o + 8);
    buf.set(f.policy, o + 24);
    view.setUint32(o + 56, f.ttl, true);
    buf[o + 60] = f.first;
    buf[o + 61] = f.reason;
    buf[o + 62] = f.loads.length;
    o += 63;
    for (const l of f.loads) {
      view.setUint32(o, l, true);
      o += 4;
    }
  });
  return { buf, refused };
}

export function unpackVerdicts(buf: Uint8Array, refused: PackedRefusals, count: number): Verdict[] {
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const byIndex = new Map(refused.map((r) => [r.i, r]));
  const out: Verdict[] = [];
  let o = 0;
  for (let i = 0; i < count; i++) {
    const flags = buf[o]!;
    o += 1;
    let facts: Verdict['facts'];
    if ((flags & 2) !== 0) {
      const m = buf[o + 62]!;
      const loads: number[] = [];
      for (let p = 0; p < m; p++) loads.push(view.getUint32(o + 63 + 4 * p, true));
      facts = {
        t: view.getBigUint64(o, true),
        session: buf.subarray(o + 8, o + 24),
        policy: buf.subarray(o + 24, o + 56),
        ttl: view.getUint32(o + 56, true),
        first: buf[o + 60]!,
        reason: buf[o + 61]!,
        loads,
      };
      o += 63 + 4 * m;
    }
    const r = byIndex.get(i);
    const base =
      (flags & 1) !== 0 || r === undefined
        ? { accepted: true as const }
        : { accepted: false as const, reason: r.reason, where: r.where };
    out.push(facts === undefined ? base : { ...base, facts });
  }
  return out;
}
