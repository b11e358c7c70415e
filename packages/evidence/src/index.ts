// @wai-steering/evidence: §5 of energy-aware content steering — the window, the records that
// tile it, and each pathway's status, class, J and D.

export { EvidenceCache } from './cache.js';
export {
  type CoveragePolicy,
  type CoverageSource,
  explainCoverage,
  type HopCoverage,
  type PathwayCoverage,
  type Span,
} from './coverage.js';
export {
  deliveryOf,
  evaluatePathway,
  type Figure,
  type FigurePolicy,
  figureOf,
  isStatable,
  type PathwayTally,
  tallyPathway,
  U128_LIMIT,
} from './figure.js';
export {
  type Evidence,
  type EvidenceRecord,
  type EvidenceStore,
  MAX_NAMED,
  MemoryEvidenceStore,
  type PathwayEvidence,
  type SelectPolicy,
  selectEvidence,
} from './select.js';
export { inWindow, type Window, type WindowPolicy, windowAt } from './window.js';
