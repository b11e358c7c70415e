/**
 * The configuration of `wai-steer serve --config FILE`: a JSON or YAML file, validated with zod,
 * whose errors name the field and the rule broken (`listen.port: expected an integer from 1 to
 * 65535`). Paths are relative to the configuration file's directory.
 */
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import {
  didYouMean,
  notAMapping,
  parseDuration,
  parseProblem,
  renameAliases,
} from '@wai-steering/config-text';
import { parseVerifierKey, SIGNATURE_TYPE } from '@wai-steering/tlog';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';

/** A configuration that does not read or breaks a rule; the message names each field. */
export class ConfigError extends Error {
  readonly issues: readonly string[];
  constructor(issues: readonly string[], prefix?: string) {
    super(prefix === undefined ? issues.join('\n') : `${prefix}: ${issues.join('\n')}`);
    this.name = 'ConfigError';
    this.issues = issues;
  }
}

/**
 * A file-system error in words, with the fix: what `cannot read FILE: …` says. Paths of the
 * config are relative to its directory.
 */
export function fsProblem(e: unknown, inConfig = true): string {
  const code = (e as NodeJS.ErrnoException | null)?.code;
  switch (code) {
    case 'ENOENT':
      return inConfig
        ? "no such file or directory (ENOENT; the config's paths are relative to its directory)"
        : 'no such file or directory (ENOENT)';
    case 'EACCES':
    case 'EPERM':
      return `permission denied (${code}): make it readable by the user the server runs as`;
    case 'EISDIR':
      return 'is a directory (EISDIR): name a file';
    case 'ENOTDIR':
      return 'a part of the path is not a directory (ENOTDIR)';
    default:
      return code ?? (e instanceof Error ? e.message.split('\n')[0]! : String(e));
  }
}

/**
 * A readable duration in milliseconds, as the config reads it: a string with its unit
 * (`"500ms"`, `"10s"`, `"15m"`, `"12h"`, `"7d"`, `"2w"`; `parseDuration` of
 * `@wai-steering/config-text`, the one every hand-written file reads), or a bare number of
 * seconds (a YAML or JSON number). `undefined` when it does not read or is not whole in ms.
 */
export function durationMs(value: unknown): number | undefined {
  if (typeof value === 'number') {
    const ms = value * 1000;
    return Number.isSafeInteger(ms) && ms >= 0 ? ms : undefined;
  }
  if (typeof value !== 'string') return undefined;
  const ms = parseDuration(value, 'ms');
  return typeof ms === 'bigint' && ms <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(ms) : undefined;
}

const DAY_MS = 86_400_000;

const duration = (what: string) =>
  z.union([z.string(), z.number()]).transform((v, ctx) => {
    const ms = durationMs(v);
    if (ms === undefined) {
      ctx.addIssue({
        code: 'custom',
        message: `expected ${what}: a duration such as "500ms", "10s", "15m", "12h" or "7d"`,
      });
      return z.NEVER;
    }
    return ms;
  });

const path = z.string({ error: 'expected a file path (a string)' }).min(1, 'expected a file path');

const integer = (min: number, max: number) =>
  z
    .number({ error: `expected an integer from ${min} to ${max}` })
    .int(`expected an integer from ${min} to ${max}`)
    .min(min, `expected an integer from ${min} to ${max}`)
    .max(max, `expected an integer from ${min} to ${max}`);

const publicUrl = z
  .string({ error: 'expected an http or https URL' })
  .refine((v) => /^https?:\/\/[^/\s]+/.test(v) && URL.canParse(v), 'expected an http or https URL');

const listenSchema = z
  .object({
    host: z.string({ error: 'expected a host name or address' }).min(1).default('127.0.0.1'),
    port: integer(0, 65535).default(8080),
  })
  .strict();
const storeSchema = z
  .object({
    path: z.string({ error: 'expected a file path or ":memory:"' }).min(1).optional(),
    url: z
      .string({ error: 'expected a PostgreSQL URL, postgres://user@host:port/database' })
      .regex(/^postgres(ql)?:\/\/\S+$/, {
        error: 'expected a PostgreSQL URL, postgres://user@host:port/database',
      })
      .optional(),
    synchronous: z
      .enum(['normal', 'full'], { error: 'expected "normal" or "full"' })
      .default('normal'),
    create: z.boolean({ error: 'expected true or false' }).default(false),
    check_timeout: duration("the bound on the store's check at start").default(60_000),
  })
  .strict()
  .refine((v) => (v.path === undefined) !== (v.url === undefined), {
    error: 'expected one of "path" (SQLite) and "url" (PostgreSQL)',
  });
const instancesSchema = z
  .object({
    heartbeat: duration('the interval of the loads heartbeat').default(250),
    drop_after: duration('how long a silent instance still counts').default(1000),
  })
  .strict();
