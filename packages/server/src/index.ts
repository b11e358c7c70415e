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
  DecideRequest,
  DecideResult,
  EngineMaterials,
  EngineObserver,
  EngineOptions,
  IngestResult,
  KeyLogResult,
  Overloaded,
  ReadResult,
  RecordRefused,
  RecordStored,
  Steered,
} from './engine/types.js';
export { createHttpServer, type HttpOptions, listen } from './http.js';
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
  type RunningServer,
  readMaterials,
  type StartOptions,
  startServer,
} from './server.js';
export type { SessionTable } from './sessions.js';
export { SqliteStore, type SqliteStoreOptions } from './store/sqlite.js';
export type {
  BlobKind,
  CommitBatch,
  CommitResult,
  PruneResult,
  SteeringStore,
  StoredDecision,
  StoredRecord,
  StoreStats,
} from './store/store.js';
