/**
 * Starting the steering server from its configuration (`wai-steer serve --config FILE`): a short
 * composition of named steps — read and check the room, key log, policy and steering key
 * (`start/materials.ts`); open the store and check the clock and the key log head against it;
 * open the engine; link it to the other instances; begin or join the decision log (`log/`);
 * build the route table once; listen; start the periodic work (`start/timers.ts`) and the log's
 * integrator.
 */
import type { Server } from 'node:http';
import { ed25519Signer } from '@wai-steering/tlog';
import type { CryptoBackend } from '@wai-steering/wire';
import { digestOf } from '@wai-steering/wire';
import { nodeBackend } from '@wai-steering/wire/node';
import { SteeringApp } from './app.js';
import { ConfigError } from './config/errors.js';
import type { ServerConfig } from './config/read.js';
import { ConsoleActivity } from './console/activity.js';
import { consoleDistDir, readConsoleAssets } from './console/assets.js';
import { ConsoleRoutes, engineStatusSource } from './console/routes.js';
import { EnergyService } from './energy/service.js';
import { monotonicClock } from './engine/clock.js';
import { SteeringEngine } from './engine/engine.js';
import { ClientBudget } from './guard/budget.js';
import { checkClock } from './guard/clock.js';
import { SessionMac } from './guard/session-mac.js';
import { Health } from './health.js';
import { createHttpServer, listen } from './http.js';
import type { IpcChannel } from './instances/ipc-loads.js';
import { type Linked, linkInstances } from './instances/start.js';
import { DecisionLog } from './log/log.js';
import { buildRoutes } from './routes/table.js';
import {
  checkStoredHead,
  liveOptions,
  type Materials,
  readMaterials,
  readSecret,
} from './start/materials.js';
import { Reloader, type ReloadResult } from './start/reload.js';
import { startTimers } from './start/timers.js';
import { openConfiguredStore } from './store/open.js';
import type { SteeringStore } from './store/store.js';

export type { ReloadResult } from './start/reload.js';

/** A running server. */
export interface RunningServer {
  /** Where it listens, `http://host:port`. */
  readonly url: string;
  /** The operator console's page (`<url>/console/`), `null` when the console is off. */
  readonly consoleUrl: string | null;
  /** The console's verifier page (`<url>/console/verify`), `null` when the console is off. */
  readonly verifyUrl: string | null;
  /** What the console shows over time: recent decisions, ingest tallies, 15 minutes of samples. */
  readonly activity: ConsoleActivity;
  /** The engine: sessions, evidence, decisions, the store. */
  readonly engine: SteeringEngine;
  /** The HTTP side: the route table over the engine. */
  readonly app: SteeringApp;
  readonly http: Server;
  /** `SqliteStore` (`store.path`) or `PgStore` (`store.url`). */
  readonly store: SteeringStore;
  /** The link to the other instances or workers of the deployment, when there are any. */
  readonly instances: Linked;
  /** The decision log: its origin, vkey, integrator, reader and witnesses. */
  readonly log: DecisionLog;
  /** Warnings found at start (a steering key that may not state some class, say). */
  readonly warnings: readonly string[];
  /**
   * Reads the key log file again and serves (and verifies ingest against) its head, when it
   * follows the head in use (`guard/key-log.ts`); `false` when the file holds the head in use.
   * Rejects with a {@link ConfigError} naming why a head is refused.
   */
  reloadKeyLog(): Promise<boolean>;
  /**
   * Reads the key log file and the policy file again (SIGHUP, `POST /admin/reload`): a new
   * policy is put in force, sessions and loads kept; rejects with a {@link ConfigError} when one
   * is refused (what is in force stays).
   */
  reload(): Promise<ReloadResult>;
  /** Stops listening, writes what is queued, closes the store. */
  close(): Promise<void>;
}

