/**
 * The engine's gauges, read at scrape time (`metrics.ts`, `docs/server.md`, *Metrics*), from a
 * read-only view of the engine ({@link GaugeView}, which `SteeringEngine` is) rather than the
 * engine itself, so that this module imports nothing of it.
 */
import type { Evidence } from '@wai-steering/evidence';
import type { PolicyPathway } from '@wai-steering/wire';
import type { LiveValue } from '../live/capacity.js';
import type { Metrics } from '../metrics.js';

/** What the gauges read of the engine, each at scrape time. */
export interface GaugeView {
  /** The policy in force. */
  readonly policy: { readonly pathways: readonly PolicyPathway[] };
  /** This instance's own loads now, in the policy's order (§6). */
  loadsNow(): Uint32Array;
  /** The session table. */
  readonly sessions: { readonly size: number };
  /** Decisions and records awaiting their group commit. */
  readonly pendingCommits: number;
  /** The evidence index. */
  readonly index: { readonly size: number };
  /** The evidence at an instant (§5). */
  evidenceAt(t: bigint): Evidence;
  /** The room clock, µs. */
  readonly now: () => bigint;
  /** Live capacity, when on. */
  readonly live: { values(): readonly LiveValue[] } | undefined;
}

type Row = readonly [Readonly<Record<string, string>>, number];

export function registerGauges(m: Metrics, engine: GaugeView): void {
  const s = {
    pathways: () => engine.policy.pathways,
    loads: () => engine.loadsNow(),
    sessions: () => engine.sessions.size,
    pending: () => engine.pendingCommits,
    records: () => engine.index.size,
    evidence: () => engine.evidenceAt(engine.now()),
    live: () => engine.live?.values(),
  };
  const perPathway = (value: (i: number) => number) => () =>
    s.pathways().map((p, i): Row => [{ pathway: p.id }, value(i)]);
  m.gauge(
    'wai_steering_load',
    'Sessions steered first to each pathway (§6), the loads decisions state.',
    () => {
      const loads = s.loads();
      return perPathway((i) => loads[i] ?? 0)();
    },
  );
  m.gauge('wai_steering_sessions', 'Live sessions held by the session table.', () => [
    [{}, s.sessions()],
  ]);
  m.gauge('wai_steering_commit_queue', 'Decisions and records awaiting their group commit.', () => [
    [{}, s.pending()],
  ]);
  m.gauge('wai_steering_evidence_records', 'Records held in the evidence index.', () => [
    [{}, s.records()],
  ]);
  m.gauge(
    'wai_steering_pathway_status',
    'Each pathway status (§5.3: 0 figure, 1 unmetered, 2 mixed, 3 stale, 4 empty) in the current window.',
    () => {
      const ev = s.evidence();
      return perPathway((i) => ev.pathways[i]!.status)();
    },
  );
  m.gauge(
    'wai_steering_live_capacity',
    'Each pathway capacity in the policy in force, and where it comes from (template, reports, expired).',
    () => {
      const values = s.live();
      return s
        .pathways()
        .map(
          (p, i): Row => [{ pathway: p.id, source: values?.[i]?.source ?? 'template' }, p.capacity],
        );
    },
  );
  m.gauge(
    'wai_steering_live_report_age_seconds',
    'The age of the newest capacity report of each pathway that has one.',
    () => {
      const ids = s.pathways();
      const out: Row[] = [];
      (s.live() ?? []).forEach((v, i) => {
        if (v.ageUs !== null) out.push([{ pathway: ids[i]!.id }, Number(v.ageUs) / 1e6]);
      });
      return out;
    },
  );
}
