/**
 * The schema of `wai-steer serve --config FILE` and its defaults: each mapping of the file, its
 * fields in snake_case, validated with zod, each error naming the rule broken (`expected an
 * integer from 1 to 65535`); the fields known by mapping (for did-you-mean) and the old
 * spellings still read.
 */
import { parseDuration } from '@wai-steering/config-text';
import { parseVerifierKey, SIGNATURE_TYPE } from '@wai-steering/tlog';
import { z } from 'zod';
import { DEFAULT_CONNECTION_LIMITS as CONN } from '../http.js';

/**
 * A readable duration in milliseconds, as the config reads it: a string with its unit
 * (`"500ms"`, `"10s"`, `"15m"`, `"12h"`, `"7d"`, `"2w"`; `parseDuration` of
 * `@wai-steering/config-text`, the one every hand-written file reads); a bare number (a YAML or
 * JSON number, or a string without a unit) is refused as everywhere, saying what to write. The
 * message of the rule broken when it does not read or is not whole in ms.
 */
export function readDurationMs(value: unknown): number | string {
  if (typeof value !== 'string' && typeof value !== 'number') {
    return 'expected a duration such as "500ms", "10s", "15m", "12h" or "7d"';
  }
  const ms = parseDuration(String(value), 'ms');
  if (typeof ms === 'string') return ms;
  return ms <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(ms) : `${value} is too long`;
}

/** {@link readDurationMs}, `undefined` when it does not read. */
export function durationMs(value: unknown): number | undefined {
  const ms = readDurationMs(value);
  return typeof ms === 'number' ? ms : undefined;
}

const DAY_MS = 86_400_000;

const duration = (what: string) =>
  z.union([z.string(), z.number()]).transform((v, ctx) => {
    const ms = readDurationMs(v);
    if (typeof ms === 'string') {
      ctx.addIssue({ code: 'custom', message: `${what}: ${ms}` });
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
    // Absent: 2 ms with `url` (PostgreSQL), 0 with `path` (server.ts).
    commit_delay: duration('how long a loaded group commit waits for more').optional(),
  })
  .strict()
  .refine((v) => (v.path === undefined) !== (v.url === undefined), {
    error: 'expected one of "path" (SQLite) and "url" (PostgreSQL)',
  });
const instancesSchema = z
  .object({
    heartbeat: duration('the interval of the loads heartbeat').default(250),
    drop_after: duration('how long a silent instance still counts').default(1000),
    name: z
      .string({ error: "expected this instance's name in its deployment (a string)" })
      .min(1, "expected this instance's name in its deployment")
      .max(200, 'expected a name of at most 200 characters')
      .nullable()
      .default(null),
    rotation_lead: z
      .union([z.literal('auto'), duration("how far ahead an operator's rotation is put in force")])
      .default('auto'),
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
    max: integer(1, 10_000_000).default(CONN.max),
    idle_timeout: duration('the idle timeout of a connection').default(CONN.idleTimeout),
    headers_timeout: duration('the time to receive request headers').default(CONN.headersTimeout),
    request_timeout: duration('the time to receive a whole request').default(CONN.requestTimeout),
    keep_alive_timeout: duration('the keep-alive timeout').default(CONN.keepAliveTimeout),
    max_pipelined: integer(1, 10_000).default(CONN.maxPipelined),
    max_unread_bytes: integer(1024, 1_073_741_824).default(CONN.maxUnreadBytes),
    per_turn: integer(1, 10_000).default(CONN.perTurn),
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
export const KNOWN: Readonly<Record<string, readonly string[]>> = {
  '': Object.keys(configSchema.shape),
  listen: Object.keys(listenSchema.shape),
  store: ['path', 'url', 'synchronous', 'create', 'check_timeout', 'commit_delay'],
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
