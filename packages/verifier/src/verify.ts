import { evaluatePathway, inWindow, windowAt } from '@wai-steering/evidence';
import { decisionUri, writeManifest } from '@wai-steering/manifest';
import { applyRule, drawOf, type Report } from '@wai-steering/rule';
import {
  bytesEqual,
  type CryptoBackend,
  type Decision,
  type DecisionReport,
  digestOf,
  getBackend,
  type HopRecord,
  LIMIT,
  type Policy,
  PRESENT,
  REASON_NAME,
  Refusal,
  readDecision,
  readPolicy,
  STATUS,
  STATUS_NAME,
  toHex,
  verifyDecisionSignature,
  verifyPolicySignature,
} from '@wai-steering/wire';
import { VerifierCache } from './cache.js';
import { type Accepted, type Outcome, type Refused, refused, refusedBy } from './outcome.js';
import { checkHopAuthorised, checkSigner, openRoom, type RoomContext } from './room.js';

/** §9.1: what a verifier is given. */
export interface VerifyInput {
  /** The room's descriptor (`WRD1`). */
  readonly room: Uint8Array;
  /** The head of the origin's key log (`WKL1`), or none. */
  readonly keyLog?: Uint8Array | null;
  /** The policy (`WSP1`). */
  readonly policy: Uint8Array;
  /** The decision (`WSD1`). */
  readonly decision: Uint8Array;
  /** The per-hop records (`WMH1`), as a set in any order; the decision names them by digest. */
  readonly records: readonly Uint8Array[];
  /** The steering manifest served with the decision, if any: its text or its bytes. */
  readonly manifest?: string | Uint8Array | null;
}

/** Options of {@link verifyDecision}. */
export interface VerifyOptions {
  /** The crypto backend; the default backend when absent. */
  readonly backend?: CryptoBackend;
  /** A cache shared across verifications, so that each record's signature is verified once. */
  readonly cache?: VerifierCache;
}

const ENCODER = new TextEncoder();
const EMPTY = new Uint8Array(0);

interface OpenedPolicy {
  readonly ctx: RoomContext;
  readonly policy: Policy;
  readonly policyDigest: Uint8Array;
}

/** §9.1 steps 1 and 2: the room (at `room`), then the policy (at `policy`). */
function openPolicy(input: VerifyInput, backend: CryptoBackend): OpenedPolicy | Refused {
  // §9.1 step 1: the room, at `room`.
  const opened = openRoom(input.room, input.keyLog, { backend });
  if (!opened.ok) return refusedBy(opened.refusal, 'room');
  const ctx = opened.value;

  // §9.1 step 2: the policy, at `policy`.
  const readP = readPolicy(input.policy);
  if (!readP.ok) return refusedBy(readP.refusal, 'policy');
  const policy: Policy = readP.value;
  if (!bytesEqual(policy.room, ctx.roomId)) return refused('wrong_room', 'policy');
  const badPolicySig = verifyPolicySignature(policy, backend);
  if (badPolicySig !== undefined) return refusedBy(badPolicySig, 'policy');
  const policySigner = checkSigner(ctx, policy.signer);
  if (policySigner !== undefined) return refusedBy(policySigner, 'policy');
  return { ctx, policy, policyDigest: digestOf(policy, backend) };
}

/** §7.1 report fields as §6 reads them: an absent value is absent, never zero. */
function reportOf(r: DecisionReport): Report {
  return {
    pathway: (r.present & PRESENT.pathway) !== 0 ? r.pathway : null,
    throughput: (r.present & PRESENT.throughput) !== 0 ? r.throughput : null,
    buffer: (r.present & PRESENT.buffer) !== 0 ? r.buffer : null,
  };
}

/**
 * §9.1 steps 1 to 7: verifies a decision from the room, its key log head, the policy, the
 * records and, optionally, the manifest served with it; stops at the first refusal. The outcome
 * is companion C8's.
 */
