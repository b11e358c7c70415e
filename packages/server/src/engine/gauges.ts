/** The engine's gauges, read at scrape time (`metrics.ts`, `docs/server.md`, *Metrics*). */
import type { Metrics } from '../metrics.js';
import type { SteeringEngine } from './engine.js';

type Row = readonly [Readonly<Record<string, string>>, number];

export function registerGauges(m: Metrics, engine: SteeringEngine): void {
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
