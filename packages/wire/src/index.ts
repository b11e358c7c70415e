// @wai-steering/wire: the records of energy-aware content steering, their digests and their
// strict signatures. Runs unchanged in Node, browsers and edge runtimes; `@wai-steering/wire/node`
// adds a faster backend on `node:crypto`.

export { REASONS, type Reason, isReason } from './reasons.js';
export { Refusal, isRefusal, type Place, type Magic, type Where, type Result } from './refusal.js';
export { toHex, fromHex, parseHex, bytesEqual, compareBytes } from './hex.js';
export { DOMAIN_TAGS, signingMessage } from './domain.js';
export type { CryptoBackend, VerifyOutcome } from './crypto/backend.js';
export { nobleBackend } from './crypto/noble.js';
export { getBackend, useBackend } from './crypto/index.js';
export { verifyStrict } from './crypto/strict.js';
export { digestOf, roomIdOf } from './digest.js';
export { unwrap, type Signed } from './internal/record.js';
export {
  readPolicy,
  encodePolicy,
  signPolicy,
  verifyPolicySignature,
  NOT_A_CLONE,
  NO_CAPACITY_LIMIT,
  type Policy,
  type PolicyFields,
  type PolicyPathway,
  type PolicyHop,
  type CloneParam,
  type SignOptions,
} from './records/policy.js';
export {
  readDecision,
  encodeDecision,
  signDecision,
  verifyDecisionSignature,
  PROTOCOL,
  DECISION_REASON,
  STATUS,
  LIMIT,
  PRESENT,
  type Decision,
  type DecisionFields,
  type DecisionPathway,
  type DecisionReport,
} from './records/decision.js';
export {
  readRoom,
  encodeRoom,
  signRoom,
  verifyRoomSignature,
  namesOrigin,
  type Room,
  type RoomFields,
} from './records/room.js';
export {
  readKeyLog,
  encodeKeyLog,
  signKeyLog,
  verifyKeyLogSignature,
  KEY_STATUS,
  type KeyLog,
  type KeyLogFields,
  type KeyLogEntry,
} from './records/key-log.js';
export {
  readHopRecord,
  encodeHopRecord,
  signHopRecord,
  verifyHopRecord,
  hopRecordBodyOf,
  CLASS,
  CLASS_LABEL,
  TRACK_KIND,
  TRACK_DIRECTION,
  type HopRecord,
  type HopRecordFields,
  type TrackEntry,
} from './records/hop-record.js';
export {
  base64url,
  parseBase64url,
  secretKeyToJwk,
  jwkToKeyPair,
  type Ed25519Jwk,
  type JwkKeyPair,
} from './jwk.js';
