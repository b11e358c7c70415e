/** The shape of the server's `GET /status` and `GET /status/history` (docs/console.md). */

export interface HopProblem {
  readonly kind: 'missing' | 'late' | 'overlapping' | 'not_tiling' | string;
  readonly start: string;
  readonly end: string;
  readonly detail?: string;
}

export interface HopStatus {
  readonly index: number;
  readonly key: string;
  readonly place: string;
  readonly last: { start: string; end: string; class: number; digest: string } | null;
  readonly age_us: string | null;
  readonly late: boolean;
  readonly ingest: {
    accepted: number;
    duplicate: number;
    late: number;
    refused: Record<string, number>;
  };
}

/**
 * A pathway's live capacity (docs/live-policy.md): where the capacity in force comes from
 * (`template`: the policy's own, no report yet or the pathway takes no live values; `reports`:
 * its edge hops' fresh reports; `expired`: every report past its expiry, capacity 0), the
 * capacity and latency, and the age of the newest report in seconds (`null`: none yet).
 */
export interface LiveStatus {
  readonly source: 'template' | 'reports' | 'expired';
  /** `null`: no capacity limit. */
  readonly capacity: number | null;
  readonly latency_ms: number;
  readonly report_age_s: number | null;
}

export interface PathwayStatus {
  readonly index: number;
  readonly id: string;
  readonly cloneOf: string | null;
  readonly host: string | null;
  readonly status: string;
  readonly statusCode: number;
  readonly stale: {
    hops: { index: number; key: string; place: string; problems: HopProblem[] }[];
    note: string | null;
  } | null;
  /** Why a pathway that is not stale has no figure (unmetered, mixed, empty); `null` otherwise. */
  readonly why: {
    text: string;
    hops: { index: number; key: string; place: string }[];
    records_joules_uj: string;
  } | null;
  readonly class: number | null;
  readonly classLabel: string | null;
  readonly joules_uj: string;
  readonly delivery: string;
  readonly deliveryUnit: string;
  readonly figure: { value: number; unit: string; text: string } | null;
  readonly rank: number;
  readonly order: number;
  readonly limits: {
    latency: { ok: boolean; latency_ms: number; ceiling_ms: number };
    quality: { ok: boolean; top_tier: number; floor: number };
    capacity: { ok: boolean; load: number; capacity: number | null };
  };
  readonly load: number;
  readonly capacity: number | null;
  /** `null` when live capacity is off. */
  readonly live: LiveStatus | null;
  readonly min_share_ppm: number;
  readonly band: [number, number];
  readonly firstShare: { seconds: number; placed: number; of: number; ppm: number | null };
  readonly records: number;
  readonly hops: HopStatus[];
}

export interface RecentDecision {
  readonly digest: string;
  readonly t: string;
  readonly session: string;
  readonly first: string | null;
  readonly reason: string;
  readonly uri: string;
}

export interface Status {
  readonly version: number;
  readonly t: string;
  readonly room: {
    id: string;
    name: string;
    authority: string;
    origin: string | null;
    keyLogEntries: number | null;
  };
  readonly policy: {
    digest: string;
    signer: string;
    period_us: string;
    window_us: string;
    lag_us: string;
    basis: number;
    floor: number;
    tiers: string[];
    latency_ceiling_ms: number;
    min_buffer_ms: number;
    hysteresis_ppm: number;
    ttl_s: number;
    min_ttl_s: number;
    server_uri: string;
    decision_uri: string;
  };
  readonly window: { a: string; b: string };
  readonly order: string[];
  readonly sessions: number;
  readonly evidenceRecords: number;
  readonly pathways: PathwayStatus[];
  readonly ingest: { unattributed: Record<string, number> };
  readonly decisions: {
    total: number;
    byReason: Record<string, number>;
    recent: RecentDecision[];
  };
}

export interface History {
  readonly step_s: number;
  readonly pathways: string[];
  readonly t: number[];
  readonly decisions: Record<string, number[]>;
  readonly first: number[][];
  readonly loads: number[][];
}
