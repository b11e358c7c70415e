/**
 * §9.1's steps 2 to 6, each on its own, for a verifier that runs them over many decisions and
 * holds what does not change from one decision to the next (an auditor: the policy once, the
 * evidence of a window once). `verifyDecision` is these steps in order; C9's order of the checks
 * within a step is kept here, once.
 */
import { evaluatePathway, inWindow, windowAt } from '@wai-steering/evidence';
import { applyRule, drawOf, type Report } from '@wai-steering/rule';
import {
  bytesEqual,
  type CryptoBackend,
  type Decision,
  type DecisionReport,
  digestOf,
  getBackend,
  type HopRecord,
  type Policy,
  PRESENT,
  type Refusal,
  readPolicy,
  STATUS,
  toHex,
  verifyDecisionSignature,
  verifyPolicySignature,
} from '@wai-steering/wire';
import { VerifierCache } from './cache.js';
import { type Refused, refused, refusedBy } from './outcome.js';
import { checkHopAuthorised, checkSigner, type RoomContext } from './room.js';

/** A policy after §9.1 step 2: read, of the room, signed by a key that may sign it. */
export interface OpenedPolicy {
  readonly policy: Policy;
  /** Its digest (§3.4), which the decisions under it name. */
  readonly digest: Uint8Array;
}

/** The options of the steps. */
export interface StepOptions {
  /** The crypto backend; the default backend when absent. */
  readonly backend?: CryptoBackend;
}

/**
 * §9.1 step 2, at `policy`: the policy's bytes read (C3), its room the room's, its signature
 * and its signer (§3.5, C6).
 */
export function openPolicy(
  ctx: RoomContext,
  bytes: Uint8Array,
  options: StepOptions = {},
): OpenedPolicy | Refused {
  const backend = options.backend ?? getBackend();
  const read = readPolicy(bytes);
  if (!read.ok) return refusedBy(read.refusal, 'policy');
  const policy = read.value;
  if (!bytesEqual(policy.room, ctx.roomId)) return refused('wrong_room', 'policy');
  const badSig = verifyPolicySignature(policy, backend);
  if (badSig !== undefined) return refusedBy(badSig, 'policy');
  const badSigner = checkSigner(ctx, policy.signer);
  if (badSigner !== undefined) return refusedBy(badSigner, 'policy');
  return { policy, digest: digestOf(policy, backend) };
}

/** Options of {@link checkDecision}. */
export interface DecisionCheckOptions extends StepOptions {
  /**
   * §3.5, C6 for the decision's signer and the classes it states with a figure: `checkSigner`
   * by default; a caller that checks one signer many times may give it held.
   */
  readonly signer?: (
    ctx: RoomContext,
    signer: Uint8Array,
    classes: ReadonlySet<number>,
  ) => Refusal | undefined;
}

/**
 * §9.1 step 3 for a decision that reads, at `decision`, in C9's order: its room, the policy's
 * digest, one pathway per pathway of the policy, the report's pathway one of them, its
 * signature, its signer (with `energy/<label>` for each class it states with a figure).
 */
export function checkDecision(
  ctx: RoomContext,
  opened: OpenedPolicy,
  decision: Decision,
  options: DecisionCheckOptions = {},
): Refused | undefined {
  const backend = options.backend ?? getBackend();
  if (!bytesEqual(decision.room, ctx.roomId)) return refused('wrong_room', 'decision');
  if (!bytesEqual(decision.policy, opened.digest)) return refused('record_missing', 'decision');
  const m = opened.policy.pathways.length;
  if (decision.pathways.length !== m) return refused('decision_invalid', 'decision');
  if ((decision.report.present & PRESENT.pathway) !== 0 && decision.report.pathway >= m) {
    return refused('decision_invalid', 'decision');
  }
  const badSig = verifyDecisionSignature(decision, backend);
  if (badSig !== undefined) return refusedBy(badSig, 'decision');
  const classes = new Set<number>();
  for (const pw of decision.pathways) if (pw.status === STATUS.figure) classes.add(pw.class);
  const badSigner = (options.signer ?? checkSigner)(ctx, decision.signer, classes);
  return badSigner === undefined ? undefined : refusedBy(badSigner, 'decision');
}

/** Options of {@link checkEvidence}. */
export interface EvidenceCheckOptions extends StepOptions {
  /** What is learnt of each record (its reading, its signature) is held here, across calls. */
  readonly cache?: VerifierCache;
}

/**
 * §9.1 steps 4 and 5 for a decision's evidence section: each record it names, in order, at
 * `evidence` (C9, record by record: 4.1 given, 4.2 reads and verifies in the room, 4.3 its hop
 * may sign it, 4.4 its hop is on the pathway, 4.5 it is in the window of `t`, 4.6 it follows the
 * record before it); then each pathway's figures recomputed from its records, at `pathway`
 * (§5.3, §5.4). `records` gives the record given for a digest (lowercase hex), if any.
 *
 * What it reads of the decision is its `t` (the window), each pathway's status, class, joules,
 * delivery and evidence, and the policy: decisions that share those share the outcome, which a
 * caller may hold (an audit verifies it once per window's evidence).
 */
