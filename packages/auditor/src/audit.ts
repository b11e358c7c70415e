/**
 * The audit of a server's decision log (§9.2, §12): streamed over its decisions in ascending `t`,
 * in memory bounded by the sessions and the records, not the decisions.
 *
 * 1. Every decision verifies (§9.1 with companion C6 and C8), each record's signature once.
 * 2. The loads replay (`LoadReplay`, `@wai-steering/verifier`): each decision's stated load for each pathway is the replayed
 *    count just before it, within the tolerance.
 * 3. The bands' shares (`shares.ts`): the sessions in each band against the binomial expectation.
 * 4. The policies (`policies.ts`): each, its span, and what changed from the one before.
 * 5. The hops' consistency (`hops.ts`): a report, not a finding.
 * 6. A decision's frame given twice: a finding, its copy audited once.
 */
import { LoadReplay } from '@wai-steering/verifier';
import {
  bytesEqual,
  type CryptoBackend,
  getBackend,
  type Policy,
  REASON_NAME,
  type Reason,
  readDecision,
  toHex,
} from '@wai-steering/wire';
import { ArchiveError } from './archive.js';
import { FrameCopies } from './copies.js';
import { type EnergyMembers, energyJsonMembers } from './energy.js';
import { HopReport, type HopSpanResult } from './hops.js';
import type { ArchiveLog, LogResult } from './log.js';
import { PolicyLog, type PolicyResult } from './policies.js';
import { type Series, SeriesBuilder } from './series.js';
import { type ShareResult, ShareTally } from './shares.js';
import {
  DecisionVerifier,
  factsOf,
  fallbackBody,
  frameDigest,
  type Verdict,
  type Where,
} from './verdict.js';

/** The tolerance of the load check by default, in sessions. */
export const DEFAULT_LOAD_TOLERANCE = 2;

/** A refused decision. */
export interface RefusedResult {
  readonly digest: string;
  readonly reason: Reason;
  readonly where: Where;
  /** Its `t` (µs, decimal), when it reads. */
  readonly t: string | null;
}

/** A stated load that the replay does not give. */
export interface InconsistentLoad {
  readonly digest: string;
  readonly pathway: string;
  readonly stated: number;
  readonly replayed: number;
  readonly t: string;
}

/**
 * A decision's frame given again: the same bytes as an earlier frame of the archive, which an
 * audit counts once.
 */
export interface DuplicatedDecision {
  readonly digest: string;
  /** Its `t` (µs, decimal). */
  readonly t: string;
  /** The copy's index in `decisions.bin`, from 0. */
  readonly frame: number;
  /** The index of the first frame of the same bytes. */
  readonly first: number;
}

/** The audit's result: the JSON `--json` prints (`docs/audit.md`). */
export interface AuditResult extends EnergyMembers {
  readonly decisions: number;
  readonly sessions: number;
  readonly accepted: number;
  readonly refused: readonly RefusedResult[];
  readonly loads: {
    readonly checked: number;
    readonly tolerance: number;
    readonly grace_s: number;
    readonly inconsistent: readonly InconsistentLoad[];
  };
  readonly shares: readonly ShareResult[];
  readonly policies: readonly PolicyResult[];
  readonly findings: number;
  readonly room: string;
  readonly records: number;
  readonly hops: readonly HopSpanResult[];
  /**
   * The decision log's check: `null` when the archive carries no checkpoint (docs/audit.md,
   * *The log*).
   */
  readonly log: LogResult | null;
  /** Decision frames given again (a finding each). */
  readonly duplicated: readonly DuplicatedDecision[];
}

/** What an audit reads besides the decisions. */
export interface AuditMaterials {
  readonly room: Uint8Array;
  readonly keyLog: Uint8Array | null;
  readonly policies: Iterable<Uint8Array>;
  readonly records: Iterable<Uint8Array>;
}

