// @wai-steering/server: the energy-aware content steering server. What an embedder needs: start a
// server from its configuration (`startServer`, `loadConfig`), or open the steering engine over a
// store and put its route table behind a door of one's own (`SteeringEngine`, `SteeringApp`,
// `createHttpServer`), and the stores (SQLite, PostgreSQL). The demo room, simulated hops and a
// throwaway PostgreSQL cluster are in `@wai-steering/server/testkit`.

export { type AppOptions, SteeringApp } from './app.js';
export { ConfigError } from './config/errors.js';
export {
  loadConfig,
  parseConfig,
  type ReadConfig,
  readConfigFile,
  type ServerConfig,
} from './config/read.js';
export { monotonicClock } from './engine/clock.js';
export { SteeringEngine } from './engine/engine.js';
export type {
  CapacityResult,
  DecideRequest,
  DecideResult,
  EngineLiveOptions,
  EngineMaterials,
  EngineObserver,
  EngineOptions,
  IngestResult,
  KeyLogResult,
  ListingResult,
  Overloaded,
  PolicyRotated,
  ReadResult,
  RecordOutside,
  RecordRefused,
  RecordStored,
  Steered,
  StoreDamaged,
  StoredRead,
  StoreUnavailable,
} from './engine/types.js';
export { type ClockCheckOptions, checkClock } from './guard/clock.js';
export { createHttpServer, type HttpOptions } from './http.js';
export { type RunningWorkers, runWorkers, type WorkersOptions } from './instances/workers.js';
export { DecisionLog, type DecisionLogOptions, defaultLogOrigin } from './log/log.js';
export {
  type LogSigning,
  planIntegration,
  type WriterMemo,
  writerBackend,
  writerHashReady,
} from './log/plan.js';
export {
  LogReader,
  type LogReaderOptions,
  type ProofAnswer,
  type TileAnswer,
} from './log/reader.js';
export type { WitnessStatus } from './log/witnesses.js';
export type { AppRequest, AppResponse, Route, RouteContext } from './routes/types.js';
export {
  type ReloadResult,
  type RunningServer,
  type StartOptions,
  startServer,
} from './server.js';
export {
  type CheckedMaterials,
  checkMaterials,
  checkStoredHead,
  type Materials,
  readMaterials,
} from './start/materials.js';
export { type OpenStoreOptions, openConfiguredStore, openStore } from './store/open.js';
export { PgStore, type PgStoreOptions } from './store/postgres/index.js';
export { SqliteStore, type SqliteStoreOptions } from './store/sqlite/index.js';
export {
  type CommitBatch,
  type CommitResult,
  type DecisionCursor,
  type DecisionPage,
  type ListedDecision,
  type LogEntryRow,
  type LogHead,
  type LogIntegrated,
  type LogPlan,
  type LogPlanInput,
  type LogReads,
  type LogWrites,
  type PruneResult,
  type SteeringStore,
  StoreDamagedError,
  type StoredCheckpoint,
  type StoredDecision,
  type StoredRecord,
  StoreUnavailableError,
} from './store/store.js';
export type { CommitTrace, RequestTrace, WorkTrace } from './trace.js';
