/**
 * §9.1 for a run of decisions over one archive, giving the outcome `verifyDecision` gives
 * (`@wai-steering/verifier`), in the time of the decision's own signature. Every decision of one
 * window names the same records with the same figures, so steps 4 and 5 (the records and the
 * evidence) and the order of §6.2 are computed once per policy, window and evidence section
 * (its bytes, by value) and held; steps 1 and 2 once per policy. What is left per decision is
 * the read, its signature and signer (step 3), and the rule over its report, draw and loads
 * (step 6). No manifest is archived, so there is no step 7. The tests hold this to
 * `verifyDecision`'s outcome on honest, tampered and mutated archives.
 */
import { evaluatePathway, inWindow, windowAt } from '@wai-steering/evidence';
import { applyRule, drawOf, orderPathways, type Report } from '@wai-steering/rule';
import {
  checkHopAuthorised,
  checkSigner,
  type RoomContext,
  type VerifierCache,
} from '@wai-steering/verifier';
import {
  bytesEqual,
  type CryptoBackend,
  type Decision,
  digestOf,
  type HopRecord,
  type Place,
  type Policy,
  PRESENT,
  type Reason,
  readPolicy,
  STATUS,
  toHex,
  verifyDecisionSignature,
  verifyPolicySignature,
} from '@wai-steering/wire';

/** A refusal: its C7 reason and place. */
export interface Refusal7 {
  readonly reason: Reason;
  readonly where: { readonly at: Place; readonly pathway?: number; readonly record?: number };
}

const at = (reason: Reason, place: Place, pathway?: number, record?: number): Refusal7 => {
  if (place === 'evidence')
    return { reason, where: { at: place, pathway: pathway!, record: record! } };
  if (place === 'pathway') return { reason, where: { at: place, pathway: pathway! } };
  return { reason, where: { at: place } };
};

/** A policy after §9.1 step 2. */
type Opened = { policy: Policy; digest: Uint8Array } | Refusal7;

/** Steps 4 and 5 of one evidence section, and its order (§6.2). */
type Evidence = { order: number[] } | Refusal7;

/** The offset of `pathways` in a `WSD1` (§7.1): magic, version, room, signer, policy, t, session, draw, protocol, report. */
const PATHWAYS_AT = 4 + 1 + 32 * 3 + 8 + 16 + 4 + 1 + 18;

function latin1(bytes: Uint8Array, from: number, to: number): string {
  let s = '';
  for (let i = from; i < to; i += 4096) {
    s += String.fromCharCode.apply(
      null,
      bytes.subarray(i, Math.min(to, i + 4096)) as unknown as number[],
    );
  }
  return s;
}

/**
 * The key of a decision's evidence section: the policy, the window's end, and for each pathway
 * the bytes of §7.1 from `status` to the end of `evidence` (what steps 4 and 5 read of it).
 */
function evidenceKey(bytes: Uint8Array, d: Decision, b: bigint, section: number[]): string {
  let key = `${toHex(d.policy)}:${b}:`;
  for (let i = 0; i < section.length; i += 2) key += latin1(bytes, section[i]!, section[i + 1]!);
  return key;
}

/** The byte ranges of a decision's evidence section: [start, end) per pathway. */
function sectionOf(d: Decision): number[] {
  const ranges: number[] = [];
  let pos = PATHWAYS_AT + 1;
  for (const pw of d.pathways) {
    const start = pos + 5; // after load and limits
    const end = start + 35 + 32 * pw.evidence.length;
    ranges.push(start, end);
    pos = end;
  }
  return ranges;
}

/** Whether two decisions' evidence sections hold the same bytes. */
function sameSection(a: Uint8Array, ra: number[], b: Uint8Array, rb: number[]): boolean {
  if (ra.length !== rb.length) return false;
  for (let i = 0; i < ra.length; i += 2) {
    const n = ra[i + 1]! - ra[i]!;
    if (rb[i + 1]! - rb[i]! !== n) return false;
    const x = ra[i]!;
    const y = rb[i]!;
    for (let k = 0; k < n; k++) if (a[x + k] !== b[y + k]) return false;
  }
  return true;
}