/** Options of {@link Audit}. */
export interface AuditOptions {
  /** The room the audit is pinned to: an archive of another room is an {@link ArchiveError}. */
  readonly roomId: Uint8Array;
  /** The server's session grace, whole seconds (`archive.json`'s `grace_s`). */
  readonly graceS: number;
  /** Sessions by which a stated load may differ from the replayed one (default 2). */
  readonly loadTolerance?: number;
  readonly backend?: CryptoBackend;
  /**
   * `local` (default): the audit verifies each decision itself; `external`: each decision's
   * verdict is given to {@link Audit.add} (verified elsewhere, by workers), and the records are
   * not held.
   */
  readonly verify?: 'local' | 'external';
  /** With `verify: 'local'`: `fast` (default) or `reference` (`verifyDecision` each time). */
  readonly mode?: 'fast' | 'reference';
  /**
   * Where every refused decision and inconsistent load goes as it is found, past the first
   * `held` of each: the result then holds only those first ones (what the HTML report shows),
   * and memory does not grow with the findings. Without it, all are held.
   */
  readonly sink?: AuditSink;
  /** With `sink`: the refusals and inconsistent loads the result holds (default 500). */
  readonly held?: number;
  /**
   * The archive's decision log, its entries given and checked ({@link ArchiveLog.end}): each
   * decision that reads is matched against it, and the result's `log` says what was withheld
   * and unlogged.
   */
  readonly log?: ArchiveLog;
}

/** Takes the refusals, inconsistent loads and duplicated frames an {@link Audit} does not hold. */
export interface AuditSink {
  refused(r: RefusedResult): void;
  inconsistent(l: InconsistentLoad): void;
  /** Without it, every duplicated frame is held. */
  duplicated?(d: DuplicatedDecision): void;
}

/** The refusals and inconsistent loads the result holds by default with a sink. */
export const DEFAULT_HELD = 500;

/** The policy of the decisions being added, and the IDs of its pathways for the replay. */
interface PolicyInUse {
  readonly digest: Uint8Array;
  readonly hex: string;
  readonly policy: Policy | undefined;
  /** The pathway IDs of a decision of `m` pathways under it, by `m`. */
  readonly ids: Map<number, readonly string[]>;
}

/**
 * The IDs of a decision's `m` pathways under `policy`: the policy's own; a pathway the archive
 * cannot name (the policy is not in the archive, or the decision states more pathways than it
 * has) is `#<index>`, which no pathway ID spells (§3.3), so that it is never taken for one.
 */
function idsOf(u: PolicyInUse, m: number): readonly string[] {
  let ids = u.ids.get(m);
  if (ids === undefined) {
    ids = Array.from({ length: m }, (_, i) => u.policy?.pathways[i]?.id ?? `#${i}`);
    u.ids.set(m, ids);
  }
  return ids;
}

function sessionKey(session: Uint8Array): string {
  return String.fromCharCode.apply(null, session as unknown as number[]);
}

/** An audit under way: give it every decision in ascending `t`, then {@link Audit.finish}. */
export class Audit {
  private readonly backend: CryptoBackend;
  private readonly verifier: DecisionVerifier | undefined;
  private readonly policyLog: PolicyLog;
  private readonly hopReport: HopReport;
  private readonly replay: LoadReplay;
  private readonly shares = new ShareTally();
  private readonly series = new SeriesBuilder();
  private readonly refused: RefusedResult[] = [];
  private readonly inconsistent: InconsistentLoad[] = [];
  private refusedCount = 0;
  private inconsistentCount = 0;
  private readonly held: number;
  /** The distinct sessions (for the shares): their 16 bytes as a string each. */
  private readonly seen = new Set<string>();
  private readonly tolerance: number;
  private readonly roomHex: string;
  private readonly recordCount: number;
  private count = 0;
  private accepted = 0;
  private checked = 0;
  private lastT = -1n;
  private lastPolicy: PolicyInUse | undefined;
  private readonly copies = new FrameCopies();
  private readonly duplicated: DuplicatedDecision[] = [];
  private duplicatedCount = 0;

