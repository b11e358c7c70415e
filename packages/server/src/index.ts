// @wai-steering/server: the energy-aware content steering server — HTTP, durable store, loads
// and sessions, ingest of per-hop records, metrics — and verification from the network alone.

export {
  type AppOptions,
  type AppRequest,
  type AppResponse,
  monotonicClock,
  pathOfUri,
  protocolOf,
  SteeringApp,
  sessionOf,
  splitTarget,
} from './app.js';
export { CommitQueue, type CommitQueueOptions } from './commit.js';
export {
  ConfigError,
  configSchema,
  loadConfig,
  parseConfig,
  parseDuration,
  type ServerConfig,
} from './config.js';
export { type DemoOptions, type RunningDemo, runDemo } from './demo/run.js';
export { type DemoHop, type DemoSetup, type DemoSetupOptions, setupDemo } from './demo/setup.js';
export { HopSimulator, type SimulatorOptions } from './demo/simulator.js';
export { createHttpServer, type HttpOptions, listen } from './http.js';
export { type ListingResponse, listDecisions, MAX_LIST } from './listing.js';
export { METRICS_MEDIA_TYPE, Metrics } from './metrics.js';
export {
  type Materials,
  type RunningServer,
  readMaterials,
  type StartOptions,
  startServer,
} from './server.js';
export { SessionTable, type SessionTableOptions } from './sessions.js';
export { type CompactDecision, joinDecision, splitDecision } from './store/compact.js';
export { SqliteStore, type SqliteStoreOptions } from './store/sqlite.js';
export type {
  BlobKind,
  CommitBatch,
  CommitResult,
  DecisionPage,
  ListedDecision,
  PruneResult,
  SteeringStore,
  StoredRecord,
  StoreStats,
} from './store/store.js';
export {
  type FetchAndVerifyOptions,
  FetchError,
  type FetchedVerification,
  fetchAndVerify,
  fetchAndVerifyDetailed,
} from './verify-url.js';