const timeSchema = z
  .object({
    tolerance: duration('how far the clock may be before the newest stored decision').default(5000),
    max_gap: duration('how far the clock may be after the newest stored decision').default(DAY_MS),
    trust: z.boolean({ error: 'expected true or false' }).default(false),
  })
  .strict();
const recordsSchema = z
  .object({
    max_ahead: duration('how far after the room clock a record may end').default(60_000),
    max_per_period: integer(1, 1000).default(4),
  })
  .strict();
const bucket = (rate: number, burst: number) =>
  z
    .object({
      rate: z
        .number({ error: 'expected a number of tokens a second (0: no budget)' })
        .min(0, 'expected a number of tokens a second (0: no budget)')
        .default(rate),
      burst: integer(1, 100_000_000).default(burst),
    })
    .strict();
const budgetSchema = z
  .object({
    trusted_proxies: z
      .array(z.string({ error: 'expected an address' }).min(1), {
        error: 'expected a list of addresses',
      })
      .default([]),
    requests: bucket(50, 200).prefault({}),
    sessions: bucket(2, 20).prefault({}),
    max_clients: integer(1, 100_000_000).default(100_000),
  })
  .strict();
const connectionsSchema = z
  .object({
    max: integer(1, 10_000_000).default(10_000),
    idle_timeout: duration('the idle timeout of a connection').default(30_000),
    headers_timeout: duration('the time to receive request headers').default(10_000),
    request_timeout: duration('the time to receive a whole request').default(30_000),
    keep_alive_timeout: duration('the keep-alive timeout').default(65_000),
    max_pipelined: integer(1, 10_000).default(16),
    max_unread_bytes: integer(1024, 1_073_741_824).default(262_144),
    per_turn: integer(1, 10_000).default(4),
  })
  .strict();
const retentionSchema = z
  .object({
    records: duration('the retention of records').default(7 * DAY_MS),
    decisions: duration('the retention of decisions').default(7 * DAY_MS),
    sweep: duration('the interval between pruning passes').default(60_000),
  })
  .strict();
const sessionsSchema = z
  .object({
    grace: duration('the grace after a decision TTL').default(10_000),
    max: integer(1, 100_000_000).default(8_000_000),
    secret: path.nullable().default(null),
  })
  .strict();
const liveSchema = z
  .object({
    pathways: z
      .union([z.literal('all'), z.array(z.string().min(1)).min(1)], {
        error: 'expected "all" or a list of pathway IDs',
      })
      .default('all'),
    capacity_threshold_ppm: integer(0, 1_000_000).default(100_000),
    latency_threshold_ms: integer(0, 0xffff_ffff).default(10),
    max_ahead: duration('how far ahead of the room clock a report may be dated').default(5000),
    // null: ten periods of the policy (known once the policy is read).
    max_expiry: duration('how far after its t a report may expire').nullable().default(null),
  })
  .strict();
/**
 * A key name of signed-note (the log's origin is its key's name): non-empty, no Unicode space, no
 * `+`, no control character.
 */
export function isLogOrigin(v: string): boolean {
  return v.length > 0 && !/[\s+\p{Cc}]/u.test(v);
}

const logOrigin = z
  .string({ error: "expected the log's name, such as steer.example.com/log" })
  .refine(
    isLogOrigin,
    'expected the log\'s name: no space and no "+", such as steer.example.com/log',
  );
const witnessSchema = z
  .object({
    url: publicUrl,
    vkey: z
      .string({ error: "expected a witness's vkey, <name>+<key ID>+<key>" })
      .superRefine((v, ctx) => {
        const read = parseVerifierKey(v);
        if (!read.ok) {
          ctx.addIssue({ code: 'custom', message: `not a vkey (${read.refusal.message})` });
        } else if (read.value.type !== SIGNATURE_TYPE.cosignatureV1) {
          ctx.addIssue({
            code: 'custom',
            message: `a witness's vkey is of type 0x04 (tlog-cosignature, Ed25519), this one 0x${read.value.type.toString(16).padStart(2, '0')}`,
          });
        }
      }),
  })
  .strict();
const logObject = z
  .object({
    origin: logOrigin.nullable().default(null),
    interval: duration('the interval between checkpoints')
      .refine((ms) => ms >= 10, 'expected the interval between checkpoints: 10ms or more')
      .default(1000),
    max_delay: duration("the bound on a decision's wait for a checkpoint").default(2000),
    witnesses: z
      .array(witnessSchema, { error: 'expected a list of witnesses, each {url, vkey}' })
      .default([]),
  })
  .strict();
const logSchema = logObject.refine((v) => v.max_delay > v.interval, {
  error:
    'max_delay must be longer than interval (a decision may wait an interval for the integrator)',
  path: ['max_delay'],
});