  constructor(
    materials: AuditMaterials,
    private readonly options: AuditOptions,
  ) {
    this.backend = options.backend ?? getBackend();
    this.tolerance = options.loadTolerance ?? DEFAULT_LOAD_TOLERANCE;
    this.held =
      options.sink === undefined ? Number.POSITIVE_INFINITY : (options.held ?? DEFAULT_HELD);
    if (!Number.isInteger(this.tolerance) || this.tolerance < 0) {
      throw new TypeError('Audit: loadTolerance must be a whole number of sessions');
    }
    const policies = [...materials.policies];
    this.policyLog = new PolicyLog(policies, this.backend);
    this.hopReport = new HopReport(this.policyLog.all());
    this.replay = new LoadReplay(options.graceS);
    const local = (options.verify ?? 'local') === 'local';
    const held: Uint8Array[] = [];
    let n = 0;
    for (const r of materials.records) {
      this.hopReport.add(r);
      n++;
      if (local) held.push(r);
    }
    this.recordCount = n;
    this.roomHex = toHex(options.roomId);
    // The room is opened and pinned here in both modes: another room is an error, never an audit.
    const verifier = new DecisionVerifier({
      room: materials.room,
      keyLog: materials.keyLog,
      roomId: options.roomId,
      policies,
      records: held,
      backend: this.backend,
      ...(options.mode === undefined ? {} : { mode: options.mode }),
    });
    this.verifier = local ? verifier : undefined;
  }

  /** Decisions given so far. */
  get decisions(): number {
    return this.count;
  }

  /**
   * One decision, in ascending `t`; `verdict` is required with `verify: 'external'` and ignored
   * otherwise. An {@link ArchiveError} when a decision's `t` is below the one before it. Gives
   * the decision's verdict (a frame that does not read is refused with C1's reason).
   */
  add(bytes: Uint8Array, verdict?: Verdict): Verdict {
    let v: Verdict;
    if (this.verifier !== undefined) v = this.verifier.verify(bytes);
    else if (verdict !== undefined) v = verdict;
    else throw new TypeError('Audit.add: a verdict is required with verify: external');
    const frame = this.count++;
    let d = v.facts;
    if (d === undefined && this.verifier === undefined) {
      // A verdict given without facts (verified elsewhere): the facts are read here. (This
      // audit's own verifier gives them whenever the decision reads.)
      const read = readDecision(bytes);
      if (read.ok) d = factsOf(read.value);
    }
    let digest: Uint8Array | undefined;
    if (d !== undefined) {
      if (d.t < this.lastT) {
        throw new ArchiveError(
          `decisions.bin is not in ascending t: decision ${this.count} (${frameDigest(bytes, this.backend)}) is at ${d.t}, before ${this.lastT}`,
        );
      }
      this.lastT = d.t;
      digest = this.backend.sha256(fallbackBody(bytes));
      const first = this.copies.firstOf(digest, bytes, frame, d.t);
      if (first !== undefined) {
        this.duplicate({ digest: toHex(digest), t: d.t.toString(), frame, first });
        return v;
      }
    }
    if (v.accepted) this.accepted++;
    else {
      const r: RefusedResult = {
        digest: frameDigest(bytes, this.backend),
        reason: v.reason,
        where: v.where,
        t: d === undefined ? null : d.t.toString(),
      };
      if (this.refusedCount++ < this.held) this.refused.push(r);
      else this.options.sink!.refused(r);
    }
    if (d === undefined || digest === undefined) return v;
    this.options.log?.see(digest, d.t);

    let lp = this.lastPolicy;
    if (lp === undefined || !bytesEqual(lp.digest, d.policy)) {
      const hex = toHex(d.policy);
      lp = { digest: d.policy.slice(), hex, policy: this.policyLog.get(hex), ids: new Map() };
      this.lastPolicy = lp;
    }
    const policyHex = lp.hex;
    const policy = lp.policy;
    this.policyLog.use(policyHex, d.t);
    const m = d.loads.length;
    const key = sessionKey(d.session);
    if (!this.seen.has(key)) {
      this.seen.add(key);
      if (policy !== undefined) this.shares.add(policy, d.policy, d.session, this.backend);
    }

    // §9.2: the loads, replayed just before the decision is placed.
    const ids = idsOf(lp, m);
    this.replay.follow(policyHex, ids);
    this.replay.advance(d.t);
    const replayed = this.replay.loads();
    for (let i = 0; i < m; i++) {
      const id = ids[i]!;
      const stated = d.loads[i]!;
      const r = replayed[i]!;
      if (v.accepted && Math.abs(stated - r) > this.tolerance) {
        const l: InconsistentLoad = {
          digest: frameDigest(bytes, this.backend),
          pathway: id,
          stated,
          replayed: r,
          t: d.t.toString(),
        };
        if (this.inconsistentCount++ < this.held) this.inconsistent.push(l);
        else this.options.sink!.inconsistent(l);
      }
    }
    if (v.accepted) this.checked++;
    this.series.add(
      d.t,
      v.accepted ? (REASON_NAME[d.reason] ?? 'none') : 'refused',
      ids,
      d.loads,
      replayed,
    );
    // A decision of no pathway (it does not verify) places nothing.
    if (m > 0) this.replay.place(key, d.first, d.t, d.ttl);
    return v;
  }

