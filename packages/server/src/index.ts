// @wai-steering/server: the energy-aware content steering server — HTTP, durable store, loads
// and sessions, ingest of per-hop records, metrics — and verification from the network alone.

export {
  ConfigError,
  configSchema,
  loadConfig,
  parseConfig,
  parseDuration,
  type ServerConfig,
} from './config.js';
export {
  readMaterials,
  startServer,
  type Materials,
  type RunningServer,
  type StartOptions,
} from './server.js';
export {
  SteeringApp,
  monotonicClock,
  pathOfUri,
  protocolOf,
  sessionOf,
  splitTarget,
  type AppOptions,
  type AppRequest,
  type AppResponse,
} from './app.js';
export { createHttpServer, listen, type HttpOptions } from './http.js';
export { CommitQueue, type CommitQueueOptions } from './commit.js';
export { SessionTable, type SessionTableOptions } from './sessions.js';
export { Metrics, METRICS_MEDIA_TYPE } from './metrics.js';
export type {
  BlobKind,
  CommitBatch,
  CommitResult,
  PruneResult,
  SteeringStore,
  StoreStats,
  StoredRecord,
} from './store/store.js';
export { SqliteStore, type SqliteStoreOptions } from './store/sqlite.js';
export { joinDecision, splitDecision, type CompactDecision } from './store/compact.js';
export {
  FetchError,
  fetchAndVerify,
  fetchAndVerifyDetailed,
  type FetchAndVerifyOptions,
  type FetchedVerification,
} from './verify-url.js';
export { runDemo, type DemoOptions, type RunningDemo } from './demo/run.js';
export { setupDemo, type DemoHop, type DemoSetup, type DemoSetupOptions } from './demo/setup.js';
export { HopSimulator, type SimulatorOptions } from './demo/simulator.js';