export function checkEvidence(
  ctx: RoomContext,
  policy: Policy,
  decision: Decision,
  records: (digest: string) => Uint8Array | undefined,
  options: EvidenceCheckOptions = {},
): Refused | undefined {
  const backend = options.backend ?? getBackend();
  const cache = options.cache ?? new VerifierCache();
  const m = policy.pathways.length;
  const window = windowAt(policy, decision.t);
  const named: HopRecord[][] = [];
  for (let i = 0; i < m; i++) {
    const hopIndex = new Map<string, number>();
    policy.pathways[i]!.hops.forEach((hop, h) => {
      hopIndex.set(toHex(hop.key), h);
    });
    const list: HopRecord[] = [];
    let prevHop = -1;
    let prevStart = 0n;
    const evidence = decision.pathways[i]!.evidence;
    for (let j = 0; j < evidence.length; j++) {
      // 4.1: a record whose digest is the one named is given.
      const blob = records(toHex(evidence[j]!));
      if (blob === undefined) return refused('record_missing', 'evidence', i, j);
      // 4.2: it reads, its room is the room id and its signature verifies.
      const facts = cache.facts(blob, backend);
      if (!facts.read.ok) return refusedBy(facts.read.refusal, 'evidence', i, j);
      const record = facts.read.value;
      const bad = cache.verify(facts, record, ctx.roomId, backend);
      if (bad !== null) return refusedBy(bad, 'evidence', i, j);
      // 4.3: its hop may sign it.
      const unauthorised = checkHopAuthorised(ctx, record);
      if (unauthorised !== undefined) return refusedBy(unauthorised, 'evidence', i, j);
      // 4.4: its hop is a hop of the pathway it is named under.
      const h = hopIndex.get(toHex(record.hop));
      if (h === undefined) return refused('evidence_not_on_pathway', 'evidence', i, j);
      // 4.5: it is in the window of the decision's t.
      if (!inWindow(record, window)) return refused('evidence_outside_window', 'evidence', i, j);
      // 4.6: it follows the record before it: a later hop, or the same hop and a later start.
      if (j > 0 && !(h > prevHop || (h === prevHop && record.start > prevStart))) {
        return refused('decision_invalid', 'evidence', i, j);
      }
      prevHop = h;
      prevStart = record.start;
      list.push(record);
    }
    named.push(list);
  }
  // §9.1 step 5: the evidence, at `pathway`.
  for (let i = 0; i < m; i++) {
    const stated = decision.pathways[i]!;
    const list = named[i]!;
    if (stated.status === STATUS.figure) {
      // §5.4, C9: tested on the named records themselves, before comparing.
      if (list.some((r) => r.class === 0)) return refused('unmetered_as_zero', 'pathway', i);
      if (new Set(list.map((r) => r.class)).size > 1) {
        return refused('classes_summed', 'pathway', i);
      }
    }
    const figure = evaluatePathway(policy, i, list, window);
    if (
      figure.status !== stated.status ||
      figure.class !== stated.class ||
      figure.joules !== stated.joules ||
      figure.delivery !== stated.delivery
    ) {
      return refused('evidence_mismatch', 'pathway', i);
    }
  }
  return undefined;
}

/** §7.1 report fields as §6 reads them: an absent value is absent, never zero. */
function reportOf(r: DecisionReport): Report {
  return {
    pathway: (r.present & PRESENT.pathway) !== 0 ? r.pathway : null,
    throughput: (r.present & PRESENT.throughput) !== 0 ? r.throughput : null,
    buffer: (r.present & PRESENT.buffer) !== 0 ? r.buffer : null,
  };
}

/** Options of {@link checkOutput}. */
export interface OutputCheckOptions extends StepOptions {
  /** §6.2's order of the decision's figures, when already computed (`orderPathways`). */
  readonly order?: readonly number[];
}

/**
 * §9.1 step 6, at `output`: the draw, limits, priority, TTL and reason recomputed from the
 * policy, the decision's figures, its report, its session and the loads it states.
 * `unknown_preferred` when the stated first pathway has no figure and the recomputed first has
 * one (C9: for any difference of the output); `decision_mismatch` otherwise.
 */
export function checkOutput(
  opened: OpenedPolicy,
  decision: Decision,
  options: OutputCheckOptions = {},
): Refused | undefined {
  const backend = options.backend ?? getBackend();
  const draw = drawOf(opened.digest, decision.session, backend);
  const rule = applyRule({
    policy: opened.policy,
    figures: decision.pathways,
    report: reportOf(decision.report),
    draw,
    loads: decision.pathways.map((pw) => pw.load),
    ...(options.order === undefined ? {} : { order: options.order }),
  });
  const same =
    draw === decision.draw &&
    decision.pathways.every((pw, i) => pw.limits === rule.limits[i]) &&
    rule.priority.length === decision.priority.length &&
    rule.priority.every((p, i) => p === decision.priority[i]) &&
    rule.ttl === decision.ttl &&
    rule.reason === decision.reason;
  if (same) return undefined;
  const statedFirst = decision.pathways[decision.priority[0]!]!;
  const ruleFirst = decision.pathways[rule.priority[0]!]!;
  const unknown = statedFirst.status !== STATUS.figure && ruleFirst.status === STATUS.figure;
  return refused(unknown ? 'unknown_preferred' : 'decision_mismatch', 'output');
}
