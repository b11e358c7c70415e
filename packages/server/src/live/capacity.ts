/**
 * Live policy: the policy's `capacity` and `latency_ms` (§3.2), which §6.1's limits read, kept in
 * step with what the sites report (`report.ts`), as the CATS draft's path selector keeps its
 * service table:
 *
 * - a site's GAS (Global Available Slots) is what it can still take: its slots less the sessions
 *   it serves at the report's `t`. Those sessions are in the server's load already (the load
 *   counts every session steered to the pathway), so a pathway's **live capacity** is the load
 *   the server states for it at the report's `t` plus the sum of its edge hops' fresh GAS, clamped
 *   to the template's `capacity`. The load is the one a decision at the start of the report's
 *   second states (`engine/load-history.ts`; `docs/live-policy.md`, *Which load*), at the `t`
 *   of the pathway's newest fresh report. A report past its expiry counts as GAS 0 (CATS's
 *   age-out: an expired entry is unreachable), and a pathway whose every report expired has a
 *   capacity of 0; a pathway none of whose hops ever reported keeps the template's values;
 * - its **live latency** is, over its edge hops' fresh reports that state both, the largest
 *   computing time plus network delay (CATS's total service time), since a client may be served
 *   by any of its edge hops; the template's `latency_ms` when no fresh report states both.
 *
 * A report dated ahead of the room clock's second takes effect when that second comes (the load
 * then is not known before): until then the hop's previous report stands. A report whose load
 * the server cannot state (one another instance took before this one started) is held but not
 * used: a pathway with no other report keeps the values in force (`unknown`).
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

/**
 * Where a pathway's live values come from: the template (no report), the reports, every report
 * expired (capacity 0), or reports whose load the server cannot state (the values in force kept).
 */
export type LiveSource = 'template' | 'reports' | 'expired' | 'unknown';

/**
 * The load the server states for a pathway (by ID) at the start of a second of the room clock
 * (`engine/load-history.ts`), `undefined` when it cannot state it (before it started, or longer
 * ago than it keeps).
 */
export type LoadAt = (second: bigint, pathway: string) => number | undefined;

/** A report held for a hop: the one in effect, and one dated ahead that takes effect later. */
interface Held {
  report: CapacityReport;
  /** The pathway's load at the start of the report's second; `null`: the server cannot state it. */
  load: number | null;
  /** A newer report whose second has not come yet. */
  ahead?: CapacityReport;
}

const SECOND = 1_000_000n;

/** A pathway's live values at an instant. */
export interface LiveValue {
  readonly capacity: number;
  readonly latency_ms: number;
  readonly source: LiveSource;
  /** The age of its newest report (µs), `null` when none was received. */
  readonly ageUs: bigint | null;
  /** Its edge hops' reports held, fresh or not. */
  readonly reports: number;
  /** The load the capacity adds the GAS to (at the newest fresh report's `t`), when it does. */
  readonly load: number | null;
}

/**
 * The outcome of offering a report: taken, no newer than the one held, or of a past second
 * whose load the server cannot state (`unknown_load`, not taken).
 */
export type Offered = 'taken' | 'older' | 'unknown_load';

export class LiveCapacity {
  /** The latest report of each hop (by key hex), per pathway index. */
  private held: Map<string, Held>[];
  private lastRotation: bigint | undefined;
  /** The IDs of the pathways that take live values. */
  private readonly live: ReadonlySet<string>;

  constructor(
    private template: PolicyFields,
    private readonly options: LiveOptions,
    private readonly loadAt: LoadAt,
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
    const byId = new Map<string, Map<string, Held>>();
    this.template.pathways.forEach((p, i) => {
      byId.set(p.id, this.held[i]!);
    });
    this.template = template;
    this.held = template.pathways.map((p, i) => {
      const old = byId.get(p.id);
      const kept = new Map<string, Held>();
      if (old === undefined) return kept;
      for (const [hop, h] of old) {
        if (p.hops.some((x) => x.place === 1 && toHex(x.key) === hop)) {
          kept.set(hop, {
            report: { ...h.report, pathway: i },
            load: h.load,
            ...(h.ahead === undefined ? {} : { ahead: { ...h.ahead, pathway: i } }),
          });
        }
      }
      return kept;
    });
  }

  /**
   * Takes a verified report (`verifyCapacityReport`) at `now` (room clock µs): a report no newer
   * than the one held for its hop (a replay, or one overtaken on the way) is ignored; one dated
   * ahead of `now`'s second waits for its second; one of a second whose load the server cannot
   * state is not taken (`held`: unless another instance took it, which is then held unused).
   */
  offer(report: CapacityReport, now: bigint, held = false): Offered {
    const judged = this.judge(report, now, held);
    if (judged.offered !== 'taken') return judged.offered;
    const hops = this.held[report.pathway]!;
    const previous = hops.get(report.hop);
    if (judged.load === undefined) {
      // Dated ahead: it stands from its second on (`settle`); the previous report until then.
      if (previous !== undefined && previous.ahead !== previous.report) previous.ahead = report;
      else hops.set(report.hop, { report, load: null, ahead: report });
    } else {
      hops.set(report.hop, { report, load: judged.load });
    }
    return 'taken';
  }

