/**
 * `GET /status`: a snapshot of what the server steers by, for the operator console
 * (docs/console.md documents every field). Per pathway: its §5.3 status and, when stale, why,
 * hop by hop; its class, J and D with units and the figure in readable units; its place in the
 * §6.2 order; the three §6.1 limits as they stand for a client on no pathway; load against
 * capacity; its §6.3 band; the share of sessions placed first on it lately. Per hop: the last
 * period held, its age against the lag L, and its ingest tallies. Then the recent decisions.
 *
 * Quantities of the spec stay exact: u64 and u128 values are decimal strings. The readable
 * figure (`figure.value`) is a display number, rounded, and is never an input to anything.
 */

import { type ReadableFigure, readableFigure } from '@wai-steering/config-text';
import {
  type Evidence,
  type EvidenceRecord,
  type EvidenceStore,
  explainCoverage,
  type HopCoverage,
  type Window,
} from '@wai-steering/evidence';
import { limitsOf, orderPathways, rankOf } from '@wai-steering/rule';
import type { RoomContext } from '@wai-steering/verifier';
import {
  CLASS_LABEL,
  LIMIT,
  NO_CAPACITY_LIMIT,
  NOT_A_CLONE,
  namesOrigin,
  type Policy,
  STATUS,
  toHex,
} from '@wai-steering/wire';
import type { LiveValue } from '../live/capacity.js';
import type { ConsoleActivity } from './activity.js';
import { PLACE_NAME, REASONS_BY_CODE, STATUS_BY_CODE } from './names.js';
import { whyNoFigure } from './why.js';

/** What the snapshot is built from: the server's state, read, never changed. */
export interface StatusSource {
  readonly policy: Policy;
  readonly policyDigest: Uint8Array;
  readonly room: RoomContext;
  /** The room clock, µs. */
  now(): bigint;
  /** The evidence at instant t (the server's cache: the evidence decisions use). */
  evidenceAt(t: bigint): Evidence;
  /** Each pathway's load (§6), the server's own count. */
  readonly loads: ArrayLike<number>;
  /** Live sessions. */
  readonly sessions: number;
  /** The evidence index. */
  readonly records: EvidenceStore & { readonly size: number };
  readonly activity: ConsoleActivity;
  /** Decisions answered since start, by §6.4 reason name. */
  decisionsByReason(): Record<string, number>;
  /** Each pathway's live capacity and its source (`live/`), when live capacity is on. */
  liveValues?(): readonly LiveValue[] | undefined;
}

/** How long "lately" is for the share of sessions placed first (seconds). */
export const SHARE_SECONDS = 300;

/** The figure in readable units: one form wherever a person reads one (`@wai-steering/config-text`). */
export { type ReadableFigure, readableFigure };

/** Every record the store holds of a hop (the index holds those a current or later window may name). */
const ALL: Window = { a: 0n, b: (1n << 64n) - 1n };

/** The last record held of a hop (largest `end`), if any. */
function lastRecord(store: EvidenceStore, hop: Uint8Array): EvidenceRecord | undefined {
  let last: EvidenceRecord | undefined;
  for (const r of store.recordsOfHop(hop, ALL)) {
    if (last === undefined || r.record.end > last.record.end) last = r;
  }
  return last;
}

/** One problem of a hop's coverage, as `/status` states it. */
interface HopProblem {
  readonly kind: 'missing' | 'overlapping' | 'not_tiling';
  readonly start: string;
  readonly end: string;
  readonly detail?: string;
}

/**
 * §5.2: what keeps a hop from covering the window, from evidence's `explainCoverage`: the spans
 * no record reached the server of (within L: the window's periods are all past their lag),
 * spans two records cover, records crossing the window's edge and records off the period grid.
 */
