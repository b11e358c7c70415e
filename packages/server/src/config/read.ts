/**
 * The configuration of `wai-steer serve --config FILE`: a JSON or YAML file, validated against
 * its schema (`schema.ts`), whose errors name the field and the rule broken
 * (`listen.port: expected an integer from 1 to 65535`). Paths are relative to the configuration
 * file's directory.
 */
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import {
  didYouMean,
  notAMapping,
  parseProblem,
  readStrictJson,
  renameAliases,
} from '@wai-steering/config-text';
import { parse as parseYaml } from 'yaml';
import type { z } from 'zod';
import type { ConnectionLimits } from '../http.js';
import { ConfigError, fsProblem } from './errors.js';
import { ALIASES, configSchema, KNOWN } from './schema.js';

/** The configuration as read, durations in milliseconds, paths absolute. */
export interface ServerConfig {
  /** Path of the room descriptor `WRD1`. */
  readonly room: string;
  /** Path of the current key log head `WKL1`; `null` when the room names no origin. */
  readonly keyLog: string | null;
  /** Path of the signed steering policy `WSP1`. */
  readonly policy: string;
  /** Path of the steering key, an RFC 8037 Ed25519 JWK with `d`. */
  readonly signingKey: string;
  /**
   * The URL players reach the server at, when it is not the listen address (behind a proxy or a
   * load balancer): `https://steer.example.com`. `wai-steer serve` checks the policy's URIs
   * against it; absent, against the listen address.
   */
  readonly publicUrl?: string | null;
  readonly listen: { readonly host: string; readonly port: number };
  readonly store: {
    /**
     * The SQLite file, or `:memory:` (nothing survives the process); absent when `url` names a
     * PostgreSQL database.
     */
    readonly path?: string;
    /** A PostgreSQL database shared by the instances of a deployment (`postgres://…`). */
    readonly url?: string;
    /** `normal` survives a crash of the process (kill -9); `full` also a power loss. */
    readonly synchronous: 'normal' | 'full';
    /** Create a new store when the path does not exist (otherwise that is an error). */
    readonly create: boolean;
    /** ms SQLite's `quick_check` may take at start; 0 skips it. */
    readonly checkTimeout: number;
    /**
     * ms a loaded server's group commit waits for more (`engine/commit.ts`); 0 never waits.
     * Absent: 2 on PostgreSQL, 0 on SQLite.
     */
    readonly commitDelay?: number;
  };
  /** The clock at start against the store (ms). */
  readonly time: {
    /** How far before the newest stored decision the clock may be. */
    readonly tolerance: number;
    /** How far after the newest stored decision (or record) the clock may be. */
    readonly maxGap: number;
    /** Start whatever the clock says against the store (`--trust-clock`). */
    readonly trust: boolean;
  };
  /** The records' horizon (`guard/horizon.ts`). */
  readonly records: { readonly maxAhead: number; readonly maxPerPeriod: number };
  /** Per-client budgets (`guard/budget.ts`); a rate of 0 turns a budget off. */
  readonly budget: {
    readonly trustedProxies: readonly string[];
    readonly requests: { readonly rate: number; readonly burst: number };
    readonly sessions: { readonly rate: number; readonly burst: number };
    readonly maxClients: number;
  };
  /** Connection limits (`http.ts`), durations in ms. */
  readonly connections: ConnectionLimits;
  readonly retention: {
    readonly records: number;
    readonly decisions: number;
    readonly sweep: number;
  };
  readonly sessions: {
    readonly grace: number;
    readonly max: number;
    /** A file of at least 16 bytes, the session secret of a deployment; `null`: one per process. */
    readonly secret: string | null;
  };
  /**
   * Live capacity from the sites (`POST /capacity`, `docs/live-policy.md`); `null`: off. The
   * policy file is the template.
   */
  readonly live: {
    /** The pathway IDs that take live values, or `all`. */
    readonly pathways: 'all' | readonly string[];
    readonly capacityThresholdPpm: number;
    readonly latencyThresholdMs: number;
    /** ms. */
    readonly maxAhead: number;
    /** How far after its `t` a report may expire, ms; `null` or absent: ten periods of the policy. */
    readonly maxExpiry?: number | null;
  } | null;
  /** The admin route `POST /admin/reload` and its bearer token; `null`: no admin route. */
  readonly admin: { readonly token: string } | null;
  /** Loads across instances (a PostgreSQL store) or workers (`serve --workers N`). */
  readonly instances?: {
    /** The heartbeat that publishes this instance's loads, ms (default 250). */
    readonly heartbeat: number;
    /** A peer whose latest heartbeat is older than this no longer counts, ms (default 1000). */
    readonly dropAfter: number;
    /**
     * This instance's name in its deployment, stable across its restarts (a PostgreSQL store;
     * `instances/identity.ts`); `null` or absent: the host's name and the configured port.
     */
    readonly name?: string | null;
    /**
     * How far ahead of the room clock an operator's rotation is put in force, ms
     * (`engine/policy-in-force.ts`); `auto` or absent: 0 for a server alone on its SQLite file,
     * otherwise 3 s.
     */
    readonly rotationLead?: number | 'auto';
  };
  readonly limits: {
    readonly maxQueue: number;
    readonly maxRecordBytes: number;
    readonly maxTargetBytes: number;
    readonly maxCmcdBytes: number;
  };
  /**
   * The decision log (`docs/server.md`, *The decision log*): its origin (`null`: the public URL
   * without its scheme, then `/log`, or the store's when the log has begun), the interval between
   * checkpoints and the bound on a decision's wait for one (ms), and its witnesses.
   */
  readonly log?: {
    readonly origin: string | null;
    readonly interval: number;
    readonly maxDelay: number;
    readonly witnesses: readonly { readonly url: string; readonly vkey: string }[];
  };
  /** The operator console (`/status`, `/console/`): on by default, unprotected by default. */
  readonly console: {
    readonly enabled: boolean;
    readonly auth:
      | { readonly bearer: string }
      | { readonly basic: { readonly user: string; readonly password: string } }
      | null;
  };
}

