/**
 * A verification's outcome, as companion C8's JSON (byte for byte: one line, members in C8's
 * order) and as a readable account.
 */
import { type Outcome, outcomeJson } from '@wai-steering/verifier';
import { isReason } from '@wai-steering/wire';
import { DECISION_REASON_SENTENCE, placeText, reasonSentence } from './explain.js';
import { figureText } from './show.js';

/** C8: an outcome, accepted or refused (the verifier's). */
export type C8Outcome = Outcome;

/** C8's JSON of an outcome: one line, members in C8's order (the verifier's writer). */
export function outcomeLine(o: C8Outcome): string {
  return outcomeJson(o);
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
        ? figureText(BigInt(p.joules), BigInt(p.delivery), p.class, context.basis)
        : 'no figure';
    lines.push(`  ${p.id.padEnd(width)}  ${p.status.padEnd(9)} ${figure}; ${limits}`);
  }
  lines.push(`manifest ${o.manifest}`);
  lines.push(`uri      ${o.uri}`);
  lines.push('');
  return lines.join('\n');
}
