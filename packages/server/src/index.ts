// @wai-steering/server: the energy-aware content steering server — the steering engine
// (sessions and loads, evidence, signed decisions, the durable store), its HTTP routes, and
// starting it from a configuration. The demo room and simulated hops are in
// `@wai-steering/server/testkit`.

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
  ConfigError,
  configSchema,
  loadConfig,
  parseConfig,
  parseDuration,
  type ServerConfig,
} from './config.js';
export { monotonicClock } from './engine/clock.js';
export { SteeringEngine } from './engine/engine.js';
export type {
  DecideRequest,
  DecideResult,
  EngineMaterials,
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
export { METRICS_MEDIA_TYPE, Metrics } from './metrics.js';
export {
  type Materials,
  openStore,
  type RunningServer,
  readMaterials,
  type StartOptions,
  startServer,
} from './server.js';
export type { SessionTable } from './sessions.js';
export { MIGRATIONS, SCHEMA_VERSION } from './store/pg-migrations.js';
export { PgStore, type PgStoreOptions, type StoreNotice } from './store/postgres.js';
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