/** Extra options of {@link startServer}, for tests and embedding. */
export interface StartOptions {
  /** The room clock (µs since the epoch); the process's monotonic clock by default. */
  readonly clock?: () => bigint;
  readonly backend?: CryptoBackend;
  /** Create the store when it does not exist (`wai-steer serve --init`), as `store.create`. */
  readonly init?: boolean;
  /** Start whatever the clock says against the store (`--trust-clock`), as `time.trust`. */
  readonly trustClock?: boolean;
  /** How often the store file is checked (ms, default 1000). */
  readonly watchMs?: number;
  /** Where degraded and recovered lines go (stderr by default). */
  readonly log?: (line: string) => void;
  /** The built console's directory; `@wai-steering/console`'s `dist/` by default. */
  readonly consoleDir?: string;
  /**
   * In a worker process of `serve --workers N`: the channel to the primary, which relays the
   * workers' loads and records (`process` in a `node:cluster` worker).
   */
  readonly worker?: IpcChannel;
}

/** The clock against the store (`guard/clock.ts`), and the newest instants it holds. */
async function checkStoreClock(
  config: ServerConfig,
  store: SteeringStore,
  clock: () => bigint,
  options: StartOptions,
) {
  const now = clock();
  const newest = (await store.newest?.(now)) ?? { decision: undefined, record: undefined };
  checkClock(now, newest, {
    ...config.time,
    trust: config.time.trust || options.trustClock === true,
  });
  return newest;
}

/** The configured key log head against the store's newest (a warning, or a refusal). */
async function checkKeyLogHead(
  m: Materials,
  store: SteeringStore,
  backend: CryptoBackend,
): Promise<void> {
  const head = m.room.keyLog;
  if (head === undefined) return;
  const warning = await checkStoredHead(store, { head, digest: digestOf(head, backend) }, backend);
  if (warning !== undefined) m.warnings.push(warning);
}

/** The engine of a configuration over its store. */
async function openEngine(
  config: ServerConfig,
  m: Materials,
  store: SteeringStore,
  clock: () => bigint,
  activity: ConsoleActivity,
  options: StartOptions,
  backend: CryptoBackend,
): Promise<SteeringEngine> {
  const newest = await checkStoreClock(config, store, clock, options);
  await checkKeyLogHead(m, store, backend);
  const { warnings: _, ...materials } = m;
  const live = liveOptions(config, m.policy);
  const secret = config.sessions.secret;
  return SteeringEngine.open({
    ...materials,
    store,
    backend,
    graceMs: config.sessions.grace,
    maxSessions: config.sessions.max,
    maxQueue: config.limits.maxQueue,
    clock,
    sessionMac: new SessionMac(secret === null ? undefined : readSecret(secret)),
    health: new Health(options.log === undefined ? {} : { log: options.log }),
    newest,
    horizon: {
      maxAheadMs: config.records.maxAhead,
      retentionMs: config.retention.records,
      maxPerPeriod: config.records.maxPerPeriod,
    },
    observer: activity,
    ...(live === undefined ? {} : { live }),
  });
}

/** The per-client budgets of the configuration, when any is on. */
function clientBudget(config: ServerConfig, engine: SteeringEngine): ClientBudget | undefined {
  const b = config.budget;
  if (b.requests.rate <= 0 && b.sessions.rate <= 0) return undefined;
  return new ClientBudget({
    requests: b.requests,
    sessions: b.sessions,
    trustedProxies: b.trustedProxies,
    maxClients: b.maxClients,
    onRefused: (budget) => engine.metrics.budgetRefused.inc({ budget }),
  });
}

/** The console's answers, when the console is on. */
function consoleOf(
  config: ServerConfig,
  engine: SteeringEngine,
  activity: ConsoleActivity,
  options: StartOptions,
): ConsoleRoutes | undefined {
  if (!config.console.enabled) return undefined;
  const dir = options.consoleDir ?? consoleDistDir();
  return new ConsoleRoutes(
    {
      enabled: true,
      auth: config.console.auth,
      ...(dir === undefined ? {} : { assets: readConsoleAssets(dir) }),
    },
    engineStatusSource(engine, activity),
  );
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host.startsWith('127.');
}

