/**
 * The configuration of `wai-steer serve --config FILE`: a JSON or YAML file, validated with zod,
 * whose errors name the field and the rule broken (`listen.port: expected an integer from 1 to
 * 65535`). Paths are relative to the configuration file's directory.
 */
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
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

const UNITS: Readonly<Record<string, number>> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};

/**
 * A readable duration in milliseconds: `"500ms"`, `"10s"`, `"15m"`, `"12h"`, `"7d"`, `"2w"`, or
 * a bare number of seconds. `undefined` when it does not read.
 */
export function parseDuration(value: unknown): number | undefined {
  if (typeof value === 'number') {
    return Number.isFinite(value) && value >= 0 ? Math.round(value * 1000) : undefined;
  }
  if (typeof value !== 'string') return undefined;
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|w)\s*$/.exec(value);
  if (m === null) return undefined;
  const ms = Number(m[1]) * UNITS[m[2]!]!;
  return Number.isSafeInteger(Math.round(ms)) ? Math.round(ms) : undefined;
}

const duration = (what: string) =>
  z.union([z.string(), z.number()]).transform((v, ctx) => {
    const ms = parseDuration(v);
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

/** The file's schema (before paths are resolved). */
export const configSchema = z
  .object({
    room: path,
    keyLog: path.nullable().default(null),
    policy: path,
    signingKey: path,
    listen: z
      .object({
        host: z.string({ error: 'expected a host name or address' }).min(1).default('127.0.0.1'),
        port: integer(0, 65535).default(8080),
      })
      .strict()
      .prefault({}),
    store: z
      .object({
        path: z.string({ error: 'expected a file path or ":memory:"' }).min(1),
        synchronous: z
          .enum(['normal', 'full'], { error: 'expected "normal" or "full"' })
          .default('normal'),
      })
      .strict(),
    retention: z
      .object({
        records: duration('the retention of records').default(7 * UNITS.d!),
        decisions: duration('the retention of decisions').default(7 * UNITS.d!),
        sweep: duration('the interval between pruning passes').default(60_000),
      })
      .strict()
      .prefault({}),
    sessions: z
      .object({
        grace: duration('the grace after a decision TTL').default(10_000),
        max: integer(1, 100_000_000).default(8_000_000),
      })
      .strict()
      .prefault({}),
    limits: z
      .object({
        maxQueue: integer(1, 10_000_000).default(10_000),
        maxRecordBytes: integer(256, 1_048_576).default(4096),
        maxTargetBytes: integer(256, 1_048_576).default(8192),
      })
      .strict()
      .prefault({}),
    console: z
      .object({
        enabled: z.boolean({ error: 'expected true or false' }).default(true),
        auth: z
          .union(
            [
              z
                .object({
                  bearer: z
                    .string({ error: 'expected a token (a string)' })
                    .regex(
                      /^[\x21-\x7e]{16,}$/,
                      'expected a token of 16 or more visible ASCII characters',
                    ),
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
      .strict()
      .prefault({}),
  })
  .strict();

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
  readonly listen: { readonly host: string; readonly port: number };
  readonly store: {
    /** The SQLite file, or `:memory:` (nothing survives the process). */
    readonly path: string;
    /** `normal` survives a crash of the process (kill -9); `full` also a power loss. */
    readonly synchronous: 'normal' | 'full';
  };
  readonly retention: {
    readonly records: number;
    readonly decisions: number;
    readonly sweep: number;
  };
  readonly sessions: { readonly grace: number; readonly max: number };
  readonly limits: {
    readonly maxQueue: number;
    readonly maxRecordBytes: number;
    readonly maxTargetBytes: number;
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

function describeIssue(issue: z.core.$ZodIssue): string {
  const where = issue.path.length === 0 ? '(top level)' : issue.path.map(String).join('.');
  let message = issue.message;
  if (issue.code === 'unrecognized_keys') {
    message = `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `"${k}"`).join(', ')}`;
  } else if (issue.code === 'invalid_type' && /received undefined/.test(issue.message)) {
    message = `missing (${issue.message.replace(/^Invalid input: /, '')})`;
  }
  return `${where}: ${message}`;
}

/**
 * Validates a configuration object (as read from JSON or YAML) and resolves its paths against
 * `baseDir`. Throws a {@link ConfigError} naming each field that breaks a rule.
 */
export function parseConfig(input: unknown, baseDir: string = process.cwd()): ServerConfig {
  const parsed = configSchema.safeParse(input);
  if (!parsed.success) throw new ConfigError(parsed.error.issues.map(describeIssue));
  const c = parsed.data;
  const abs = (p: string): string => (isAbsolute(p) ? p : resolve(baseDir, p));
  return {
    room: abs(c.room),
    keyLog: c.keyLog === null ? null : abs(c.keyLog),
    policy: abs(c.policy),
    signingKey: abs(c.signingKey),
    listen: { host: c.listen.host, port: c.listen.port },
    store: {
      path: c.store.path === ':memory:' ? ':memory:' : abs(c.store.path),
      synchronous: c.store.synchronous,
    },
    retention: c.retention,
    sessions: c.sessions,
    limits: c.limits,
    console: c.console,
  };
}

/**
 * Reads a configuration file: YAML when its name ends in `.yaml` or `.yml`, JSON otherwise (YAML
 * is a superset of JSON, so a JSON file also reads as YAML; its errors are JSON's). Throws a
 * {@link ConfigError} whose message starts with the file's path.
 */
export function loadConfig(file: string): ServerConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new ConfigError(
      [`cannot read the file (${(e as NodeJS.ErrnoException).code ?? e})`],
      file,
    );
  }
  let input: unknown;
  try {
    input = /\.ya?ml$/i.test(file) ? parseYaml(text) : JSON.parse(text);
  } catch (e) {
    throw new ConfigError([`does not parse: ${(e as Error).message.split('\n')[0]}`], file);
  }
  try {
    return parseConfig(input, dirname(resolve(file)));
  } catch (e) {
    if (e instanceof ConfigError) throw new ConfigError(e.issues, file);
    throw e;
  }
}
