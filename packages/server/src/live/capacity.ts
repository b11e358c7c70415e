/**
 * Live policy: the policy's `capacity` and `latency_ms` (§3.2), which §6.1's limits read, kept in
 * step with what the sites report (`report.ts`), as the CATS draft's path selector keeps its
 * service table:
 *
 * - a pathway's **live capacity** is the sum of the GAS of its edge hops' fresh reports, clamped
 *   to the template's `capacity`; a report past its expiry counts as GAS 0 (CATS's age-out: an
 *   expired entry is unreachable); a pathway none of whose hops ever reported keeps the
 *   template's values;
 * - its **live latency** is, over its edge hops' fresh reports that state both, the largest
 *   computing time plus network delay (CATS's total service time), since a client may be served
 *   by any of its edge hops; the template's `latency_ms` when no fresh report states both.
 *
 * The server signs a new `WSP1` when the live values differ from the policy in force by more than
 * the thresholds (or a capacity crosses 0, or a latency crosses the ceiling), and at most once per
 * period P of the room clock, so that one window sees one policy at a time.
 */
import { type Policy, type PolicyFields, type PolicyPathway, toHex } from '@wai-steering/wire';
import type { CapacityReport } from './report.js';

/** Options of {@link LiveCapacity}. */
export interface LiveOptions {
  /**
   * Indices (in the first template) of the pathways that take live values (the others keep the
   * template's); a later template keeps them by pathway ID.
   */
  readonly pathways: ReadonlySet<number>;
  /** A capacity differing from the one in force by more than this share (ppm) rotates. */
  readonly capacityThresholdPpm: number;
  /** A latency differing from the one in force by more than this (ms) rotates. */
  readonly latencyThresholdMs: number;
}

/** Where a pathway's live values come from. */
export type LiveSource = 'template' | 'reports' | 'expired';

/** A pathway's live values at an instant. */
export interface LiveValue {
  readonly capacity: number;
  readonly latency_ms: number;
  readonly source: LiveSource;
  /** The age of its newest report (µs), `null` when none was received. */
  readonly ageUs: bigint | null;
  /** Its edge hops' reports held, fresh or not. */
  readonly reports: number;
}

/** The outcome of offering a report. */
export type Offered = 'taken' | 'older';

export class LiveCapacity {
  /** The latest report of each hop (by key hex), per pathway index. */
  private held: Map<string, CapacityReport>[];
  private lastRotation: bigint | undefined;
  /** The IDs of the pathways that take live values. */
  private readonly live: ReadonlySet<string>;

  constructor(
    private template: PolicyFields,
    private readonly options: LiveOptions,
  ) {
    this.held = template.pathways.map(() => new Map());
    this.live = new Set(
      template.pathways.filter((_, i) => options.pathways.has(i)).map((p) => p.id),
    );
  }

  /** The template (the operator's policy) whose bounds the live values keep. */
  get templatePolicy(): PolicyFields {
    return this.template;
  }

  /**
   * A new template (the operator rotated the policy): reports are kept for the pathways whose ID
   * and edge hops remain, by ID.
   */
  setTemplate(template: PolicyFields): void {
    const byId = new Map<string, Map<string, CapacityReport>>();
    this.template.pathways.forEach((p, i) => {
      byId.set(p.id, this.held[i]!);
    });
    this.template = template;
    this.held = template.pathways.map((p, i) => {
      const old = byId.get(p.id);
      const kept = new Map<string, CapacityReport>();
      if (old === undefined) return kept;
      for (const [hop, r] of old) {
        if (p.hops.some((h) => h.place === 1 && toHex(h.key) === hop)) {
          kept.set(hop, { ...r, pathway: i });
        }
      }
      return kept;
    });
  }

  /**
   * Takes a verified report (`verifyCapacityReport`): a report no newer than the one held for its
   * hop (a replay, or one overtaken on the way) is ignored.
   */
  offer(report: CapacityReport): Offered {
    const held = this.held[report.pathway];
    if (held === undefined) throw new RangeError('offer: not a pathway of the template');
    const previous = held.get(report.hop);
    if (previous !== undefined && report.t <= previous.t) return 'older';
    held.set(report.hop, report);
    return 'taken';
  }

  /** Each pathway's live values at `now` (room clock µs). */
  values(now: bigint): LiveValue[] {
    return this.template.pathways.map((p, i) => this.valueOf(p, i, now));
  }

  private valueOf(p: PolicyPathway, i: number, now: bigint): LiveValue {
    const held = this.held[i]!;
    if (!this.live.has(p.id) || held.size === 0) {
      return {
        capacity: p.capacity,
        latency_ms: p.latency_ms,
        source: 'template',
        ageUs: null,
        reports: held.size,
      };
    }
    let gas = 0;
    let latency: number | undefined;
    let newest: bigint | undefined;
    let fresh = 0;
    for (const r of held.values()) {
      if (newest === undefined || r.t > newest) newest = r.t;
      // CATS: an entry past its expiry is unreachable, GAS 0.
      if (r.expires <= now) continue;
      fresh++;
      gas += r.gas;
      if (r.computingMs !== null && r.networkMs !== null) {
        const total = r.computingMs + r.networkMs;
        latency = latency === undefined ? total : Math.max(latency, total);
      }
    }
    return {
      capacity: Math.min(gas, p.capacity),
      latency_ms: Math.min(latency ?? p.latency_ms, 0xffff_ffff),
      source: fresh === 0 ? 'expired' : 'reports',
      ageUs: newest === undefined ? null : now > newest ? now - newest : 0n,
      reports: held.size,
    };
  }

  /**
   * The policy fields to sign at `now`, when the live values call for a new policy and none was
   * signed in this period; `undefined` otherwise. `inForce` is the policy decisions use now.
   * `signer` is the key that will sign it (the steering key, §3.5).
   */
  next(inForce: Policy | PolicyFields, now: bigint, signer: Uint8Array): PolicyFields | undefined {
    const period = this.template.period_us;
    if (this.lastRotation !== undefined && now / period <= this.lastRotation / period) {
      return undefined;
    }
    const values = this.values(now);
    if (values.length !== inForce.pathways.length) return undefined;
    const ceiling = inForce.latency_ceiling_ms;
    let changed = false;
    for (let i = 0; i < values.length; i++) {
      const v = values[i]!;
      const f = inForce.pathways[i]!;
      if (capacityMoved(f.capacity, v.capacity, this.options.capacityThresholdPpm)) changed = true;
      if (Math.abs(v.latency_ms - f.latency_ms) > this.options.latencyThresholdMs) changed = true;
      // The latency limit (§6.1) changes its answer: always worth a policy.
      if (v.latency_ms <= ceiling !== f.latency_ms <= ceiling) changed = true;
    }
    if (!changed) return undefined;
    this.lastRotation = now;
    return {
      ...this.template,
      signer,
      pathways: this.template.pathways.map((p, i) => ({
        ...p,
        capacity: values[i]!.capacity,
        latency_ms: values[i]!.latency_ms,
      })),
    };
  }

  /** Marks a rotation at `now` (one the operator made): the next live one waits a period. */
  rotated(now: bigint): void {
    this.lastRotation = now;
  }
}

/** Whether a capacity moved past the threshold (a share of the one in force) or crossed 0. */
function capacityMoved(inForce: number, live: number, thresholdPpm: number): boolean {
  if ((inForce === 0) !== (live === 0)) return true;
  // |live − inForce| / inForce > threshold, in integers: × 1 000 000 on both sides (below 2^53).
  return Math.abs(live - inForce) * 1_000_000 > thresholdPpm * inForce;
}