/** Starts the steering server of a configuration (see `loadConfig`). */
export async function startServer(
  config: ServerConfig,
  options: StartOptions = {},
): Promise<RunningServer> {
  const backend = options.backend ?? nodeBackend;
  const m = readMaterials(config, backend);
  const store = await openConfiguredStore(config, options.init === true ? { init: true } : {});
  const clock = options.clock ?? monotonicClock();
  const activity = new ConsoleActivity(m.policy.pathways.length, {
    lag: { lagUs: m.policy.lag_us, now: clock },
  });
  let engine: SteeringEngine;
  let reloader: Reloader;
  let instances: Linked;
  let log: DecisionLog;
  try {
    engine = await openEngine(config, m, store, clock, activity, options, backend);
    reloader = new Reloader(config, engine, m.roomBytes, backend);
    log = await DecisionLog.open({
      store,
      config,
      secretKey: m.secretKey,
      backend,
      clock,
      health: engine.health,
      metrics: engine.metrics,
      ...(options.log === undefined ? {} : { log: options.log }),
    });
    instances = await linkInstances(engine, store, {
      heartbeatMs: config.instances?.heartbeat ?? 250,
      dropAfterMs: config.instances?.dropAfter ?? 1000,
      ...(options.worker === undefined ? {} : { worker: options.worker }),
      onKeyLog: (bytes) => reloader.adoptKeyLog(bytes),
    });
  } catch (e) {
    await store.close();
    throw e;
  }
  const consoleRoutes = consoleOf(config, engine, activity, options);
  // The energy account's statements are signed as the log's checkpoints are.
  const energy = new EnergyService({
    engine,
    store,
    signer: ed25519Signer(log.origin, m.secretKey, backend),
  });
  const routes = buildRoutes({
    engine,
    log: log.reader,
    energy,
    ...(config.admin === null
      ? {}
      : { admin: { token: config.admin.token, reload: () => reloader.reload() } }),
    ...(consoleRoutes === undefined ? {} : { console: consoleRoutes }),
  });
  const budget = clientBudget(config, engine);
  const app = new SteeringApp(engine, {
    maxRecordBytes: config.limits.maxRecordBytes,
    maxTargetBytes: config.limits.maxTargetBytes,
    maxCmcdBytes: config.limits.maxCmcdBytes,
    routes,
    ...(budget === undefined ? {} : { budget }),
  });
  const http = createHttpServer(app, { connections: config.connections });
  let url: string;
  try {
    url = await listen(http, config.listen.host, config.listen.port);
  } catch (e) {
    await instances.stop();
    await engine.close();
    await log.stop();
    await store.close();
    const code = (e as NodeJS.ErrnoException).code;
    throw new ConfigError([
      `listen: cannot listen on ${config.listen.host}:${config.listen.port} (${code ?? (e as Error).message})`,
    ]);
  }
  const timers = startTimers(config, engine, store, activity, options);
  log.start();
  const warnings = m.warnings;
  if (config.console.enabled && config.console.auth === null && !isLoopback(config.listen.host)) {
    warnings.push(
      'the console (/status, /console/) is on without auth on a non-loopback address: set console.auth or console.enabled: false',
    );
  }
  let closing: Promise<void> | undefined;
  return {
    url,
    consoleUrl: config.console.enabled ? `${url}/console/` : null,
    verifyUrl: config.console.enabled ? `${url}/console/verify` : null,
    activity,
    engine,
    app,
    http,
    store,
    instances,
    log,
    warnings,
    reloadKeyLog: () => reloader.keyLog(),
    reload: () => reloader.reload(),
    close(): Promise<void> {
      closing ??= new Promise<void>((resolve) => {
        timers.stop();
        // Answer what is queued, then drop idle keep-alive connections. The log's integrator
        // gives up its lease, for another instance to take at once.
        const drained = engine
          .close()
          .finally(() => instances.stop())
          .finally(() => log.stop());
        http.close(() => {
          drained
            .then(
              () => store.close(),
              () => store.close(),
            )
            .then(resolve, resolve);
        });
        setImmediate(() => {
          http.closeIdleConnections();
          setTimeout(() => http.closeAllConnections(), 2000).unref();
        });
      });
      return closing;
    },
  };
}