export function verifyDecision(input: VerifyInput, options: VerifyOptions = {}): Outcome {
  const backend = options.backend ?? getBackend();
  const cache = options.cache ?? new VerifierCache();

  // §9.1 steps 1 and 2, once for a run of decisions over the same room, key log and policy.
  const parts = [input.room, input.keyLog ?? EMPTY, input.policy];
  const opened = cache.memo(backend, 'room+policy', parts, () => openPolicy(input, backend));
  if ('outcome' in opened) return opened;
  const { ctx, policy, policyDigest } = opened;

  // §9.1 step 3: the decision, at `decision` (C9 order: reading and rules; room; policy digest;
  // count; signature; signer).
  const readD = readDecision(input.decision);
  if (!readD.ok) return refusedBy(readD.refusal, 'decision');
  const decision: Decision = readD.value;
  if (!bytesEqual(decision.room, ctx.roomId)) return refused('wrong_room', 'decision');
  if (!bytesEqual(decision.policy, policyDigest)) return refused('record_missing', 'decision');
  const m = policy.pathways.length;
  if (decision.pathways.length !== m) return refused('decision_invalid', 'decision');
  if ((decision.report.present & PRESENT.pathway) !== 0 && decision.report.pathway >= m) {
    return refused('decision_invalid', 'decision');
  }
  const badDecisionSig = verifyDecisionSignature(decision, backend);
  if (badDecisionSig !== undefined) return refusedBy(badDecisionSig, 'decision');
  // §3.5, C6: the signer's entry holds `energy/<label>` for each class stated with a figure.
  const classes = new Set<number>();
  for (const pw of decision.pathways) if (pw.status === STATUS.figure) classes.add(pw.class);
  const decisionSigner = checkSigner(ctx, decision.signer, classes);
  if (decisionSigner !== undefined) return refusedBy(decisionSigner, 'decision');

  // §9.1 step 4: each record named, in order, at `evidence` (C9: record by record, 4.1 to 4.6).
  const given = new Map<string, Uint8Array>();
  for (const blob of input.records) {
    if (!(blob instanceof Uint8Array)) throw new TypeError('verifyDecision: records must be bytes');
    const digest = cache.facts(blob, backend).digest;
    // C9: when several given records answer to one digest, the first given is used.
    if (digest !== undefined && !given.has(digest)) given.set(digest, blob);
  }
  const window = windowAt(policy, decision.t);
  const named: HopRecord[][] = [];
  for (let i = 0; i < m; i++) {
    const hops = policy.pathways[i]!.hops;
    const hopIndex = new Map<string, number>();
    hops.forEach((hop, h) => {
      hopIndex.set(toHex(hop.key), h);
    });
    const records: HopRecord[] = [];
    let prevHop = -1;
    let prevStart = 0n;
    const evidence = decision.pathways[i]!.evidence;
    for (let j = 0; j < evidence.length; j++) {
      const at = (reason: Refusal | Parameters<typeof refused>[0]): Outcome =>
        reason instanceof Refusal
          ? refusedBy(reason, 'evidence', i, j)
          : refused(reason, 'evidence', i, j);
      // 4.1: a record whose digest is the one named is given.
      const blob = given.get(toHex(evidence[j]!));
      if (blob === undefined) return at('record_missing');
      // 4.2: it reads, its room is the room id and its signature verifies.
      const facts = cache.facts(blob, backend);
      if (!facts.read.ok) return at(facts.read.refusal);
      const record = facts.read.value;
      const bad = cache.verify(facts, record, ctx.roomId, backend);
      if (bad !== null) return at(bad);
      // 4.3: its hop may sign it.
      const unauthorised = checkHopAuthorised(ctx, record);
      if (unauthorised !== undefined) return at(unauthorised);
      // 4.4: its hop is a hop of the pathway it is named under.
      const h = hopIndex.get(toHex(record.hop));
      if (h === undefined) return at('evidence_not_on_pathway');
      // 4.5: it is in the window of the decision's t.
      if (!inWindow(record, window)) return at('evidence_outside_window');
      // 4.6: it follows the record before it: a later hop, or the same hop and a later start.
      if (j > 0 && !(h > prevHop || (h === prevHop && record.start > prevStart))) {
        return at('decision_invalid');
      }
      prevHop = h;
      prevStart = record.start;
      records.push(record);
    }
    named.push(records);
  }

  // §9.1 step 5: the evidence, at `pathway`.
  for (let i = 0; i < m; i++) {
    const stated = decision.pathways[i]!;
    const records = named[i]!;
    if (stated.status === STATUS.figure) {
      // §5.4, C9: tested on the named records themselves, before comparing.
      if (records.some((r) => r.class === 0)) return refused('unmetered_as_zero', 'pathway', i);
      if (new Set(records.map((r) => r.class)).size > 1) {
        return refused('classes_summed', 'pathway', i);
      }
    }
    const figure = evaluatePathway(policy, i, records, window);
    if (
      figure.status !== stated.status ||
      figure.class !== stated.class ||
      figure.joules !== stated.joules ||
      figure.delivery !== stated.delivery
    ) {
      return refused('evidence_mismatch', 'pathway', i);
    }
  }

  // §9.1 step 6: the output, at `output`, recomputed from the policy, the evidence, the report,
  // the session and the loads the decision states.
  const draw = drawOf(policyDigest, decision.session, backend);
  const rule = applyRule({
    policy,
    figures: decision.pathways,
    report: reportOf(decision.report),
    draw,
    loads: decision.pathways.map((pw) => pw.load),
  });
  const same =
    draw === decision.draw &&
    decision.pathways.every((pw, i) => pw.limits === rule.limits[i]) &&
    rule.priority.length === decision.priority.length &&
    rule.priority.every((p, i) => p === decision.priority[i]) &&
    rule.ttl === decision.ttl &&
    rule.reason === decision.reason;
  if (!same) {
    // §9.1 step 6: `unknown_preferred` when the stated first has no figure and the recomputed
    // first has one (C9: for any output difference); `decision_mismatch` otherwise.
    const statedFirst = decision.pathways[decision.priority[0]!]!;
    const ruleFirst = decision.pathways[rule.priority[0]!]!;
    const unknownPreferred =
      statedFirst.status !== STATUS.figure && ruleFirst.status === STATUS.figure;
    return refused(unknownPreferred ? 'unknown_preferred' : 'decision_mismatch', 'output');
  }

  // §9.1 step 7: the manifest, at `manifest`, when one is given.
  const digest = digestOf(decision, backend);
  const manifest = writeManifest(policy, decision, digest);
  if (input.manifest !== undefined && input.manifest !== null) {
    const given =
      typeof input.manifest === 'string' ? ENCODER.encode(input.manifest) : input.manifest;
    if (!bytesEqual(given, ENCODER.encode(manifest)))
      return refused('manifest_mismatch', 'manifest');
  }

  // §9.3: accepted.
  const accepted: Accepted = {
    outcome: 'accept',
    digest: toHex(digest),
    priority: decision.priority.map((p) => policy.pathways[p]!.id),
    ttl: decision.ttl,
    reason: REASON_NAME[decision.reason]!,
    pathways: decision.pathways.map((pw, i) => ({
      id: policy.pathways[i]!.id,
      status: STATUS_NAME[pw.status]!,
      class: pw.class,
      joules: pw.joules.toString(),
      delivery: pw.delivery.toString(),
      limits: {
        latency: (pw.limits & LIMIT.latency) !== 0,
        quality: (pw.limits & LIMIT.quality) !== 0,
        capacity: (pw.limits & LIMIT.capacity) !== 0,
      },
    })),
    manifest,
    uri: decisionUri(policy, digest),
  };
  return accepted;
}
