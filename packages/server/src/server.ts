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
  readPolicy,
  toHex,
  verifyPolicySignature,
} from '@wai-steering/wire';
import { nodeBackend } from '@wai-steering/wire/node';
import { SteeringApp, steeringRoutes } from './app.js';
import { ConfigError, fsProblem, type ServerConfig } from './config.js';
import { ConsoleActivity } from './console/activity.js';
import { consoleDistDir, readConsoleAssets } from './console/assets.js';
import { consoleRoutes } from './console/routes.js';
import { monotonicClock } from './engine/clock.js';
import { SteeringEngine } from './engine/engine.js';
import type { EngineMaterials } from './engine/types.js';
import { createHttpServer, listen } from './http.js';
import { SqliteStore } from './store/sqlite.js';

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
  readonly store: SqliteStore;
  /** Warnings found at start (a steering key that may not state some class, say). */
  readonly warnings: readonly string[];
  /**
   * Reads the key log file again and serves (and verifies ingest against) its head; rejects
   * with a {@link ConfigError} when it does not verify (the head in use stays).
   */
  reloadKeyLog(): Promise<void>;
  /** Stops listening, writes what is queued, closes the store. */
  close(): Promise<void>;
}

/** Extra options of {@link startServer}, for tests and embedding. */
export interface StartOptions {
  /** The room clock (µs since the epoch); the process's monotonic clock by default. */
  readonly clock?: () => bigint;
  readonly backend?: CryptoBackend;
  /** The built console's directory; `@wai-steering/console`'s `dist/` by default. */
  readonly consoleDir?: string;
}

function readBytes(path: string, field: string): Uint8Array {
  try {
    return new Uint8Array(readFileSync(path));
  } catch (e) {
    throw new ConfigError([`${field}: cannot read ${path}: ${fsProblem(e)}`]);
  }
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
  const policyBytes = readBytes(config.policy, 'policy');
  const room = openRoomFrom(roomBytes, keyLogBytes, backend, config.keyLog);
  const read = readPolicy(policyBytes);
  if (!read.ok) {
    // A policy config (YAML or JSON) named where its compiled WSP1 belongs: say how to compile it.
    const text = new TextDecoder().decode(policyBytes.subarray(0, 256));
    const looksLikeConfig =
      /\.(ya?ml|json)$/i.test(config.policy) || /^\s*(#|[a-z_]+\s*:|\{)/.test(text);
    throw new ConfigError([
      looksLikeConfig && !text.startsWith('WSP1')
        ? `policy: ${config.policy} is a policy config, not a signed policy (WSP1): compile it with \`wai-steer policy compile ${config.policy} --key KEY --out policy.wsp\` and name policy.wsp here`
        : `policy: ${config.policy} does not read (${read.refusal.message})`,
    ]);
  }
  const policy = read.value;
  if (!bytesEqual(policy.room, room.roomId)) {
    throw new ConfigError([
      `policy: the policy is of room ${toHex(policy.room)}, not ${toHex(room.roomId)}`,
    ]);
  }
  const badSig = verifyPolicySignature(policy, backend);
  if (badSig !== undefined) throw new ConfigError([`policy: ${badSig.reason}`]);
  const badSigner = checkSigner(room, policy.signer);
  if (badSigner !== undefined) {
    throw new ConfigError([`policy: its signer may not sign it (${badSigner.reason}, §3.5)`]);
  }
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
    policyDigest: digestOf(policy, backend),
    publicKey: pair.publicKey,
    secretKey: pair.secretKey,
    warnings,
  };
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
  const store = new SqliteStore(config.store.path, { synchronous: config.store.synchronous });
  const clock = options.clock ?? monotonicClock();
  const activity = new ConsoleActivity(materials.policy.pathways.length, {
    lag: { lagUs: materials.policy.lag_us, now: clock },
  });
  let engine: SteeringEngine;
  try {
    engine = await SteeringEngine.open({
      ...materials,
      store,
      backend,
      graceMs: config.sessions.grace,
      maxSessions: config.sessions.max,
      maxQueue: config.limits.maxQueue,
      clock,
      observer: activity,
    });
  } catch (e) {
    await store.close();
    throw e;
  }
  const app = new SteeringApp(engine, {
    maxRecordBytes: config.limits.maxRecordBytes,
    maxTargetBytes: config.limits.maxTargetBytes,
    routes: [
      ...steeringRoutes(engine),
      ...consoleRoutes(engine, activity, {
        enabled: config.console.enabled,
        auth: config.console.auth,
        ...consoleAssets(config, options),
      }),
    ],
  });
  const http = createHttpServer(app);
  let url: string;
  try {
    url = await listen(http, config.listen.host, config.listen.port);
  } catch (e) {
    await engine.close();
    await store.close();
    const code = (e as NodeJS.ErrnoException).code;
    throw new ConfigError([
      `listen: cannot listen on ${config.listen.host}:${config.listen.port} (${code ?? (e as Error).message})`,
    ]);
  }
  // Sessions: a pass over the table every 2 s at most (§6 loads); evidence index pruned.
  const sweeper = setInterval(() => engine.sweep(Math.ceil(engine.sessions.slots / 8)), 250);
  sweeper.unref();
  // The console's history: one sample a second.
  const sampler = setInterval(
    () => activity.sample(Number(engine.now() / 1_000_000n), engine.sessions.loads),
    1000,
  );
  sampler.unref();
  const pruner = setInterval(() => {
    engine.prune(config.retention.records, config.retention.decisions).catch((e: unknown) => {
      console.error('wai-steering: pruning failed:', e);
    });
  }, config.retention.sweep);
  pruner.unref();
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
    warnings,
    async reloadKeyLog(): Promise<void> {
      if (config.keyLog === null) return;
      const bytes = readBytes(config.keyLog, 'key_log');
      await engine.replaceRoom(openRoomFrom(m.roomBytes, bytes, backend, config.keyLog), bytes);
    },
    close(): Promise<void> {
      closing ??= new Promise<void>((resolve) => {
        clearInterval(sweeper);
        clearInterval(sampler);
        clearInterval(pruner);
        // Answer what is queued, then drop idle keep-alive connections.
        const drained = engine.close();
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
