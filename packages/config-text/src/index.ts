// @wai-steering/config-text: the text people type and read, written once for every package.
// Durations (one parser, one readable form), instants of the room clock (one reader, the one
// form of human output), the names of hand-written files (did-you-mean, old spellings), and JSON
// read strictly (a name given twice in one object refused).

export {
  bareNumber,
  DURATION_UNITS,
  type DurationUnit,
  formatDuration,
  formatDurationExact,
  parseDuration,
} from './duration.js';
export { formatBytes, type ReadableFigure, readableFigure } from './figure.js';
export { notAMapping, parseProblem } from './files.js';
export {
  formatInstant,
  formatInstantExact,
  INSTANT_FORMS,
  type InstantSpan,
  nowUs,
  parseInstant,
  parseSpan,
  toRfc3339,
} from './instant.js';
export { duplicateName, readStrictJson, type StrictJson } from './json.js';
export { type Alias, closestName, didYouMean, editDistance, renameAliases } from './names.js';