function reportOf(d: Decision): Report {
  const r = d.report;
  return {
    pathway: (r.present & PRESENT.pathway) !== 0 ? r.pathway : null,
    throughput: (r.present & PRESENT.throughput) !== 0 ? r.throughput : null,
    buffer: (r.present & PRESENT.buffer) !== 0 ? r.buffer : null,
  };
}

const MAX_HELD = 4096;

export class FastVerifier {
  private readonly opened = new Map<string, Opened>();
  private readonly evidence = new Map<string, Evidence>();
  /** The last evidence section seen: its window, policy, bytes and result. */
  private last:
    | { b: bigint; policy: Uint8Array; bytes: Uint8Array; ranges: number[]; evidence: Evidence }
    | undefined;
  /** The last policy opened, by its digest's bytes. */
  private lastPolicy: { digest: Uint8Array; opened: Opened } | undefined;
  /** The last signer checked with the classes it stated (a bit each), and the outcome. */
  private lastSigner: { key: Uint8Array; classes: number; bad: Refusal7 | null } | undefined;

  constructor(
    private readonly ctx: RoomContext,
    private readonly records: ReadonlyMap<string, Uint8Array>,
    private readonly cache: VerifierCache,
    private readonly backend: CryptoBackend,
  ) {}

  /** §9.1 step 2, once per policy. */
  private open(hex: string, bytes: Uint8Array): Opened {
    let o = this.opened.get(hex);
    if (o !== undefined) return o;
    const read = readPolicy(bytes);
    if (!read.ok) o = at(read.refusal.reason, 'policy');
    else if (!bytesEqual(read.value.room, this.ctx.roomId)) o = at('wrong_room', 'policy');
    else {
      const bad =
        verifyPolicySignature(read.value, this.backend) ?? checkSigner(this.ctx, read.value.signer);
      o =
        bad !== undefined
          ? at(bad.reason, 'policy')
          : { policy: read.value, digest: digestOf(read.value, this.backend) };
    }
    this.opened.set(hex, o);
    return o;
  }

  /** §9.1 steps 4 and 5 over the records named, and the order of §6.2. */
  private steps4and5(policy: Policy, d: Decision): Evidence {
    const m = policy.pathways.length;
    const window = windowAt(policy, d.t);
    const named: HopRecord[][] = [];
    for (let i = 0; i < m; i++) {
      const hopIndex = new Map<string, number>();
      policy.pathways[i]!.hops.forEach((hop, h) => {
        hopIndex.set(toHex(hop.key), h);
      });
      const records: HopRecord[] = [];
      let prevHop = -1;
      let prevStart = 0n;
      const evidence = d.pathways[i]!.evidence;
      for (let j = 0; j < evidence.length; j++) {
        // 4.1 to 4.6, record by record (C9).
        const blob = this.records.get(toHex(evidence[j]!));
        if (blob === undefined) return at('record_missing', 'evidence', i, j);
        const facts = this.cache.facts(blob, this.backend);
        if (!facts.read.ok) return at(facts.read.refusal.reason, 'evidence', i, j);
        const record = facts.read.value;
        const bad = this.cache.verify(facts, record, this.ctx.roomId, this.backend);
        if (bad !== null) return at(bad.reason, 'evidence', i, j);
        const unauthorised = checkHopAuthorised(this.ctx, record);
        if (unauthorised !== undefined) return at(unauthorised.reason, 'evidence', i, j);
        const h = hopIndex.get(toHex(record.hop));
        if (h === undefined) return at('evidence_not_on_pathway', 'evidence', i, j);
        if (!inWindow(record, window)) return at('evidence_outside_window', 'evidence', i, j);
        if (j > 0 && !(h > prevHop || (h === prevHop && record.start > prevStart))) {
          return at('decision_invalid', 'evidence', i, j);
        }
        prevHop = h;
        prevStart = record.start;
        records.push(record);
      }
      named.push(records);
    }
    for (let i = 0; i < m; i++) {
      const stated = d.pathways[i]!;
      const records = named[i]!;
      if (stated.status === STATUS.figure) {
        if (records.some((r) => r.class === 0)) return at('unmetered_as_zero', 'pathway', i);
        if (new Set(records.map((r) => r.class)).size > 1)
          return at('classes_summed', 'pathway', i);
      }
      const figure = evaluatePathway(policy, i, records, window);
      if (
        figure.status !== stated.status ||
        figure.class !== stated.class ||
        figure.joules !== stated.joules ||
        figure.delivery !== stated.delivery
      ) {
        return at('evidence_mismatch', 'pathway', i);
      }
    }
    return { order: orderPathways(policy, d.pathways) };
  }

