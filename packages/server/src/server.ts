/**
 * Starting the steering server from its configuration (`wai-steer serve --config FILE`): a short
 * composition of named steps — read and check the room, key log, policy and steering key
 * (`start/materials.ts`); open the store and check the clock and the key log head against it;
 * open the engine, starting; begin or join the decision log (`log/`); build the route table once;
 * listen (`/healthz` says `starting`, steering answers 503); rebuild the session table from the
 * store (`engine/rebuild.ts`); link it to the other instances; wait for the clock to pass the
 * newest decision stored; then decide, and start the periodic work (`start/timers.ts`) and the
 * log's integrator. A worker of `serve --workers N` listens only once it decides (the others
 * take the connections meanwhile).
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
import { EnergyGauges } from './energy/gauges.js';
import { EnergyService } from './energy/service.js';
import { monotonicClock } from './engine/clock.js';
import { PG_COMMIT_DELAY_MS } from './engine/commit.js';
import { SteeringEngine } from './engine/engine.js';
import { ClientBudget } from './guard/budget.js';
import { checkClock } from './guard/clock.js';
import { SessionMac } from './guard/session-mac.js';
import { Health } from './health.js';
import { createHttpServer, listen } from './http.js';
import {
  type InstanceIdentity,
  pgIdentity,
  sqliteIdentity,
  type WorkerSlot,
  workerSlotOf,
} from './instances/identity.js';
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
import { secretBeside } from './start/session-secret.js';
import { startTimers } from './start/timers.js';
import { openConfiguredStore } from './store/open.js';
import { PgStore } from './store/postgres/index.js';
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
  /** The console's Energy page (`<url>/console/energy`), `null` when the console is off. */
  readonly energyUrl: string | null;
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
  /**
   * Its place among the workers (`instances/identity.ts`), with `worker`; by default the one
   * `runWorkers` gave it in its environment (`WAI_WORKER_SLOT`, `WAI_WORKERS`).
   */
  readonly workerSlot?: WorkerSlot;
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
  return SteeringEngine.open({
    ...materials,
    store,
    backend,
    graceMs: config.sessions.grace,
    maxSessions: config.sessions.max,
    maxQueue: config.limits.maxQueue,
    commitDelayMs:
      config.store.commitDelay ?? (config.store.url !== undefined ? PG_COMMIT_DELAY_MS : 0),
    clock,
    sessionMac: new SessionMac(await sessionSecret(config, store)),
    starting: true,
    rotationLeadUs: BigInt(rotationLeadMs(config, store, options)) * 1000n,
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

/**
 * The session secret: the configured one (`sessions.secret`), or one the store keeps
 * (`start/session-secret.ts`); `undefined` (one of this process) for a store in memory.
 */
async function sessionSecret(
  config: ServerConfig,
  store: SteeringStore,
): Promise<Uint8Array | undefined> {
  const configured = config.sessions.secret;
  if (configured !== null) return readSecret(configured);
  if (store instanceof PgStore) return store.sessionSecret();
  const path = config.store.path;
  return path === undefined || path === ':memory:' ? undefined : secretBeside(path);
}

/**
 * How far ahead an operator's rotation is put in force (`instances.rotation_lead`): `auto`, 0
 * for a server alone on its SQLite file (no other instance to tell), otherwise
 * {@link ROTATION_LEAD_MS}.
 */
function rotationLeadMs(config: ServerConfig, store: SteeringStore, options: StartOptions): number {
  const lead = config.instances?.rotationLead ?? 'auto';
  if (lead !== 'auto') return lead;
  return store instanceof PgStore || options.worker !== undefined ? ROTATION_LEAD_MS : 0;
}

/**
 * The lead of an operator's rotation on a shared store, ms: three times the second at which
 * every instance reads the order of policies again (a notification missed, a read or two late,
 * still leaves it a second), and decisions wait for a read once the last is 1.5 s old.
 */
export const ROTATION_LEAD_MS = 3000;

/** Which instance this process is, by its store (`instances/identity.ts`). */
function identityOf(config: ServerConfig, slot: WorkerSlot | undefined): InstanceIdentity {
  return config.store.url !== undefined
    ? pgIdentity(config.instances?.name ?? null, config.listen.port, slot)
    : sqliteIdentity(slot);
}

/** Resolves once the room clock is past `t` (µs), or `boundMs` from now, whichever comes first. */
function clockPast(clock: () => bigint, t: bigint | undefined, boundMs: number): Promise<void> {
  const until = Date.now() + boundMs;
  return new Promise((resolve) => {
    const check = (): void => {
      const ahead = t === undefined ? -1n : t - clock();
      if (ahead < 0n || Date.now() >= until) resolve();
      else setTimeout(check, Math.min(Number(ahead / 1000n) + 1, until - Date.now()));
    };
    check();
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
  const slot =
    options.worker === undefined ? undefined : (options.workerSlot ?? workerSlotOf(process.env));
  const identity = identityOf(config, slot);
  const store = await openConfiguredStore(config, {
    ...(options.init === true ? { init: true } : {}),
    instance: identity.id,
  });
  const clock = options.clock ?? monotonicClock();
  const activity = new ConsoleActivity(m.policy.pathways.length, {
    lag: { lagUs: m.policy.lag_us, now: clock },
  });
  let engine: SteeringEngine;
  let reloader: Reloader;
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
    ...(slot === undefined ? {} : { worker: slot.index }),
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
  let instances: Linked | undefined;
  const abandon = async (e: unknown): Promise<never> => {
    await instances?.stop();
    await engine.close();
    await log.stop();
    if (http.listening) await new Promise((done) => http.close(done));
    await store.close();
    throw e;
  };
  const listening = async (): Promise<string> => {
    try {
      return await listen(http, config.listen.host, config.listen.port);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      throw new ConfigError([
        `listen: cannot listen on ${config.listen.host}:${config.listen.port} (${code ?? (e as Error).message})`,
      ]);
    }
  };
  // A server alone listens at once, answering `/healthz` with `starting` until it decides; a
  // worker of `serve --workers N` only once it decides (the others take the connections).
  const early = options.worker === undefined;
  let url = '';
  try {
    if (early) url = await listening();
    // The sessions of its decisions before this start (`engine/rebuild.ts`), then its loads
    // published to (and the others' read from) the other instances, then the clock past the
    // newest decision stored (a decision is never stored before one of an earlier start).
    const rebuilt = await engine.rebuildSessions(identity.mine);
    instances = await linkInstances(engine, store, {
      heartbeatMs: config.instances?.heartbeat ?? 250,
      dropAfterMs: config.instances?.dropAfter ?? 1000,
      name: identity.name,
      ...(options.worker === undefined ? {} : { worker: options.worker }),
      onKeyLog: (bytes) => reloader.adoptKeyLog(bytes),
    });
    await instances.settled;
    await clockPast(clock, rebuilt.newest, config.time.tolerance);
    if (!early) url = await listening();
    if (rebuilt.sessions > 0) {
      (options.log ?? ((line: string) => process.stderr.write(`${line}\n`)))(
        `wai-steering: ${rebuilt.sessions} sessions rebuilt from ${rebuilt.decisions} decisions stored`,
      );
    }
  } catch (e) {
    return abandon(e);
  }
  const linked = instances;
  engine.ready();
  const timers = startTimers(config, engine, store, activity, options);
  log.start();
  const energyGauges = new EnergyGauges(energy, engine.metrics, {
    periodMs: () => Number(engine.policy.period_us / 1000n),
    ...(options.log === undefined ? {} : { log: options.log }),
  });
  energyGauges.start();
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
    energyUrl: config.console.enabled ? `${url}/console/energy` : null,
    activity,
    engine,
    app,
    http,
    store,
    instances: linked,
    log,
    warnings,
    reloadKeyLog: () => reloader.keyLog(),
    reload: () => reloader.reload(),
    close(): Promise<void> {
      closing ??= new Promise<void>((resolve) => {
        timers.stop();
        energyGauges.stop();
        // Answer what is queued, then drop idle keep-alive connections. The log's integrator
        // gives up its lease, for another instance to take at once.
        const drained = engine
          .close()
          .finally(() => linked.stop())
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
