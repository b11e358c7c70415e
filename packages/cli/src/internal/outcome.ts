/**
 * A verification's outcome, as companion C8's JSON (byte for byte: one line, members in C8's
 * order) and as a readable account.
 */
import { isReason } from '@wai-steering/wire';
import { DECISION_REASON_SENTENCE, placeText, reasonSentence } from './explain.js';
import { classLabel } from './show.js';

/** C8: an accepted pathway. */
export interface OutcomePathway {
  readonly id: string;
  readonly status: string;
  readonly class: number;
  readonly joules: string;
  readonly delivery: string;
  readonly limits: {
    readonly latency: boolean;
    readonly quality: boolean;
    readonly capacity: boolean;
  };
}

/** C8: an outcome, accepted or refused. */
export type C8Outcome =
  | {
      readonly outcome: 'accept';
      readonly digest: string;
      readonly priority: readonly string[];
      readonly ttl: number;
      readonly reason: string;
      readonly pathways: readonly OutcomePathway[];
      readonly manifest: string;
      readonly uri: string;
    }
  | {
      readonly outcome: 'refuse';
      readonly reason: string;
      readonly where: { readonly at: string; readonly pathway?: number; readonly record?: number };
    };

/**
 * C8's JSON of an outcome, members written in C8's order whatever the object's own order, and
 * nothing else: `{"outcome":"accept","digest":…,"priority":…,"ttl":…,"reason":…,"pathways":…,
 * "manifest":…,"uri":…}` or `{"outcome":"refuse","reason":…,"where":{"at":…,"pathway":…,
 * "record":…}}` (C9: `pathway` and `record` only where the place has them).
 */
export function outcomeLine(o: C8Outcome): string {
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
  const where: { at: string; pathway?: number; record?: number } = { at: o.where.at };
  if (o.where.at === 'evidence' || o.where.at === 'pathway') where.pathway = o.where.pathway ?? 0;
  if (o.where.at === 'evidence') where.record = o.where.record ?? 0;
  return JSON.stringify({ outcome: o.outcome, reason: o.reason, where });
}

/** The readable account of an outcome. `basis` names the unit of D (1 bytes, 2 µs). */
export function outcomeText(
  o: C8Outcome,
  context: { readonly pathwayIds?: readonly string[]; readonly basis?: number } = {},
): string {
  if (o.outcome === 'refuse') {
    const sentence = isReason(o.reason)
      ? reasonSentence(o.reason, o.where.at)
      : 'An unknown reason.';
    return [
      `REFUSED: ${o.reason}`,
      `at       ${placeText(o.where, context.pathwayIds ?? [])}`,
      `meaning  ${sentence}`,
      '',
    ].join('\n');
  }
  const unit =
    context.basis === 2 ? 'us at or above the floor' : context.basis === 1 ? 'bytes' : '';
  const width = Math.max(...o.pathways.map((p) => p.id.length), 2);
  const lines = [
    `ACCEPTED decision ${o.digest}`,
    `priority ${o.priority.join(', ')}`,
    `reason   ${o.reason}: ${DECISION_REASON_SENTENCE[o.reason] ?? ''}`,
    `ttl      ${o.ttl}s`,
    'pathways',
  ];
  for (const p of o.pathways) {
    const limits = [
      `latency ${p.limits.latency ? 'ok' : 'FAILS'}`,
      `quality ${p.limits.quality ? 'ok' : 'FAILS'}`,
      `capacity ${p.limits.capacity ? 'ok' : 'FAILS'}`,
    ].join(', ');
    const figure =
      p.status === 'figure'
        ? `J/D ${p.joules} uJ / ${p.delivery}${unit === '' ? '' : ` ${unit}`} (${classLabel(p.class)})`
        : 'no figure';
    lines.push(`  ${p.id.padEnd(width)}  ${p.status.padEnd(9)} ${figure}; ${limits}`);
  }
  lines.push(`manifest ${o.manifest}`);
  lines.push(`uri      ${o.uri}`);
  lines.push('');
  return lines.join('\n');
}