  /**
   * What {@link LiveCapacity.offer} would do with a report, changing nothing: `taken` with the
   * pathway's load at its second (`undefined` while that second has not come; `null` when the
   * server cannot state it, for a report another instance took).
   */
  judge(
    report: CapacityReport,
    now: bigint,
    held = false,
  ): { readonly offered: Offered; readonly load?: number | null } {
    const hops = this.held[report.pathway];
    if (hops === undefined) throw new RangeError('offer: not a pathway of the template');
    const previous = hops.get(report.hop);
    const latest = previous?.ahead ?? previous?.report;
    if (latest !== undefined && report.t <= latest.t) return { offered: 'older' };
    if (report.t / SECOND > now / SECOND) return { offered: 'taken' };
    const load = this.loadOf(report);
    if (load === null && !held) return { offered: 'unknown_load' };
    return { offered: 'taken', load };
  }

  private loadOf(report: CapacityReport): number | null {
    const id = this.template.pathways[report.pathway]!.id;
    return this.loadAt(report.t / SECOND, id) ?? null;
  }

  /** Each pathway's live values at `now` (room clock µs). */
  values(now: bigint): LiveValue[] {
    return this.template.pathways.map((p, i) => this.valueOf(p, i, now));
  }

  /** Puts in effect the reports dated ahead whose second has come. */
  private settle(hops: Map<string, Held>, now: bigint): void {
    for (const h of hops.values()) {
      const a = h.ahead;
      if (a === undefined || a.t / SECOND > now / SECOND) continue;
      h.report = a;
      h.load = this.loadOf(a);
      delete h.ahead;
    }
  }

  private valueOf(p: PolicyPathway, i: number, now: bigint): LiveValue {
    const hops = this.held[i]!;
    this.settle(hops, now);
    const template: LiveValue = {
      capacity: p.capacity,
      latency_ms: p.latency_ms,
      source: 'template',
      ageUs: null,
      reports: hops.size,
      load: null,
    };
    if (!this.live.has(p.id) || hops.size === 0) return template;
    let gas = 0;
    let latency: number | undefined;
    let newest: bigint | undefined;
    let fresh = 0;
    let unknown = 0;
    // The load at the newest fresh report's t: what the sites' GAS is headroom over.
    let loadT: bigint | undefined;
    let load = 0;
    for (const h of hops.values()) {
      // A report dated ahead with none before it: nothing in effect yet.
      if (h.ahead === h.report) continue;
      const r = h.report;
      if (newest === undefined || r.t > newest) newest = r.t;
      // CATS: an entry past its expiry is unreachable, GAS 0.
      if (r.expires <= now) continue;
      if (h.load === null) {
        unknown++;
        continue;
      }
      fresh++;
      gas += r.gas;
      if (loadT === undefined || r.t > loadT) {
        loadT = r.t;
        load = h.load;
      }
      if (r.computingMs !== null && r.networkMs !== null) {
        const total = r.computingMs + r.networkMs;
        latency = latency === undefined ? total : Math.max(latency, total);
      }
    }
    const ageUs = newest === undefined ? null : now > newest ? now - newest : 0n;
    if (newest === undefined) return template;
    if (fresh === 0 && unknown > 0) return { ...template, source: 'unknown', ageUs };
    return {
      capacity: fresh === 0 ? 0 : Math.min(load + gas, p.capacity),
      latency_ms: Math.min(latency ?? p.latency_ms, 0xffff_ffff),
      source: fresh === 0 ? 'expired' : 'reports',
      ageUs,
      reports: hops.size,
      load: fresh === 0 ? null : load,
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
      const f = inForce.pathways[i]!;
      // Reports whose load cannot be stated: the values in force stand.
      if (values[i]!.source === 'unknown') values[i] = { ...values[i]!, ...pick(f) };
      const v = values[i]!;
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

const pick = (p: PolicyPathway) => ({ capacity: p.capacity, latency_ms: p.latency_ms });

/** Whether a capacity moved past the threshold (a share of the one in force) or crossed 0. */
function capacityMoved(inForce: number, live: number, thresholdPpm: number): boolean {
  if ((inForce === 0) !== (live === 0)) return true;
  // |live − inForce| / inForce > threshold, in integers: × 1 000 000 on both sides (below 2^53).
  return Math.abs(live - inForce) * 1_000_000 > thresholdPpm * inForce;
}
