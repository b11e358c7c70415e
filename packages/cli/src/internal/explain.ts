/**
 * What each reason of companion C7 means, in one sentence, and where each place is: the
 * readable account of a refusal (`wai-steer verify` without `--json`).
 */
import type { Reason } from '@wai-steering/wire';

/** One sentence per reason code of companion C7, in the order of its table. */
export const REASON_SENTENCE: Readonly<Record<Reason, string>> = {
  // C1
  truncated:
    'The record ends before one of its fields does: it was cut short, or a count in it declares more than its bytes hold.',
  malformed:
    'The bytes are not this kind of record (the magic is wrong), or bytes are left over after its signature.',
  unknown_version: "The record's version is not 1, the only version this revision reads.",
  // C2
  bad_key:
    'The signing key is not a usable Ed25519 public key under the strict rule (C2 steps 1 and 2: it does not decode, or it is of small order).',
  bad_signature:
    'The signature does not verify under the strict Ed25519 rule (C2 steps 3 to 5): the signed bytes were changed, or another key signed them.',
  // C3, C4, C6
  room_invalid: "The room descriptor's name is not 1 to 64 printable ASCII characters (C3).",
  key_log_missing: 'The room names an origin, but no key log head was given (--key-log).',
  key_log_invalid:
    'The key log head breaks a rule every head keeps: keys out of order or listed twice, a bad status or authority, or seq and prev disagree.',
  key_log_mismatch: 'The key log head is the log of another origin than the one the room names.',
  authority_not_listed:
    "The room's authority is not listed in the origin's key log with live/room.",
  authority_revoked: "The room's authority is revoked in the origin's key log.",
  // §9.1 steps 2 to 4, C5.3
  wrong_room: 'The record is of another room than the one given.',
  // §3.5, C6
  signer_not_authorised:
    'The signer is neither the room authority nor a live/steer key of the key log, or lacks the energy/<class> authority for a figure the decision states.',
  signer_revoked: "The signer's key is revoked in the origin's key log.",
  // live-metering (C5), §9.1
  record_missing:
    'A record the decision names by digest was not given, or (at the decision) the decision is of another policy than the one given.',
  energy_invalid:
    "The per-hop record's class is not a class (2 to 5) or the unmetered marker (0), or it is the unmetered marker with joules.",
  record_invalid:
    'The per-hop record breaks a rule every record keeps: its span does not end after it starts, or a track entry is invalid or repeated.',
  hop_not_authorised:
    'The hop that signed the record may not sign it: not listed with live/hop (and energy/<class> for its figure), or, in a room with no origin, not the authority.',
  hop_revoked: 'The hop that signed the record is revoked in the key log.',
  classes_summed:
    'The decision states a figure for a pathway whose records are of more than one class: figures of two classes are never summed.',
  // energy-steering §10
  policy_invalid:
    'The policy breaks a rule every policy keeps (a window a whole number of periods, tiers ascending, an edge hop on each pathway, a hop on one pathway, shares at most 100%…).',
  clone_unknown: 'A pathway clone names a base that is not a pathway before it.',
  decision_invalid:
    "The decision breaks a rule every decision keeps, its pathways are not the policy's, or the records it names are out of order (by hop, then by start).",
  evidence_not_on_pathway:
    "A record named under a pathway was signed by a hop that is not one of that pathway's hops.",
  evidence_outside_window:
    "A record named as evidence lies outside the window of the decision's instant.",
  evidence_mismatch:
    "A pathway's stated status, class, joules or delivery are not what its named records give.",
  unmetered_as_zero:
    'The decision states a figure for a pathway with an unmetered record: an unmetered hop is not a hop of zero joules.',
  unknown_preferred:
    'The decision puts first a pathway with no figure where the rule puts first one with a figure: not measuring would be rewarded.',
  decision_mismatch:
    'The limits, priority, TTL or reason are not what the decision rule gives for the evidence, the report, the session and the loads.',
  manifest_mismatch:
    'The manifest is not the one the decision and the policy write, byte for byte (with no trailing newline).',
};

/** Where a reason reads differently at one place: `reason@place`. */
const AT_PLACE: Readonly<Record<string, string>> = {
  'record_missing@decision':
    "The decision is of another policy than the one given: its policy field is not the given policy's digest.",
  'record_missing@evidence':
    'The record the decision names here by digest is not among the records given (--records).',
  'decision_invalid@evidence':
    "The records named under the pathway are not in order: its hops in the pathway's order, each hop's records in ascending start.",
  'wrong_room@policy': 'The policy is of another room than the one given.',
  'wrong_room@decision': 'The decision is of another room than the one given.',
  'wrong_room@evidence': 'The record named here is of another room than the one given.',
};

/** The sentence of a reason, at a place when it reads differently there. */
export function reasonSentence(reason: Reason, at: string): string {
  return AT_PLACE[`${reason}@${at}`] ?? REASON_SENTENCE[reason];
}

/** Where a refusal was raised, in words. */
export function placeText(
  where: {
    readonly at: string;
    readonly pathway?: number;
    readonly record?: number;
  },
  pathwayIds: readonly string[] = [],
): string {
  const name = (i: number | undefined): string => {
    if (i === undefined) return 'a pathway';
    // People count from 1 (docs/cli.md, *Numbers*); C8's JSON keeps its index from 0.
    const id = pathwayIds[i];
    return id === undefined ? `pathway ${i + 1}` : `pathway ${i + 1} (${id})`;
  };
  switch (where.at) {
    case 'room':
      return 'the room (its descriptor and key log)';
    case 'policy':
      return 'the policy';
    case 'decision':
      return 'the decision';
    case 'evidence':
      return `record ${(where.record ?? 0) + 1} named under ${name(where.pathway)}`;
    case 'pathway':
      return `the evidence of ${name(where.pathway)}`;
    case 'output':
      return "the output (the rule's priority, TTL and reason)";
    case 'manifest':
      return 'the manifest';
    default:
      return where.at;
  }
}

/** What each reason of a decision (§6.4) says about the first pathway. */
export const DECISION_REASON_SENTENCE: Readonly<Record<string, string>> = {
  buffer: "the client's buffer is below min_buffer, so it is held on its current pathway",
  floor: 'the client is at its floor tier, so it is held on the pathway it was measured on',
  share: "the session's draw falls in the first pathway's minimum-share band",
  hold: "hysteresis: no pathway beats the client's current one by more than the margin",
  rank: 'the first pathway of the order within the limits',
  none: 'no pathway is within the limits, so the client is not moved',
};
