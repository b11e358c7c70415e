// @wai-steering/server: the energy-aware content steering server — the steering engine
// (sessions and loads, evidence, signed decisions, the durable store), its HTTP routes, the
// operator console's routes (`/status`, `/console/`), and starting it from a configuration. The
// demo room and simulated hops are in `@wai-steering/server/testkit`.

export {
  type AppLimits,
  type AppOptions,
  type AppRequest,
  type AppResponse,
  NOT_FOUND,
  type Route,
  type RouteContext,
  SteeringApp,
  steeringRoutes,
} from './app.js';
export {
  ALIASES,
  ConfigError,
  configSchema,
  durationMs,
  loadConfig,
  parseConfig,
  type ReadConfig,
  readConfig,
  readConfigFile,
  type ServerConfig,
} from './config.js';
export { type ActivityOptions, ConsoleActivity, type HistoryColumns } from './console/activity.js';
export { type ConsoleAssets, consoleDistDir, readConsoleAssets } from './console/assets.js';
export {
  type ConsoleAuth,
  type ConsoleOptions,
  consoleRoutes,
  engineStatusSource,
} from './console/routes.js';
export { buildStatus, readableFigure, type Status, type StatusSource } from './console/status.js';
export { monotonicClock } from './engine/clock.js';
export { SteeringEngine } from './engine/engine.js';
export type {
  CapacityResult,
  DecideRequest,
  DecideResult,
  Declined,
  EngineLiveOptions,
  EngineMaterials,
  EngineObserver,
  EngineOptions,
  IngestResult,
  KeyLogResult,
  Overloaded,
  PolicyRotated,
  ReadResult,
  RecordOutside,
  RecordRefused,
  RecordStored,
  Steered,
} from './engine/types.js';
export {
  type BucketLimits,
  ClientBudget,
  type ClientBudgetOptions,
  TokenBuckets,
} from './guard/budget.js';
export { type ClockCheckOptions, checkClock } from './guard/clock.js';
export {
  type HorizonRecord,
  type HorizonRefusal,
  RecordHorizon,
  type RecordHorizonOptions,
} from './guard/horizon.js';
export { type Head, type HeadStep, stepHead } from './guard/key-log.js';
export { SessionMac } from './guard/session-mac.js';
export { Health, type HealthCause, type HealthOptions } from './health.js';
export {
  type ConnectionLimits,
  createHttpServer,
  DEFAULT_CONNECTION_LIMITS,
  type HttpOptions,
  listen,
} from './http.js';
export type { InstanceLink } from './instances/link.js';
export {
  addLoads,
  IpcLoadExchange,
  isLoadsMessage,
  LoadsHub,
  type LoadsMessage,
  type PeerLoads,
  PgLoadExchange,
} from './instances/loads.js';
export { isRecordMessage, type Linked, type RecordMessage } from './instances/start.js';
export { type RunningWorkers, runWorkers, type WorkersOptions } from './instances/workers.js';
export { type ListingResponse, listDecisions, MAX_LIST } from './listing.js';
export type { LiveOptions, LiveSource, LiveValue } from './live/capacity.js';
export type { CapacityReport, ReportRefusal } from './live/report.js';
export { METRICS_MEDIA_TYPE, Metrics } from './metrics.js';
export {
  closestName,
  type DurationUnit,
  didYouMean,
  editDistance,
  parseDuration,
} from './readable.js';
export {
  type Materials,
  openConfiguredStore,
  type ReloadResult,
  type RunningServer,
  readMaterials,
  type StartOptions,
  startServer,
} from './server.js';
export type { SessionTable } from './sessions.js';
export { type OpenStoreOptions, openStore } from './store/open.js';
export { MIGRATIONS, SCHEMA_VERSION } from './store/pg-migrations.js';
export { PgStore, type PgStoreOptions, type StoreNotice } from './store/postgres.js';
export { SqliteStore, type SqliteStoreOptions, type StoreFileState } from './store/sqlite.js';
export type {
  BlobKind,
  CommitBatch,
  CommitResult,
  DecisionCursor,
  DecisionPage,
  ListedDecision,
  NewestHeld,
  PolicyClaim,
  PruneResult,
  SteeringStore,
  StoredCapacityReport,
  StoredDecision,
  StoredRecord,
  StoreStats,
} from './store/store.js';
