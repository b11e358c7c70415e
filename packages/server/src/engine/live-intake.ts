/**
 * Live capacity intake (`docs/live-policy.md`): the sites' capacity reports (`POST /capacity`,
 * `live/report.ts`) verified, held (`live/capacity.ts`), shared with the other instances through
 * the store, and, when the live values call for it, a new policy signed with the steering key and
 * put in force (`policy-in-force.ts`), at most once a period for the whole deployment.
 */
import type { RoomContext } from '@wai-steering/verifier';
import { signPolicy } from '@wai-steering/wire';
import { describeError, type FaultSink } from '../health.js';
import { LiveCapacity, type LiveValue, type LoadAt } from '../live/capacity.js';
import { type CapacityReport, verifyCapacityReport } from '../live/report.js';
import type { Metrics } from '../metrics.js';
import type { LiveStore, PolicyStore } from '../store/store.js';
import type { SigningKey } from './in-force.js';
import { LOAD_HISTORY_SECONDS } from './load-history.js';
import { type CheckedPolicy, checkPolicy } from './policy.js';
import { PolicyInForce, type PolicyInForceOptions } from './policy-in-force.js';
import type { CapacityResult, EngineLiveOptions, PolicyRotated } from './types.js';

/** What {@link LiveIntake} works with. */
export interface LiveIntakeOptions {
  readonly live: LiveCapacity;
  readonly policy: PolicyInForce;
  readonly store: LiveStore;
  readonly key: SigningKey;
  readonly room: () => RoomContext;
  readonly metrics: Metrics;
  readonly now: () => bigint;
  /** How far ahead of the room clock a report's `t` may be (µs). */
  readonly maxAheadUs: bigint;
  /** How far after its `t` a report's `expires` may be (µs, `live.max_expiry`). */
  readonly maxExpiryUs: bigint;
  /** Where store failures are told, once per state change (`health.ts`). */
  readonly health: FaultSink;
  /** Tells the other instances that a report was kept (a store that notifies needs none). */
  readonly announce: () => void;
  readonly closing: () => boolean;
}

export class LiveIntake {
  /** The `t` of the latest report of each pathway and hop read from the store or shared to it. */
  private readonly seen = new Map<string, bigint>();

  constructor(private readonly o: LiveIntakeOptions) {}

  /** Each pathway's live capacity and latency now, and where they come from. */
  values(): LiveValue[] {
    return this.o.live.values(this.o.now());
  }

  /**
   * A site's capacity report: verified, kept for the other instances (a report the store does
   * not keep is not taken: `store_unavailable`, and the site sends it again), held, and when the
   * live values call for it (and no policy was signed in this period), a new policy put in force.
   */
  async offer(jws: string): Promise<CapacityResult> {
    const { live, metrics } = this.o;
    const verified = await this.verify(jws, false);
    if (!verified.ok) {
      metrics.capacityReports.inc({ result: verified.refusal.reason });
      return { kind: 'report_refused', ...verified.refusal };
    }
    const report = verified.report;
    const judged = live.judge(report, this.o.now());
    if (judged.offered === 'unknown_load') {
      metrics.capacityReports.inc({ result: 'outside_horizon' });
      return {
        kind: 'report_refused',
        reason: 'outside_horizon',
        message: `the report's t is before the loads this server can state (it keeps the last ${LOAD_HISTORY_SECONDS} s, since it started): the load its GAS is headroom over is not known`,
      };
    }
    if (judged.offered === 'older') {
      metrics.capacityReports.inc({ result: 'older' });
      return { kind: 'report', taken: false, report };
    }
    if (!(await this.share(report, jws.trim()))) {
      metrics.capacityReports.inc({ result: 'store_unavailable' });
      return {
        kind: 'store_unavailable',
        cause: 'commit',
        why: 'the report could not be kept for the other instances',
      };
    }
    const offered = live.offer(report, this.o.now());
    metrics.capacityReports.inc({ result: offered });
    let rotated: PolicyRotated | undefined;
    if (offered === 'taken') {
      try {
        rotated = await this.tick();
      } catch (e) {
        // The report is taken all the same; the policy it calls for is signed at a later tick.
        metrics.storeErrors.inc({ op: 'capacity' });
        this.o.health.fail(
          'store_queries',
          `live policies are not put in force: ${describeError(e)}`,
        );
      }
    }
    return {
      kind: 'report',
      taken: offered === 'taken',
      report,
      ...(rotated === undefined ? {} : { rotated }),
    };
  }