function fieldPath(path: readonly PropertyKey[]): string {
  return path.length === 0 ? '(top level)' : path.map(String).join('.');
}

function describeIssue(issue: z.core.$ZodIssue): string[] {
  if (issue.code === 'unrecognized_keys') {
    // One line per unknown field, each with the known field it is most likely meant to be.
    const known = KNOWN[issue.path.map(String).join('.')] ?? [];
    return issue.keys.map(
      (k) => `${fieldPath([...issue.path, k])}: unknown field${didYouMean(k, known)}`,
    );
  }
  let message = issue.message;
  if (issue.code === 'invalid_type' && /received undefined/.test(issue.message)) {
    message = `missing (${issue.message.replace(/^Invalid input: /, '')})`;
  }
  return [`${fieldPath(issue.path)}: ${message}`];
}

/** A configuration as read, with the warnings of its reading (an old spelling, say). */
export interface ReadConfig {
  readonly config: ServerConfig;
  readonly warnings: readonly string[];
}

/**
 * Validates a configuration object (as read from JSON or YAML) and resolves its paths against
 * `baseDir`, with the warnings of its reading. Throws a {@link ConfigError} naming every field
 * that breaks a rule, unknown fields first (each with the known field it is most likely meant
 * to be).
 */
export function readConfig(input: unknown, baseDir: string = process.cwd()): ReadConfig {
  const top = notAMapping(input);
  if (top !== undefined) throw new ConfigError([top]);
  const renamed = renameAliases(input, ALIASES);
  const parsed = configSchema.safeParse(renamed.input);
  if (!parsed.success || renamed.issues.length > 0) {
    const all = parsed.success ? [] : parsed.error.issues;
    const unknown = all.filter((i) => i.code === 'unrecognized_keys').flatMap(describeIssue);
    const rest = all.filter((i) => i.code !== 'unrecognized_keys').flatMap(describeIssue);
    throw new ConfigError([...unknown, ...renamed.issues, ...rest]);
  }
  const c = parsed.data;
  const abs = (p: string): string => (isAbsolute(p) ? p : resolve(baseDir, p));
  const config: ServerConfig = {
    room: abs(c.room),
    keyLog: c.key_log === null ? null : abs(c.key_log),
    policy: abs(c.policy),
    signingKey: abs(c.signing_key),
    publicUrl: c.public_url,
    listen: { host: c.listen.host, port: c.listen.port },
    store: {
      ...(c.store.url !== undefined
        ? { url: c.store.url }
        : { path: c.store.path === ':memory:' ? ':memory:' : abs(c.store.path!) }),
      synchronous: c.store.synchronous,
      create: c.store.create,
      checkTimeout: c.store.check_timeout,
      ...(c.store.commit_delay === undefined ? {} : { commitDelay: c.store.commit_delay }),
    },
    instances: {
      heartbeat: c.instances.heartbeat,
      dropAfter: c.instances.drop_after,
      name: c.instances.name,
      rotationLead: c.instances.rotation_lead,
    },
    time: { tolerance: c.time.tolerance, maxGap: c.time.max_gap, trust: c.time.trust },
    records: { maxAhead: c.records.max_ahead, maxPerPeriod: c.records.max_per_period },
    budget: {
      trustedProxies: c.budget.trusted_proxies,
      requests: c.budget.requests,
      sessions: c.budget.sessions,
      maxClients: c.budget.max_clients,
    },
    connections: {
      max: c.connections.max,
      idleTimeout: c.connections.idle_timeout,
      headersTimeout: c.connections.headers_timeout,
      requestTimeout: c.connections.request_timeout,
      keepAliveTimeout: c.connections.keep_alive_timeout,
      maxPipelined: c.connections.max_pipelined,
      maxUnreadBytes: c.connections.max_unread_bytes,
      perTurn: c.connections.per_turn,
    },
    retention: c.retention,
    sessions: { ...c.sessions, secret: c.sessions.secret === null ? null : abs(c.sessions.secret) },
    live:
      c.live === null
        ? null
        : {
            pathways: c.live.pathways,
            capacityThresholdPpm: c.live.capacity_threshold_ppm,
            latencyThresholdMs: c.live.latency_threshold_ms,
            maxAhead: c.live.max_ahead,
            maxExpiry: c.live.max_expiry,
          },
    admin: c.admin,
    limits: {
      maxQueue: c.limits.max_queue,
      maxRecordBytes: c.limits.max_record_bytes,
      maxTargetBytes: c.limits.max_target_bytes,
      maxCmcdBytes: c.limits.max_cmcd_bytes,
    },
    console: c.console,
    log: {
      origin: c.log.origin,
      interval: c.log.interval,
      maxDelay: c.log.max_delay,
      witnesses: c.log.witnesses,
    },
  };
  return { config, warnings: renamed.warnings };
}