  /** §9.1 steps 2 to 6 for a decision that reads (step 1 passed when the room was opened). */
  verify(bytes: Uint8Array, d: Decision, policyBytes: Uint8Array): Refusal7 | null {
    const ctx = this.ctx;
    let opened: Opened;
    const lp = this.lastPolicy;
    if (lp !== undefined && bytesEqual(lp.digest, d.policy)) opened = lp.opened;
    else {
      opened = this.open(toHex(d.policy), policyBytes);
      this.lastPolicy = { digest: d.policy.slice(), opened };
    }
    if ('reason' in opened) return opened;
    const { policy, digest: policyDigest } = opened;
    // Step 3, in C9's order.
    if (!bytesEqual(d.room, ctx.roomId)) return at('wrong_room', 'decision');
    if (!bytesEqual(d.policy, policyDigest)) return at('record_missing', 'decision');
    const m = policy.pathways.length;
    if (d.pathways.length !== m) return at('decision_invalid', 'decision');
    if ((d.report.present & PRESENT.pathway) !== 0 && d.report.pathway >= m) {
      return at('decision_invalid', 'decision');
    }
    const badSig = verifyDecisionSignature(d, this.backend);
    if (badSig !== undefined) return at(badSig.reason, 'decision');
    let mask = 0;
    for (const pw of d.pathways) if (pw.status === STATUS.figure) mask |= 1 << pw.class;
    const ls = this.lastSigner;
    let badSigner: Refusal7 | null;
    if (ls !== undefined && ls.classes === mask && bytesEqual(ls.key, d.signer)) badSigner = ls.bad;
    else {
      const classes = new Set<number>();
      for (const pw of d.pathways) if (pw.status === STATUS.figure) classes.add(pw.class);
      const r = checkSigner(ctx, d.signer, classes);
      badSigner = r === undefined ? null : at(r.reason, 'decision');
      this.lastSigner = { key: d.signer.slice(), classes: mask, bad: badSigner };
    }
    if (badSigner !== null) return badSigner;
    // Steps 4 and 5, once per evidence section: the last one's bytes first (a window's
    // decisions follow one another), then by key.
    const window = windowAt(policy, d.t);
    const section = sectionOf(d);
    const last = this.last;
    let ev: Evidence | undefined;
    if (
      last !== undefined &&
      last.b === window.b &&
      bytesEqual(last.policy, d.policy) &&
      sameSection(last.bytes, last.ranges, bytes, section)
    ) {
      ev = last.evidence;
    } else {
      const key = evidenceKey(bytes, d, window.b, section);
      ev = this.evidence.get(key);
      if (ev === undefined) {
        ev = this.steps4and5(policy, d);
        if (this.evidence.size >= MAX_HELD) this.evidence.clear();
        this.evidence.set(key, ev);
      }
      this.last = {
        b: window.b,
        policy: d.policy.slice(),
        bytes: bytes.slice(),
        ranges: section,
        evidence: ev,
      };
    }
    if ('reason' in ev) return ev;
    // Step 6: the output.
    const draw = drawOf(policyDigest, d.session, this.backend);
    const rule = applyRule({
      policy,
      figures: d.pathways,
      report: reportOf(d),
      draw,
      loads: d.pathways.map((pw) => pw.load),
      order: ev.order,
    });
    const same =
      draw === d.draw &&
      d.pathways.every((pw, i) => pw.limits === rule.limits[i]) &&
      rule.priority.length === d.priority.length &&
      rule.priority.every((p, i) => p === d.priority[i]) &&
      rule.ttl === d.ttl &&
      rule.reason === d.reason;
    if (!same) {
      const statedFirst = d.pathways[d.priority[0]!]!;
      const ruleFirst = d.pathways[rule.priority[0]!]!;
      const unknown = statedFirst.status !== STATUS.figure && ruleFirst.status === STATUS.figure;
      return at(unknown ? 'unknown_preferred' : 'decision_mismatch', 'output');
    }
    return null;
  }
}