  /** A frame given again: a finding, held or given to the sink. */
  private duplicate(d: DuplicatedDecision): void {
    const sink = this.options.sink;
    if (this.duplicatedCount++ < this.held || sink?.duplicated === undefined) {
      this.duplicated.push(d);
    } else sink.duplicated(d);
  }

  /**
   * The result, and the series the HTML report plots; with a sink, the result's refusals,
   * inconsistent loads and duplicated frames are the first of each, and `refused`,
   * `inconsistent` and `duplicated` count them all.
   */
  finish(): {
    result: AuditResult;
    series: Series;
    refused: number;
    inconsistent: number;
    duplicated: number;
  } {
    const shares = this.shares.results();
    const flagged = shares.filter((s) => s.flagged).length;
    const log = this.options.log?.result() ?? null;
    const logFindings = log === null ? 0 : log.withheld.length + log.unlogged.length;
    const result: AuditResult = {
      decisions: this.count,
      sessions: this.seen.size,
      accepted: this.accepted,
      refused: this.refused,
      loads: {
        checked: this.checked,
        tolerance: this.tolerance,
        grace_s: this.options.graceS,
        inconsistent: this.inconsistent,
      },
      shares,
      policies: this.policyLog.results(),
      findings:
        this.refusedCount + this.inconsistentCount + flagged + logFindings + this.duplicatedCount,
      room: this.roomHex,
      records: this.recordCount,
      hops: this.hopReport.results(),
      log,
      duplicated: this.duplicated,
    };
    return {
      result,
      series: this.series.result(),
      refused: this.refusedCount,
      inconsistent: this.inconsistentCount,
      duplicated: this.duplicatedCount,
    };
  }
}

/** The audit of decisions given at once (tests, small archives). */
export function auditDecisions(
  materials: AuditMaterials,
  decisions: Iterable<Uint8Array>,
  options: AuditOptions,
): { result: AuditResult; series: Series } {
  const audit = new Audit(materials, options);
  for (const d of decisions) audit.add(d);
  return audit.finish();
}

/**
 * The result as `--json` prints it in four parts around its three lists that grow with the log:
 * `head`, the refusals (each {@link findingJson}, separated by commas), `middle`, the inconsistent
 * loads (the same), `late`, the duplicated frames (the same), `tail`. One line, its keys in the
 * documented order.
 */
export function auditJsonParts(result: AuditResult): {
  head: string;
  middle: string;
  late: string;
  tail: string;
} {
  const r = result;
  const l = r.loads;
  return {
    head: `{"decisions":${r.decisions},"sessions":${r.sessions},"accepted":${r.accepted},"refused":[`,
    middle: `],"loads":{"checked":${l.checked},"tolerance":${l.tolerance},"grace_s":${l.grace_s},"inconsistent":[`,
    late:
      `]},"shares":${JSON.stringify(r.shares)},"policies":${JSON.stringify(r.policies)},` +
      `"findings":${r.findings},"room":${JSON.stringify(r.room)},"records":${r.records},` +
      `"hops":${JSON.stringify(r.hops)},"log":${JSON.stringify(r.log ?? null)},"duplicated":[`,
    tail: `]${energyJsonMembers(r)}}`,
  };
}

/** One refusal, inconsistent load or duplicated frame as the `--json` result writes it. */
export function findingJson(f: RefusedResult | InconsistentLoad | DuplicatedDecision): string {
  return JSON.stringify(f);
}

/** The result as `--json` prints it: one line, its keys in the documented order. */
export function auditJson(result: AuditResult): string {
  const p = auditJsonParts(result);
  return (
    p.head +
    result.refused.map(findingJson).join(',') +
    p.middle +
    result.loads.inconsistent.map(findingJson).join(',') +
    p.late +
    result.duplicated.map(findingJson).join(',') +
    p.tail
  );
}
