/**
 * §9.1 for a run of decisions over one archive, giving the outcome `verifyDecision` gives, in the
 * time of the decision's own signature. The steps are the verifier's own (`openPolicy`,
 * `checkDecision`, `checkEvidence`, `checkOutput` of `@wai-steering/verifier`, which
 * `verifyDecision` runs in order); what this adds is what it holds between decisions. Every
 * decision of one window names the same records with the same figures, so steps 4 and 5 (the
 * records and the evidence) and the order of §6.2 are run once per policy, window and evidence
 * section (its bytes, by value) and held; step 2 once per policy, the signer's check once per
 * signer and classes. What is left per decision is the read, its signature (step 3), and the
 * rule over its report, draw and loads (step 6). No manifest is archived, so there is no step 7.
 * The tests hold this to `verifyDecision`'s outcome on honest, tampered and mutated archives.
 */
import { windowAt } from '@wai-steering/evidence';
import { orderPathways } from '@wai-steering/rule';
import {
  checkDecision,
  checkEvidence,
  checkOutput,
  checkSigner,
  type OpenedPolicy,
  openPolicy,
  type Refused,
  type RoomContext,
  type VerifierCache,
} from '@wai-steering/verifier';
import {
  bytesEqual,
  type CryptoBackend,
  type Decision,
  type Place,
  type Reason,
  type Refusal,
  toHex,
} from '@wai-steering/wire';

/** A refusal: its C7 reason and place. */
export interface Refusal7 {
  readonly reason: Reason;
  readonly where: { readonly at: Place; readonly pathway?: number; readonly record?: number };
}

const placed = (r: Refused): Refusal7 => ({ reason: r.reason, where: r.where });

/** A policy after §9.1 step 2. */
type Opened = OpenedPolicy | Refusal7;

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

/**
 * Whether `d` was read after `previous` taking all of its figures and evidence from it
 * (`readDecision`'s `previous`: the same bytes), so that they need not be compared again.
 */
function sameEvidence(previous: Decision, d: Decision): boolean {
  const a = previous.pathways;
  const b = d.pathways;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i]!.evidence !== b[i]!.evidence) return false;
  return true;
}

const MAX_HELD = 4096;

export class FastVerifier {
  private readonly opened = new Map<string, Opened>();
  private readonly evidence = new Map<string, Evidence>();
  /** The last evidence section seen: its window, policy, decision, bytes and result. */
  private last:
    | {
        b: bigint;
        policy: Uint8Array;
        decision: Decision;
        bytes: Uint8Array;
        ranges: number[];
        evidence: Evidence;
      }
    | undefined;
  /** The last policy opened, by its digest's bytes. */
  private lastPolicy: { digest: Uint8Array; opened: Opened } | undefined;
  /** The last signer checked with the classes it stated (a bit each), and the outcome. */
  private lastSigner: { key: Uint8Array; classes: number; bad: Refusal | undefined } | undefined;
  /** §3.5, C6 for a decision's signer, held for the last signer and classes. */
  private readonly signer = (
    ctx: RoomContext,
    key: Uint8Array,
    classes: ReadonlySet<number>,
  ): Refusal | undefined => {
    let mask = 0;
    for (const c of classes) mask |= 1 << c;
    const ls = this.lastSigner;
    if (ls !== undefined && ls.classes === mask && bytesEqual(ls.key, key)) return ls.bad;
    const bad = checkSigner(ctx, key, classes);
    this.lastSigner = { key: key.slice(), classes: mask, bad };
    return bad;
  };

  constructor(
    private readonly ctx: RoomContext,
    private readonly records: ReadonlyMap<string, Uint8Array>,
    private readonly cache: VerifierCache,
    private readonly backend: CryptoBackend,
  ) {}

  /** §9.1 step 2, once per policy. */
  private open(hex: string, bytes: Uint8Array): Opened {
    let o = this.opened.get(hex);
    if (o === undefined) {
      const r = openPolicy(this.ctx, bytes, { backend: this.backend });
      o = 'outcome' in r ? placed(r) : r;
      this.opened.set(hex, o);
    }
    return o;
  }

  /** §9.1 steps 4 and 5 (the verifier's), and the order of §6.2 when they pass. */
  private steps4and5(policy: OpenedPolicy['policy'], d: Decision): Evidence {
    const bad = checkEvidence(this.ctx, policy, d, (hex) => this.records.get(hex), {
      backend: this.backend,
      cache: this.cache,
    });
    return bad !== undefined ? placed(bad) : { order: orderPathways(policy, d.pathways) };
  }

  /** §9.1 steps 2 to 6 for a decision that reads (step 1 passed when the room was opened). */
  verify(bytes: Uint8Array, d: Decision, policyBytes: Uint8Array): Refusal7 | null {
    let opened: Opened;
    const lp = this.lastPolicy;
    if (lp !== undefined && bytesEqual(lp.digest, d.policy)) opened = lp.opened;
    else {
      opened = this.open(toHex(d.policy), policyBytes);
      this.lastPolicy = { digest: d.policy.slice(), opened };
    }
    if ('reason' in opened) return opened;
    // Step 3.
    const bad = checkDecision(this.ctx, opened, d, { backend: this.backend, signer: this.signer });
    if (bad !== undefined) return placed(bad);
    // Steps 4 and 5, once per evidence section: the last one's bytes first (a window's
    // decisions follow one another), then by key.
    const window = windowAt(opened.policy, d.t);
    const last = this.last;
    let ev: Evidence | undefined;
    if (
      last !== undefined &&
      last.b === window.b &&
      bytesEqual(last.policy, d.policy) &&
      (sameEvidence(last.decision, d) || sameSection(last.bytes, last.ranges, bytes, sectionOf(d)))
    ) {
      ev = last.evidence;
    } else {
      const section = sectionOf(d);
      const key = evidenceKey(bytes, d, window.b, section);
      ev = this.evidence.get(key);
      if (ev === undefined) {
        ev = this.steps4and5(opened.policy, d);
        if (this.evidence.size >= MAX_HELD) this.evidence.clear();
        this.evidence.set(key, ev);
      }
      this.last = {
        b: window.b,
        policy: d.policy.slice(),
        decision: d,
        bytes: bytes.slice(),
        ranges: section,
        evidence: ev,
      };
    }
    if ('reason' in ev) return ev;
    // Step 6: the output, over the order held.
    const out = checkOutput(opened, d, { backend: this.backend, order: ev.order });
    return out === undefined ? null : placed(out);
  }
}
