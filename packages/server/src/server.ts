/**
 * Starting the steering server from its configuration (`wai-steer serve --config FILE`): read and
 * check the room, key log, policy and steering key, open the store, listen.
 */
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { checkSigner, openRoom, type RoomContext } from '@wai-steering/verifier';
import {
  bytesEqual,
  CLASS_LABEL,
  type CryptoBackend,
  digestOf,
  jwkToKeyPair,
  type Policy,
  readKeyLog,
  readPolicy,
  toHex,
} from '@wai-steering/wire';
import { nodeBackend } from '@wai-steering/wire/node';
import { SteeringApp, steeringRoutes } from './app.js';
import { ConfigError, fsProblem, type ServerConfig } from './config.js';
import { ConsoleActivity } from './console/activity.js';
import { consoleDistDir, readConsoleAssets } from './console/assets.js';
import { consoleRoutes } from './console/routes.js';
import { monotonicClock } from './engine/clock.js';
import { SteeringEngine } from './engine/engine.js';
import { type CheckedPolicy, checkPolicy } from './engine/policy.js';
import type { EngineLiveOptions, EngineMaterials } from './engine/types.js';
import { ClientBudget } from './guard/budget.js';
import { checkClock } from './guard/clock.js';
import { type Head, stepHead } from './guard/key-log.js';
import { SessionMac } from './guard/session-mac.js';
import { Health } from './health.js';
import { createHttpServer, listen } from './http.js';
import type { IpcChannel } from './instances/loads.js';
import { type Linked, linkInstances } from './instances/start.js';
import { adminReload } from './routes/capacity.js';
import { openStore } from './store/open.js';
import { PgStore } from './store/postgres.js';
import { SqliteStore } from './store/sqlite.js';
import type { SteeringStore } from './store/store.js';

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
  /** Warnings found at start (a steering key that may not state some class, say). */
  readonly warnings: readonly string[];
  /**
   * Reads the key log file again and serves (and verifies ingest against) its head, when it
   * follows the head in use (`guard/key-log.ts`); `false` when the file holds the head in use.
   * Rejects with a {@link ConfigError} naming why a head is refused: it does not verify, or does
   * not move forward (the head in use stays).
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

/** What a reload put in force. */
export interface ReloadResult {
  /** The digest of the policy in force, hex. */
  readonly policy: string;
  /** Whether the policy file held another policy, now in force. */
  readonly changed: boolean;
  /** Whether the key log file held a new head, now in use. */
  readonly keyLog: boolean;
  readonly warnings: readonly string[];
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

/**
 * Opens the store of a configuration: PostgreSQL by `store.url`; SQLite by `store.path`, checked
 * at start (`store/open.ts`: created only when asked, `quick_check`, every error naming the path).
 */
export async function openConfiguredStore(
  config: ServerConfig,
  options: { readonly init?: boolean } = {},
): Promise<SteeringStore> {
  if (config.store.url !== undefined) {
    try {
      return await PgStore.open(config.store.url);
    } catch (e) {
      throw new ConfigError([`store.url: ${(e as Error).message}`]);
    }
  }
  return openStore(config.store.path ?? ':memory:', {
    synchronous: config.store.synchronous,
    create: config.store.create || options.init === true,
    checkTimeoutMs: config.store.checkTimeout,
  });
}

function readBytes(path: string, field: string): Uint8Array {
  try {
    return new Uint8Array(readFileSync(path));
  } catch (e) {
    throw new ConfigError([`${field}: cannot read ${path}: ${fsProblem(e)}`]);
  }
}

/** The session secret (`sessions.secret`): a file of at least 16 bytes. */
function readSecret(path: string): Uint8Array {
  const bytes = readBytes(path, 'sessions.secret');
  if (bytes.length < 16) {
    throw new ConfigError([
      `sessions.secret: ${path} holds ${bytes.length} bytes; a session secret is at least 16 random bytes`,
    ]);
  }
  return bytes;
}

/**
 * The configured key log head against the newest one the store kept (`guard/key-log.ts`): a
 * warning, or a {@link ConfigError} when the head would move back.
 */
async function checkStoredHead(
  store: SteeringStore,
  head: Head,
  backend: CryptoBackend,
): Promise<string | undefined> {
  let stored: Head | undefined;
  for (const bytes of (await store.keyLogHeads?.()) ?? []) {
    const read = readKeyLog(bytes);
    if (!read.ok) continue;
    if (stored === undefined || read.value.seq > stored.head.seq) {
      stored = { head: read.value, digest: digestOf(read.value, backend) };
    }
  }
  if (stored === undefined) return undefined;
  const step = stepHead(stored, head, 'warn');
  if (step.take) return step.warning;
  if (step.same) return undefined;
  throw new ConfigError([
    `key_log: the head is older than the one this store kept: ${step.why}; put the newest head back`,
  ]);
}

/** What the server serves under, read and checked, with what the reading warned of. */
export interface Materials extends EngineMaterials {
  readonly warnings: string[];
}

function openRoomFrom(
  roomBytes: Uint8Array,
  keyLogBytes: Uint8Array | null,
  backend: CryptoBackend,
  keyLogPath?: string | null,
): RoomContext {
  const opened = openRoom(roomBytes, keyLogBytes, { backend });
  if (!opened.ok) {
    const r = opened.refusal;
    // A key log file that does not read is the file's fault, not the room's: say which file.
    if (r.where.magic === 'WKL1' && (r.reason === 'malformed' || r.reason === 'truncated')) {
      throw new ConfigError([
        `key_log: ${keyLogPath ?? 'the key log'} is not a key log head (WKL1): ${r.reason}${r.where.field === undefined ? '' : ` at its ${r.where.field}`}${r.where.offset === undefined ? '' : `, offset ${r.where.offset}`} (give the file \`wai-steer keylog create\` or \`keylog add\` wrote)`,
      ]);
    }
    const field = r.where.magic === 'WKL1' || r.reason.startsWith('key_log') ? 'key_log' : 'room';
    throw new ConfigError([`${field}: the room does not verify (${r.reason}: ${r.message})`]);
  }
  return opened.value;
}

/**
 * Reads and checks the room (§9.1 step 1), the policy (§3: reads, is the room's, its signature
 * verifies and its signer may sign it, §3.5) and the steering key (§3.5: the room authority or a
 * `live/steer` key, not revoked). A key without some `energy/<label>` starts with a warning: a
 * decision stating a figure of that class would be refused `signer_not_authorised`.
 */
export function readMaterials(
  config: ServerConfig,
  backend: CryptoBackend = nodeBackend,
): Materials {
  const roomBytes = readBytes(config.room, 'room');
  const keyLogBytes = config.keyLog === null ? null : readBytes(config.keyLog, 'key_log');
  const room = openRoomFrom(roomBytes, keyLogBytes, backend, config.keyLog);
  const {
    policy,
    bytes: policyBytes,
    digest: policyDigest,
  } = readPolicyFile(config, room, backend);
  let jwk: unknown;
  try {
    jwk = JSON.parse(new TextDecoder().decode(readBytes(config.signingKey, 'signing_key')));
  } catch (e) {
    if (e instanceof ConfigError) throw e;
    throw new ConfigError([`signing_key: ${config.signingKey} is not JSON`]);
  }
  let pair: ReturnType<typeof jwkToKeyPair>;
  try {
    pair = jwkToKeyPair(jwk, backend);
  } catch (e) {
    throw new ConfigError([`signing_key: ${(e as Error).message}`]);
  }
  if (pair.secretKey === undefined) {
    throw new ConfigError(['signing_key: the JWK has no "d": a steering key must be a secret key']);
  }
  const badKey = checkSigner(room, pair.publicKey);
  if (badKey !== undefined) {
    throw new ConfigError([
      `signing_key: ${toHex(pair.publicKey)} may not sign decisions of this room (${badKey.reason}, §3.5)`,
    ]);
  }
  const warnings: string[] = [];
  if (room.keyLog !== undefined) {
    // Only the classes the room's pathways may state: those its hops may sign (C5.4).
    const stated = new Set<number>();
    for (const p of policy.pathways) {
      for (const h of p.hops) {
        const entry = room.entries.get(toHex(h.key));
        for (const cls of [2, 3, 4, 5]) {
          if (entry?.may_sign.includes(`energy/${CLASS_LABEL[cls]}`)) stated.add(cls);
        }
      }
    }
    for (const cls of [...stated].sort()) {
      if (checkSigner(room, pair.publicKey, [cls]) !== undefined) {
        warnings.push(
          `the steering key lacks energy/${CLASS_LABEL[cls]}: a decision stating a ${CLASS_LABEL[cls]} figure would be refused`,
        );
      }
    }
  }
  return {
    room,
    roomBytes,
    keyLogBytes,
    policy,
    policyBytes,
    policyDigest,
    publicKey: pair.publicKey,
    secretKey: pair.secretKey,
    warnings,
  };
}

/** The configuration's policy file, checked against the room (`engine/policy.ts`). */
function readPolicyFile(
  config: ServerConfig,
  room: RoomContext,
  backend: CryptoBackend,
): CheckedPolicy {
  const policyBytes = readBytes(config.policy, 'policy');
  const checked = checkPolicy(room, policyBytes, backend);
  if (checked.ok) return checked.value;
  if (!readPolicy(policyBytes).ok) {
    // A policy config (YAML or JSON) named where its compiled WSP1 belongs: say how to compile it.
    const text = new TextDecoder().decode(policyBytes.subarray(0, 256));
    const looksLikeConfig =
      /\.(ya?ml|json)$/i.test(config.policy) || /^\s*(#|[a-z_]+\s*:|\{)/.test(text);
    if (looksLikeConfig && !text.startsWith('WSP1')) {
      throw new ConfigError([
        `policy: ${config.policy} is a policy config, not a signed policy (WSP1): compile it with \`wai-steer policy compile ${config.policy} --key KEY --out policy.wsp\` and name policy.wsp here`,
      ]);
    }
  }
  throw new ConfigError([`policy: ${config.policy}: ${checked.problem}`]);
}

/** The engine's live options from the configuration: pathway IDs to indices, checked. */
function liveOptions(config: ServerConfig, policy: Policy): EngineLiveOptions | undefined {
  const live = config.live;
  if (live === null) return undefined;
  const ids = policy.pathways.map((p) => p.id);
  const pathways = new Set<number>();
  for (const id of live.pathways === 'all' ? ids : live.pathways) {
    const i = ids.indexOf(id);
    if (i < 0) {
      throw new ConfigError([
        `live.pathways: "${id}" is no pathway of the policy (its pathways: ${ids.join(', ')})`,
      ]);
    }
    pathways.add(i);
  }
  return {
    pathways,
    capacityThresholdPpm: live.capacityThresholdPpm,
    latencyThresholdMs: live.latencyThresholdMs,
    maxAheadUs: BigInt(live.maxAhead) * 1000n,
  };
}

/**
 * A key log head another instance kept: served and used from now on when it verifies for the
 * room and moves forward from the one in use (`guard/key-log.ts`: a greater `seq` whose `prev` is
 * the digest of the one in use); otherwise ignored.
 */
function adoptKeyLog(
  engine: SteeringEngine,
  roomBytes: Uint8Array,
  bytes: Uint8Array,
  backend: CryptoBackend,
): void {
  const opened = openRoom(roomBytes, bytes, { backend });
  if (!opened.ok || opened.value.keyLog === undefined) return;
  const current = engine.keyLog;
  if (current !== undefined) {
    const step = stepHead(
      { head: current, digest: digestOf(current, backend) },
      { head: opened.value.keyLog, digest: digestOf(opened.value.keyLog, backend) },
      'refuse',
    );
    if (!step.take) return;
  }
  engine.replaceRoom(opened.value, bytes).catch((e: unknown) => {
    console.error('wai-steering: a key log head from another instance was not adopted:', e);
  });
}

/** The built console's files, when the console is on. */
function consoleAssets(config: ServerConfig, options: StartOptions) {
  if (!config.console.enabled) return {};
  const dir = options.consoleDir ?? consoleDistDir();
  return dir === undefined ? {} : { assets: readConsoleAssets(dir) };
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
  const { warnings, ...materials } = m;
  const live = liveOptions(config, materials.policy);
  const sessionMac = new SessionMac(
    config.sessions.secret === null ? undefined : readSecret(config.sessions.secret),
  );
  const store = await openConfiguredStore(config, options.init === true ? { init: true } : {});
  const clock = options.clock ?? monotonicClock();
  const health = new Health(options.log === undefined ? {} : { log: options.log });
  const activity = new ConsoleActivity(materials.policy.pathways.length, {
    lag: { lagUs: materials.policy.lag_us, now: clock },
  });
  let engine: SteeringEngine;
  let head: Head | undefined;
  let instances: Linked;
  try {
    const now = clock();
    const newest = (await store.newest?.(now)) ?? { decision: undefined, record: undefined };
    checkClock(now, newest, {
      ...config.time,
      trust: config.time.trust || options.trustClock === true,
    });
    head =
      m.room.keyLog === undefined
        ? undefined
        : { head: m.room.keyLog, digest: digestOf(m.room.keyLog, backend) };
    if (head !== undefined) {
      const warning = await checkStoredHead(store, head, backend);
      if (warning !== undefined) warnings.push(warning);
    }
    const b = config.budget;
    engine = await SteeringEngine.open({
      ...materials,
      store,
      backend,
      graceMs: config.sessions.grace,
      maxSessions: config.sessions.max,
      maxQueue: config.limits.maxQueue,
      clock,
      sessionMac,
      health,
      newest,
      horizon: {
        maxAheadMs: config.records.maxAhead,
        retentionMs: config.retention.records,
        maxPerPeriod: config.records.maxPerPeriod,
      },
      ...(b.requests.rate > 0 || b.sessions.rate > 0
        ? {
            budget: new ClientBudget({
              requests: b.requests,
              sessions: b.sessions,
              trustedProxies: b.trustedProxies,
              maxClients: b.maxClients,
            }),
          }
        : {}),
      observer: activity,
      ...(live === undefined ? {} : { live }),
    });
    instances = await linkInstances(engine, store, {
      heartbeatMs: config.instances?.heartbeat ?? 250,
      dropAfterMs: config.instances?.dropAfter ?? 1000,
      ...(options.worker === undefined ? {} : { worker: options.worker }),
      onKeyLog: (bytes) => adoptKeyLog(engine, m.roomBytes, bytes, backend),
    });
  } catch (e) {
    await store.close();
    throw e;
  }
  // The key log file again: a head is taken only if it moves forward (companion C4: a greater
  // `seq` whose `prev` is the digest of the one in use); otherwise the one in use stays.
  const reloadKeyLog = async (): Promise<boolean> => {
    if (config.keyLog === null) return false;
    const bytes = readBytes(config.keyLog, 'key_log');
    const room = openRoomFrom(m.roomBytes, bytes, backend, config.keyLog);
    if (room.keyLog === undefined) return false;
    const next: Head = { head: room.keyLog, digest: digestOf(room.keyLog, backend) };
    if (head !== undefined) {
      const step = stepHead(head, next, 'refuse');
      if (!step.take) {
        if (step.same) return false;
        throw new ConfigError([`key_log: the head in ${config.keyLog} was not taken: ${step.why}`]);
      }
    }
    await engine.replaceRoom(room, bytes);
    head = next;
    return true;
  };
  // The policy file again (SIGHUP, the admin route): a policy of another room, or one that does
  // not verify or whose signer may not sign it, is refused and the one in force stays.
  const reloadPolicy = async (): Promise<boolean> => {
    const checked = readPolicyFile(config, engine.room, backend);
    // The file's policy in force already, or the template of the live policy in force.
    if (bytesEqual(checked.digest, engine.templateDigest)) return false;
    if (config.live !== null) liveOptions(config, checked.policy); // its IDs still fit
    await engine.rotatePolicy(checked.bytes, 'operator');
    return true;
  };
  const reload = async (): Promise<ReloadResult> => {
    const keyLog = await reloadKeyLog();
    const changed = await reloadPolicy();
    return { policy: toHex(engine.policyDigest), changed, keyLog, warnings: [] };
  };
  const routes = steeringRoutes(engine);
  if (config.admin !== null) {
    routes.push({
      name: 'admin',
      methods: ['POST'],
      allow: 'POST, OPTIONS',
      match: (path) => (path === '/admin/reload' ? '' : undefined),
      handler: adminReload(config.admin.token, reload),
    });
  }
  const peers = instances.peers;
  if (peers !== undefined) {
    engine.metrics.gauge(
      'wai_steering_peer_load',
      "Each pathway's load at the live peers (other instances or workers), added to this one's.",
      () => engine.policy.pathways.map((p, i) => [{ pathway: p.id }, peers.peers[i] ?? 0] as const),
    );
    engine.metrics.gauge('wai_steering_peers', 'Live peers as of the latest heartbeat.', () => [
      [{}, peers.livePeers],
    ]);
  }
  const app = new SteeringApp(engine, {
    maxRecordBytes: config.limits.maxRecordBytes,
    maxTargetBytes: config.limits.maxTargetBytes,
    maxCmcdBytes: config.limits.maxCmcdBytes,
    routes: [
      ...routes,
      ...consoleRoutes(engine, activity, {
        enabled: config.console.enabled,
        auth: config.console.auth,
        ...consoleAssets(config, options),
      }),
    ],
  });
  const http = createHttpServer(app, { connections: config.connections });
  let url: string;
  try {
    url = await listen(http, config.listen.host, config.listen.port);
  } catch (e) {
    await instances.stop();
    await engine.close();
    await store.close();
    const code = (e as NodeJS.ErrnoException).code;
    throw new ConfigError([
      `listen: cannot listen on ${config.listen.host}:${config.listen.port} (${code ?? (e as Error).message})`,
    ]);
  }
  // Sessions: a pass over the table every 2 s at most (§6 loads); evidence index pruned.
  let ticks = 0;
  const sweeper = setInterval(() => {
    engine.sweep(Math.ceil(engine.sessions.slots / 8));
    // Once a second: the policy another instance put in force and the site reports it took (a
    // notification missed is healed here), then live capacity: a report's expiry passing may
    // call for a policy (CATS's age-out).
    if (++ticks % 4 === 0) {
      engine.syncLive().catch((e: unknown) => {
        console.error('wai-steering: keeping the live policy failed:', e);
      });
    }
  }, 250);
  sweeper.unref();
  // The console's history: one sample a second.
  const sampler = setInterval(
    () =>
      activity.sample(
        Number(engine.now() / 1_000_000n),
        engine.sessions.loadsAt(Number(engine.now())),
      ),
    1000,
  );
  sampler.unref();
  // Failures are the engine's to count and log once (health.ts).
  const pruner = setInterval(() => {
    void engine.prune(config.retention.records, config.retention.decisions);
  }, config.retention.sweep);
  pruner.unref();
  // The store file removed or replaced while running: health 503, steering 503, logged once (a
  // file store's concern; PostgreSQL's failures show as failing commits).
  const watcher =
    store instanceof SqliteStore
      ? setInterval(() => engine.noteStoreFile(store.fileState()), options.watchMs ?? 1000)
      : undefined;
  watcher?.unref();
  let closing: Promise<void> | undefined;
  if (config.console.enabled && config.console.auth === null && !isLoopback(config.listen.host)) {
    warnings.push(
      'the console (/status, /console/) is on without auth on a non-loopback address: set console.auth or console.enabled: false',
    );
  }
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
    warnings,
    reloadKeyLog,
    reload,
    close(): Promise<void> {
      closing ??= new Promise<void>((resolve) => {
        clearInterval(sweeper);
        clearInterval(sampler);
        clearInterval(pruner);
        if (watcher !== undefined) clearInterval(watcher);
        // Answer what is queued, then drop idle keep-alive connections.
        const drained = engine.close().finally(() => instances.stop());
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