/** {@link readConfig} without its warnings. */
export function parseConfig(input: unknown, baseDir: string = process.cwd()): ServerConfig {
  return readConfig(input, baseDir).config;
}

/**
 * Reads a configuration file: YAML when its name ends in `.yaml` or `.yml`, JSON otherwise (YAML
 * is a superset of JSON, so a JSON file also reads as YAML; its errors are JSON's), with the
 * warnings of its reading. Throws a {@link ConfigError} whose message starts with the file's
 * path.
 */
export function readConfigFile(file: string): ReadConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new ConfigError([`cannot read the file: ${fsProblem(e, false)}`], file);
  }
  let input: unknown;
  if (/\.ya?ml$/i.test(file)) {
    try {
      input = parseYaml(text);
    } catch (e) {
      throw new ConfigError([`does not parse: ${parseProblem(e, text)}`], file);
    }
  } else {
    // JSON strictly: a name given twice is refused (YAML refuses a key given twice itself).
    const read = readStrictJson(text);
    if (!read.ok) throw new ConfigError([`does not parse: ${read.problem}`], file);
    input = read.value;
  }
  try {
    return readConfig(input, dirname(resolve(file)));
  } catch (e) {
    if (e instanceof ConfigError) throw new ConfigError(e.issues, file);
    throw e;
  }
}

/** {@link readConfigFile} without its warnings. */
export function loadConfig(file: string): ServerConfig {
  return readConfigFile(file).config;
}
