// @wai-steering/wire: the records of energy-aware content steering, their digests and their
// strict signatures. Runs unchanged in Node, browsers and edge runtimes; `@wai-steering/wire/node`
// adds a faster backend on `node:crypto`.

export type { CryptoBackend, VerifyOutcome } from './crypto/backend.js';
export { getBackend, useBackend } from './crypto/index.js';
export { nobleBackend } from './crypto/noble.js';
export { verifyStrict } from './crypto/strict.js';
export { digestOf, roomIdOf, sha256 } from './digest.js';
export { DOMAIN_TAGS, signingMessage } from './domain.js';
export { bytesEqual, compareBytes, fromHex, parseHex, toHex } from './hex.js';
export type { SignOptions } from './internal/record.js';
export { type Signed, unwrap } from './internal/record.js';
export {
  base64url,
  type Ed25519Jwk,
  type JwkKeyPair,
  jwkToKeyPair,
  parseBase64url,
  secretKeyToJwk,
} from './jwk.js';
export { isReason, REASONS, type Reason } from './reasons.js';
export {
  DECISION_REASON,
  type Decision,
  type DecisionFields,
  type DecisionPathway,
  type DecisionReport,
  encodeDecision,
  LIMIT,
  PRESENT,
  PROTOCOL,
  REASON_NAME,
  type ReasonName,
  readDecision,
  STATUS,
  STATUS_NAME,
  type StatusName,
  signDecision,
  verifyDecisionSignature,
} from './records/decision.js';
export {
  CLASS,
  CLASS_LABEL,
  encodeHopRecord,
  type HopRecord,
  type HopRecordFields,
  hopRecordBodyOf,
  readHopRecord,
  signHopRecord,
  TRACK_DIRECTION,
  TRACK_KIND,
  type TrackEntry,
  verifyHopRecord,
} from './records/hop-record.js';
export {
  encodeKeyLog,
  KEY_STATUS,
  type KeyLog,
  type KeyLogEntry,
  type KeyLogFields,
  readKeyLog,
  signKeyLog,
  verifyKeyLogSignature,
} from './records/key-log.js';
export {
  type CloneParam,
  encodePolicy,
  NO_CAPACITY_LIMIT,
  NOT_A_CLONE,
  type Policy,
  type PolicyFields,
  type PolicyHop,
  type PolicyPathway,
  readPolicy,
  signPolicy,
  verifyPolicySignature,
} from './records/policy.js';
export {
  encodeRoom,
  namesOrigin,
  type Room,
  type RoomFields,
  readRoom,
  signRoom,
  verifyRoomSignature,
} from './records/room.js';
export { isRefusal, type Magic, type Place, Refusal, type Result, type Where } from './refusal.js';
