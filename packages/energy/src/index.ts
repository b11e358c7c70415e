// @wai-steering/energy: the energy account of energy-aware content steering — what steering
// saved against the policy's initial pathway, in the attributional (average) and the marginal
// (fitted power model) view, with its uncertainty; its canonical JSON; the signed statement and
// the auditor's comparison. Portable: no Node module, no Node global.

export { type AccountInput, energyAccount } from './account.js';
export {
  type AccountDecision,
  type AccumulatorOptions,
  EnergyAccumulator,
  type PeriodPathway,
  type PeriodView,
} from './accumulator.js';
export { canonicalJson, type JsonValue } from './canonical.js';
export {
  ENERGY_REASONS,
  type EnergyReason,
  EnergyRefusal,
  type EnergyResult,
  EnergySpanError,
  type EnergyWhere,
  isEnergyRefusal,
  isEnergySpanError,
  type SpanProblem,
} from './errors.js';
export { type MarginalWhy, MIN_PERIODS } from './fit.js';
export {
  accountFromJson,
  accountJson,
  type EnergyAccountJson,
  type PathwayAccountJson,
  readAccount,
  writeAccount,
} from './json.js';
export {
  accountOfPeriods,
  type PathwayFacts,
  type PeriodFacts,
  type PeriodsOptions,
} from './periods.js';
export {
  accountChanges,
  type PolicyInForce,
  policyTimeline,
  type SpanPolicy,
  spanPolicy,
} from './policies.js';
export {
  compareAccounts,
  FLOAT_TOLERANCE,
  type OpenedStatement,
  openStatement,
  STATEMENT_HEADER,
  type StatementComparison,
  signStatement,
  statementText,
} from './statement.js';
export { parseStrictJson } from './strict-json.js';
export type { EnergyAccount, PathwayAccount } from './types.js';
