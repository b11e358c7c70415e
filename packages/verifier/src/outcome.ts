import type { Place, Reason, ReasonName, Refusal, StatusName } from '@wai-steering/wire';

/** C8: a pathway of an accepted outcome. */
export interface AcceptedPathway {
  readonly id: string;
  readonly status: StatusName;
  readonly class: number;
  /** u128, decimal. */
  readonly joules: string;
  /** u128, decimal. */
  readonly delivery: string;
  readonly limits: {
    readonly latency: boolean;
    readonly quality: boolean;
    readonly capacity: boolean;
  };
}

/** C8, §9.3: an accepted decision. */
export interface Accepted {
  readonly outcome: 'accept';
  readonly digest: string;
  readonly priority: readonly string[];
  readonly ttl: number;
  readonly reason: ReasonName;
  readonly pathways: readonly AcceptedPathway[];
  readonly manifest: string;
  readonly uri: string;
}

/** C8: where a verification stopped. `pathway` and `record` only where the place has them. */
export interface RefusedWhere {
  readonly at: Place;
  readonly pathway?: number;
  readonly record?: number;
}

/** C8, §9.3: a refused decision: the reason and where. */
export interface Refused {
  readonly outcome: 'refuse';
  readonly reason: Reason;
  readonly where: RefusedWhere;
}

/** C8: the outcome of a verification. */
export type Outcome = Accepted | Refused;

/** A refusal at a place of C7, in C8's shape (keys in C8's order). */
export function refused(reason: Reason, at: Place, pathway?: number, record?: number): Refused {
  // C9: `where` holds `pathway` and `record` only for `evidence`, and `pathway` only for `pathway`.
  if (at === 'evidence') {
    return { outcome: 'refuse', reason, where: { at, pathway: pathway ?? 0, record: record ?? 0 } };
  }
  if (at === 'pathway') return { outcome: 'refuse', reason, where: { at, pathway: pathway ?? 0 } };
  return { outcome: 'refuse', reason, where: { at } };
}

/** A wire refusal placed at a place of C7. */
export function refusedBy(refusal: Refusal, at: Place, pathway?: number, record?: number): Refused {
  return refused(refusal.reason, at, pathway, record);
}

/**
 * C8: the outcome as one line of JSON, its members written in C8's order whatever the object's
 * own order (an outcome read from elsewhere, say), and nothing else (C9: `pathway` and `record`
 * only where the place has them).
 */
export function outcomeJson(o: Outcome): string {
  if (o.outcome === 'accept') {
    return JSON.stringify({
      outcome: o.outcome,
      digest: o.digest,
      priority: [...o.priority],
      ttl: o.ttl,
      reason: o.reason,
      pathways: o.pathways.map((p) => ({
        id: p.id,
        status: p.status,
        class: p.class,
        joules: p.joules,
        delivery: p.delivery,
        limits: {
          latency: p.limits.latency,
          quality: p.limits.quality,
          capacity: p.limits.capacity,
        },
      })),
      manifest: o.manifest,
      uri: o.uri,
    });
  }
  const { at } = o.where;
  const where: { at: Place; pathway?: number; record?: number } = { at };
  if (at === 'evidence' || at === 'pathway') where.pathway = o.where.pathway ?? 0;
  if (at === 'evidence') where.record = o.where.record ?? 0;
  return JSON.stringify({ outcome: o.outcome, reason: o.reason, where });
}