function problemsOf(c: HopCoverage): HopProblem[] {
  const span =
    (kind: HopProblem['kind'], detail?: string) => (x: { start: bigint; end: bigint }) => ({
      kind,
      start: String(x.start),
      end: String(x.end),
      ...(detail === undefined ? {} : { detail }),
    });
  return [
    ...c.missing.map(span('missing')),
    ...c.overlapping.map(span('overlapping')),
    ...c.crossing.map(span('not_tiling', "crosses the window's edge")),
    ...c.offPeriod.map(span('not_tiling', 'off the period grid')),
  ].sort((x, y) =>
    BigInt(x.start) < BigInt(y.start) ? -1 : BigInt(x.start) > BigInt(y.start) ? 1 : 0,
  );
}

/** The `/status` snapshot. */
export function buildStatus(s: StatusSource) {
  const policy = s.policy;
  const t = s.now();
  const evidence = s.evidenceAt(t);
  const { a, b } = evidence.window;
  const P = policy.period_us;
  const L = policy.lag_us;
  const loads = Array.from({ length: policy.pathways.length }, (_, i) => s.loads[i] ?? 0);
  const order = orderPathways(policy, evidence.pathways);
  const place = new Array<number>(order.length);
  order.forEach((p, k) => {
    place[p] = k + 1;
  });
  // §6.1 for a client on no pathway (capacity: load < capacity).
  const limits = limitsOf(policy, { pathway: null }, loads);
  const shares = s.activity.firstOver(SHARE_SECONDS);
  const bandStart: number[] = [];
  let acc = 0;
  for (const p of policy.pathways) {
    bandStart.push(acc);
    acc += p.min_share_ppm;
  }
  const room = s.room.room;
  const live = s.liveValues?.();
  // §5.2, for the stale pathways: each hop's coverage of the window by every record held of it.
  const coverage = evidence.pathways.some((p) => p.status === STATUS.stale)
    ? explainCoverage(policy, evidence.window, {
        recordsOfHop: (hop) => s.records.recordsOfHop(hop, ALL),
      })
    : [];

  const pathways = policy.pathways.map((p, i) => {
    const ev = evidence.pathways[i]!;
    const figure = ev.status === STATUS.figure;
    const hops = p.hops.map((h, k) => {
      const key = toHex(h.key);
      const last = lastRecord(s.records, h.key);
      const ingest = s.activity.ingest.get(key);
      const age = last === undefined ? null : t - last.record.end;
      return {
        index: k,
        key,
        place: PLACE_NAME[h.place] ?? String(h.place),
        last:
          last === undefined
            ? null
            : {
                start: String(last.record.start),
                end: String(last.record.end),
                class: last.record.class,
                digest: toHex(last.digest),
              },
        age_us: age === null ? null : String(age),
        // The next period's record is due L after that period ends: late past P + L.
        late: age === null ? true : age > P + L,
        ingest: {
          accepted: ingest?.accepted ?? 0,
          duplicate: ingest?.duplicate ?? 0,
          late: ingest?.late ?? 0,
          refused: Object.fromEntries(ingest?.refused ?? []),
        },
      };
    });
    let stale: {
      hops: { index: number; key: string; place: string; problems: HopProblem[] }[];
      note: string | null;
    } | null = null;
    if (ev.status === STATUS.stale) {
      // The hops that do not tile [a, b) (§5.2), and what is wrong with each.
      const hops = (coverage[i]?.hops ?? [])
        .filter((c) => !c.tiles)
        .map((c) => ({
          index: c.hop,
          key: toHex(c.key),
          place: PLACE_NAME[p.hops[c.hop]!.place] ?? String(p.hops[c.hop]!.place),
          problems: problemsOf(c),
        }));
      stale = {
        hops,
        note:
          a >= b
            ? 'the window is empty: no period has been over for L yet'
            : hops.length === 0
              ? 'every hop tiles the window, but its evidence cannot be stated (more than 255 records, J of 0, or a sum of 2^128 or more): named as stale'
              : null,
      };
    }
    const capacity = p.capacity === NO_CAPACITY_LIMIT ? null : p.capacity;
    return {
      index: i,
      id: p.id,
      cloneOf: p.base === NOT_A_CLONE ? null : (policy.pathways[p.base]?.id ?? null),
      host: p.host === '' ? null : p.host,
      status: STATUS_BY_CODE[ev.status] ?? String(ev.status),
      statusCode: ev.status,
      stale,
      // Why there is no figure, when the pathway is not stale (`why.ts`).
      why: whyNoFigure(policy, i, ev, evidence.window),
      class: figure ? ev.class : null,
      classLabel: figure ? (CLASS_LABEL[ev.class] ?? null) : null,
      joules_uj: String(ev.joules),
      delivery: String(ev.delivery),
      deliveryUnit: policy.basis === 1 ? 'bytes' : 'µs',
      figure:
        figure && ev.delivery > 0n ? readableFigure(policy.basis, ev.joules, ev.delivery) : null,
      rank: rankOf(ev),
      order: place[i]!,
      limits: {
        latency: {
          ok: (limits[i]! & LIMIT.latency) !== 0,
          latency_ms: p.latency_ms,
          ceiling_ms: policy.latency_ceiling_ms,
        },
        quality: {
          ok: (limits[i]! & LIMIT.quality) !== 0,
          top_tier: p.top_tier,
          floor: policy.floor,
        },
        capacity: { ok: (limits[i]! & LIMIT.capacity) !== 0, load: loads[i]!, capacity },
      },
      load: loads[i]!,
      capacity,
      // Live policy (docs/live-policy.md): where the capacity in force comes from, and the age
      // of the newest site report; null when live capacity is off.
      live:
        live?.[i] === undefined
          ? null
          : {
              source: live[i]!.source,
              // null: no capacity limit, as `capacity` above.
              capacity: live[i]!.capacity === NO_CAPACITY_LIMIT ? null : live[i]!.capacity,
              latency_ms: live[i]!.latency_ms,
              report_age_s: live[i]!.ageUs === null ? null : Number(live[i]!.ageUs) / 1e6,
            },
      min_share_ppm: p.min_share_ppm,
      band: [bandStart[i]!, bandStart[i]! + p.min_share_ppm],
      firstShare: {
        seconds: SHARE_SECONDS,
        placed: shares.counts[i]!,
        of: shares.total,
        ppm: shares.total === 0 ? null : Math.round((shares.counts[i]! * 1e6) / shares.total),
      },
      records: ev.named.length,
      hops,
    };
  });

  const unattributed = s.activity.ingest.get('');
  return {
    version: 1,
    t: String(t),
    room: {
      id: toHex(s.room.roomId),
      name: room.name,
      authority: toHex(room.authority),
      origin: namesOrigin(room) ? toHex(room.origin) : null,
      keyLogEntries: s.room.keyLog === undefined ? null : s.room.entries.size,
    },
    policy: {
      digest: toHex(s.policyDigest),
      signer: toHex(policy.signer),
      period_us: String(P),
      window_us: String(policy.window_us),
      lag_us: String(L),
      basis: policy.basis,
      floor: policy.floor,
      tiers: policy.tiers.map(String),
      latency_ceiling_ms: policy.latency_ceiling_ms,
      min_buffer_ms: policy.min_buffer_ms,
      hysteresis_ppm: policy.hysteresis_ppm,
      ttl_s: policy.ttl_s,
      min_ttl_s: policy.min_ttl_s,
      server_uri: policy.server_uri,
      decision_uri: policy.decision_uri,
    },
    window: { a: String(a), b: String(b) },
    order: order.map((i) => policy.pathways[i]!.id),
    sessions: s.sessions,
    evidenceRecords: s.records.size,
    pathways,
    ingest: {
      unattributed:
        unattributed === undefined ? {} : Object.fromEntries(unattributed.refused.entries()),
    },
    decisions: {
      total: Object.values(s.decisionsByReason()).reduce((x, y) => x + y, 0),
      byReason: s.decisionsByReason(),
      recent: s.activity.recent().map((d) => ({
        digest: toHex(d.digest),
        t: String(d.t),
        session: toHex(d.session).slice(0, 8),
        first: policy.pathways[d.first]?.id ?? null,
        reason: REASONS_BY_CODE[d.reason] ?? String(d.reason),
        uri: `${policy.decision_uri}${toHex(d.digest)}`,
      })),
    },
  };
}

/** The `/status` snapshot's type. */
export type Status = ReturnType<typeof buildStatus>;