/** A bearer token, as the admin route and the console ask for it (`guard/auth.ts`). */
const bearerToken = () =>
  z
    .string({ error: 'expected a token (a string)' })
    .regex(/^[\x21-\x7e]{16,}$/, 'expected a token of 16 or more visible ASCII characters');
const adminSchema = z.object({ token: bearerToken() }).strict();
const limitsSchema = z
  .object({
    max_queue: integer(1, 10_000_000).default(10_000),
    max_record_bytes: integer(256, 1_048_576).default(4096),
    max_target_bytes: integer(256, 1_048_576).default(8192),
    max_cmcd_bytes: integer(64, 65_536).default(1024),
  })
  .strict();

/** The operator console (docs/console.md): on or off, and who may read its data. */
const consoleSchema = z
  .object({
    enabled: z.boolean({ error: 'expected true or false' }).default(true),
    auth: z
      .union(
        [
          z
            .object({
              bearer: bearerToken(),
            })
            .strict(),
          z
            .object({
              basic: z
                .object({
                  user: z
                    .string({ error: 'expected a user name' })
                    .regex(/^[^:\x00-\x1f]{1,128}$/, 'expected 1 to 128 characters, no ":"'),
                  password: z
                    .string({ error: 'expected a password' })
                    .min(12, 'expected a password of 12 or more characters'),
                })
                .strict(),
            })
            .strict(),
        ],
        { error: 'expected {"bearer": TOKEN} or {"basic": {"user": …, "password": …}}' },
      )
      .nullable()
      .default(null),
  })
  .strict();

/**
 * The file's schema (before paths are resolved), its fields in snake_case as the policy YAML's
 * (docs/decisions.md, "One naming style"); the camelCase spellings of earlier releases are read
 * as aliases, with a warning (see {@link ALIASES}).
 */
export const configSchema = z
  .object({
    room: path,
    key_log: path.nullable().default(null),
    policy: path,
    signing_key: path,
    public_url: publicUrl.nullable().default(null),
    listen: listenSchema.prefault({}),
    store: storeSchema,
    time: timeSchema.prefault({}),
    records: recordsSchema.prefault({}),
    budget: budgetSchema.prefault({}),
    connections: connectionsSchema.prefault({}),
    instances: instancesSchema.prefault({}),
    retention: retentionSchema.prefault({}),
    sessions: sessionsSchema.prefault({}),
    live: liveSchema.nullable().default(null),
    admin: adminSchema.nullable().default(null),
    limits: limitsSchema.prefault({}),
    console: consoleSchema.prefault({}),
    log: logSchema.prefault({}),
  })
  .strict();

/** The fields each mapping of the file knows, by the mapping's path (`''` the top level). */
const KNOWN: Readonly<Record<string, readonly string[]>> = {
  '': Object.keys(configSchema.shape),
  listen: Object.keys(listenSchema.shape),
  store: ['path', 'url', 'synchronous', 'create', 'check_timeout'],
  instances: Object.keys(instancesSchema.shape),
  time: Object.keys(timeSchema.shape),
  records: Object.keys(recordsSchema.shape),
  budget: Object.keys(budgetSchema.shape),
  'budget.requests': ['rate', 'burst'],
  'budget.sessions': ['rate', 'burst'],
  connections: Object.keys(connectionsSchema.shape),
  retention: Object.keys(retentionSchema.shape),
  sessions: Object.keys(sessionsSchema.shape),
  live: Object.keys(liveSchema.shape),
  admin: Object.keys(adminSchema.shape),
  limits: Object.keys(limitsSchema.shape),
  console: Object.keys(consoleSchema.shape),
  log: Object.keys(logObject.shape),
};

/**
 * The spellings of earlier releases, read for one more release with a warning: the mapping's
 * path, the old field, the field it now is.
 */
export const ALIASES: readonly (readonly [string, string, string])[] = [
  ['', 'keyLog', 'key_log'],
  ['', 'signingKey', 'signing_key'],
  ['', 'publicUrl', 'public_url'],
  ['limits', 'maxQueue', 'max_queue'],
  ['limits', 'maxRecordBytes', 'max_record_bytes'],
  ['limits', 'maxTargetBytes', 'max_target_bytes'],
];

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
  readonly connections: {
    readonly max: number;
    readonly idleTimeout: number;
    readonly headersTimeout: number;
    readonly requestTimeout: number;
    readonly keepAliveTimeout: number;
    readonly maxPipelined: number;
    readonly maxUnreadBytes: number;
    readonly perTurn: number;
  };
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
    },
    instances: { heartbeat: c.instances.heartbeat, dropAfter: c.instances.drop_after },
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
  try {
    input = /\.ya?ml$/i.test(file) ? parseYaml(text) : JSON.parse(text);
  } catch (e) {
    throw new ConfigError([`does not parse: ${parseProblem(e, text)}`], file);
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
