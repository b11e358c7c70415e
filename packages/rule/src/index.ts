// §7.1: decision assembly.
export {
  type AssembleInput,
  assembleAndSign,
  assembleDecision,
  REASON_NAME,
  type SignedDecision,
} from './assemble.js';
// §6.3: the draw and the bands.
export { bandOf, drawOf, PPM } from './draw.js';
// §6.4, §6.5: the first pathway, the priority and the TTL.
export {
  applyRule,
  beats,
  isAtFloor,
  type RuleInput,
  type RuleOutput,
  type RulePolicy,
} from './first.js';
// §6.1: the limits.
export { type LimitsPolicy, limitsOf, WITHIN_LIMITS } from './limits.js';
// §6.2: the rank and the order.
export { NO_FIGURE_RANK, orderPathways, type RuleFigure, rankOf } from './order.js';
// §4: the client's report.
export {
  type Protocol,
  type Report,
  type ReportJson,
  readReport,
  reportJson,
  type SteeringRequest,
} from './report.js';
// §4.1, §7.1 `protocol`, §8.1 `wai_session`: the rest of what a server reads from the query.
export { protocolOf, sessionOf } from './request.js';
// RFC 9651 §4.2, as §4.4 and C9 read it.
export {
  parseDictionary,
  parseItem,
  parseList,
  type SfBareItem,
  type SfDictionary,
  type SfError,
  type SfInnerList,
  type SfItem,
  type SfList,
  type SfMember,
  type SfParameters,
  type SfResult,
} from './structured-field.js';
