// @wai-steering/verifier: §9 verification of energy-aware content steering decisions, with the
// outcomes of companion C8, and the runner of a conformance corpus.

export { VerifierCache } from './cache.js';
export {
  type Corpus,
  type CorpusFailure,
  type CorpusRequest,
  type CorpusResult,
  type CorpusVector,
  jsonEqual,
  runCorpus,
} from './corpus.js';
export { type OpenedHopRecord, openHopRecord } from './ingest.js';
export {
  type FetchAndVerifyOptions,
  FetchError,
  type FetchFunction,
  type FetchResponse,
  fetchAndVerify,
  type NetworkVerification,
  RoomPinError,
  type VerifySource,
} from './network.js';
export {
  type Accepted,
  type AcceptedPathway,
  type Outcome,
  outcomeJson,
  type Refused,
  type RefusedWhere,
} from './outcome.js';
export { type LivePlacement, LoadReplay } from './replay.js';
export {
  type CheckOptions,
  checkHopAuthorised,
  checkSigner,
  openRoom,
  type RoomContext,
} from './room.js';
export {
  checkDecision,
  checkEvidence,
  checkOutput,
  type DecisionCheckOptions,
  type EvidenceCheckOptions,
  type OpenedPolicy,
  type OutputCheckOptions,
  openPolicy,
  type StepOptions,
} from './steps.js';
export { type VerifyInput, type VerifyOptions, verifyDecision } from './verify.js';
