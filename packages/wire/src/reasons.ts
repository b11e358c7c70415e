/**
 * Every reason code of companion C7, in the order of its table. A refusal carries exactly one.
 */
export const REASONS = [
  // C1
  'truncated',
  'malformed',
  'unknown_version',
  // C2
  'bad_key',
  'bad_signature',
  // C3, C4, C6 (live-rooms)
  'room_invalid',
  'key_log_missing',
  'key_log_invalid',
  'key_log_mismatch',
  'authority_not_listed',
  'authority_revoked',
  // §9.1 steps 2 to 4, C5.3
  'wrong_room',
  // §3.5, C6
  'signer_not_authorised',
  'signer_revoked',
  // live-metering (C5), §9.1
  'record_missing',
  'energy_invalid',
  'record_invalid',
  'hop_not_authorised',
  'hop_revoked',
  'classes_summed',
  // energy-steering §10
  'policy_invalid',
  'clone_unknown',
  'decision_invalid',
  'evidence_not_on_pathway',
  'evidence_outside_window',
  'evidence_mismatch',
  'unmetered_as_zero',
  'unknown_preferred',
  'decision_mismatch',
  'manifest_mismatch',
] as const;

/** A reason code of companion C7. */
export type Reason = (typeof REASONS)[number];

const REASON_SET: ReadonlySet<string> = new Set(REASONS);

/** Whether `value` is a reason code of companion C7. */
export function isReason(value: unknown): value is Reason {
  return typeof value === 'string' && REASON_SET.has(value);
}
