// @wai-steering/auditor: a steering server's whole decision log checked by anyone (§9.2, §12):
// the archive's frames, the streamed audit (every decision verified, the loads replayed, the
// bands' shares, the policies, the hops), its JSON result and its HTML report. Portable: file
// reading and the worker pool are in `@wai-steering/auditor/node`.

export { LoadReplay } from '@wai-steering/verifier';
export { ArchiveError, type ArchiveMeta, parseArchiveMeta } from './archive.js';
export {
  Audit,
  type AuditMaterials,
  type AuditOptions,
  type AuditResult,
  type AuditSink,
  auditDecisions,
  auditJson,
  type DuplicatedDecision,
  type InconsistentLoad,
  type RefusedResult,
} from './audit.js';
export {
  type ArchiveSpanFacts,
  archiveSpan,
  ENERGY_STATEMENT_FILE,
  type EnergyMembers,
  type EnergyReport,
  openRoomStatement,
  statementKeys,
} from './energy.js';
export { energyLines, energyTable } from './energy-format.js';
export {
  decodeFrames,
  encodeFrame,
  encodeFrames,
  FRAME_FILES,
  FrameError,
  type FrameFile,
  FrameReader,
} from './frames.js';
export type { HopSpanResult } from './hops.js';
export { renderHtml } from './html.js';
export {
  ArchiveLog,
  type LogResult,
  type LogSpan,
  openRoomCheckpoint,
  type ProvedInclusion,
  type RoomCheckpoint,
  roomLogKeys,
  type UnloggedDecision,
  verifyDecisionProof,
  type WithheldEntry,
} from './log.js';
export type { PolicyChange, PolicyResult } from './policies.js';
export type { Series, SeriesBin } from './series.js';
export type { ShareResult } from './shares.js';
export {
  type DecisionFacts,
  DecisionVerifier,
  type Verdict,
  type VerifierMaterials,
  type Where,
} from './verdict.js';
