/**
 * `@wai-steering/auditor/node`: archives on disk. Their materials read (each file within its
 * limits), the decisions streamed from `decisions.bin`, the audit with `jobs` threads verifying
 * the decisions, and the archive writer.
 */
export { type ArchiveAudit, type AuditArchiveOptions, auditArchive } from './node/archive-audit.js';
export {
  type ArchiveAccount,
  type ArchiveAccountOptions,
  archiveAccount,
  type NoAccount,
} from './node/energy.js';
export { type ArchiveMaterials, decisionFrames, readArchiveMaterials } from './node/materials.js';
export { type ArchiveStart, ArchiveWriter } from './node/writer.js';