  private verify(jws: string, held: boolean) {
    return verifyCapacityReport(jws, {
      room: this.o.room(),
      policy: this.o.policy.current.policy,
      now: this.o.now(),
      maxAheadUs: this.o.maxAheadUs,
      maxExpiryUs: this.o.maxExpiryUs,
      held,
    });
  }

  /** Keeps a report for the other instances: whether the store kept it (or keeps none). */
  private async share(report: CapacityReport, jws: string): Promise<boolean> {
    const { store, key, metrics } = this.o;
    if (store.putCapacityReport === undefined) return true;
    const pathway = this.o.policy.current.ids[report.pathway]!;
    // Seen before it is written: a read of the store meanwhile does not take it as another's.
    const id = `${pathway} ${report.hop}`;
    const before = this.seen.get(id);
    this.seen.set(id, report.t);
    try {
      const row = { pathway, hop: report.hop, t: report.t, jws };
      if (await store.putCapacityReport(key.roomId, row)) this.o.announce();
    } catch (e) {
      if (before === undefined) this.seen.delete(id);
      else this.seen.set(id, before);
      metrics.storeErrors.inc({ op: 'capacity' });
      this.o.health.fail('store_queries', `capacity reports are not kept: ${describeError(e)}`);
      return false;
    }
    this.o.health.clear('store_queries');
    return true;
  }

  /**
   * The reports the store keeps that this instance has not taken (the other instances took
   * them): each verified again, as if posted here, except that one past its expiry is taken too
   * (it counts as GAS 0, CATS's age-out), and one whose load this instance cannot state is held
   * unused. Rejects when the store does not answer (the caller tells it).
   */
  async readReports(): Promise<void> {
    const { store, key } = this.o;
    if (store.capacityReports === undefined || this.o.closing()) return;
    for (const r of await store.capacityReports(key.roomId)) {
      const id = `${r.pathway} ${r.hop}`;
      const seen = this.seen.get(id);
      if (seen !== undefined && seen >= r.t) continue;
      this.seen.set(id, r.t);
      const verified = await this.verify(r.jws, true);
      if (verified.ok && this.o.live.offer(verified.report, this.o.now(), true) === 'taken') {
        this.o.metrics.capacityReports.inc({ result: 'shared' });
      }
    }
  }

  /**
   * Signs and puts in force the policy the live values call for now, if any (a report, or a
   * report's expiry passing: the server calls this on a timer so that a site that stops reporting
   * ages out). Another instance's rotation first is adopted instead (one policy a period for all).
   */
  tick(): Promise<PolicyRotated | undefined> {
    const { policy, key } = this.o;
    return policy.serially(async () => {
      // An operator's rotation waiting for its instant: the live values apply to it once it is.
      if (this.o.closing() || policy.pending !== undefined) return undefined;
      const next = this.o.live.next(policy.current.policy, this.o.now(), key.publicKey);
      if (next === undefined) return undefined;
      const bytes = signPolicy(next, key.secretKey, { backend: key.backend });
      const checked = checkPolicy(this.o.room(), bytes, key.backend);
      if (!checked.ok) throw new TypeError(`tickLive: the signed policy ${checked.problem}`);
      return policy.tryRotate(checked.value, 'live');
    });
  }
}

/**
 * The policy in force and, when the configuration takes live capacity, its intake, over one set
 * of shared options (`announce` tells the other instances what was kept: a policy or a report).
 */
export function openPolicies(
  shared: Omit<PolicyInForceOptions, 'live' | 'announce' | 'store'> & {
    readonly store: PolicyStore & LiveStore;
    readonly announce: (what: 'policy' | 'capacity') => void;
    /** The load the server states at a second (`load-history.ts`). */
    readonly loadAt: LoadAt;
    readonly health: FaultSink;
  },
  initial: CheckedPolicy,
  options: EngineLiveOptions | undefined,
): { policies: PolicyInForce; live: LiveIntake | undefined } {
  const live =
    options === undefined ? undefined : new LiveCapacity(initial.policy, options, shared.loadAt);
  const policies = new PolicyInForce(
    { ...shared, live, announce: () => shared.announce('policy') },
    initial,
  );
  if (live === undefined) return { policies, live: undefined };
  const intake = new LiveIntake({
    ...shared,
    live,
    policy: policies,
    maxAheadUs: options?.maxAheadUs ?? 5_000_000n,
    // Ten periods by default: soft state that one lost report does not age out, nor holds for good.
    maxExpiryUs: options?.maxExpiryUs ?? 10n * initial.policy.period_us,
    announce: () => shared.announce('capacity'),
  });
  return { policies, live: intake };
}
