// @wai-steering/evidence: §5 of energy-aware content steering — the window, the records that
// tile it, and each pathway's status, class, J and D.

export { windowAt, inWindow, type Window, type WindowPolicy } from './window.js';
export {
  evaluatePathway,
  tallyPathway,
  figureOf,
  isStatable,
  U128_LIMIT,
  type Figure,
  type FigurePolicy,
  type PathwayTally,
} from './figure.js';
export {
  selectEvidence,
  MemoryEvidenceStore,
  MAX_NAMED,
  type Evidence,
  type EvidenceRecord,
  type EvidenceStore,
  type PathwayEvidence,
  type SelectPolicy,
} from './select.js';
export { EvidenceCache } from './cache.js';
