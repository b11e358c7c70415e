/**
 * The agent's configuration (`hop.yaml`), validated with zod: an error names the field and the
 * rule it breaks (`energy.url: expected an http(s) URL`), an unknown field the known one it is
 * most likely meant to be. Its fields are in snake_case, as the server's config and the policy
 * YAML (docs/decisions.md, "One naming style"); the camelCase spellings of earlier releases are
 * read as aliases, with a warning (see {@link HOP_CONFIG_ALIASES}). Once read, the configuration's
 * properties are camelCase, as the rest of the agent's. Paths are relative to the file's
 * directory. {@link createHopAgent} reads the files it names and builds the agent.
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
import type { RoomContext } from '@wai-steering/verifier';
import { CLASS, readPolicy } from '@wai-steering/wire';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { type CutRecord, HopAgent, type HopAgentOptions } from './agent.js';
import { CapacityReporter } from './capacity.js';
import { modelSource } from './energy/model.js';
import { ENERGY_PRESETS, prometheusEnergySource } from './energy/prometheus.js';
import { raplSource } from './energy/rapl.js';
import { type EnergySource, unmetered } from './energy/source.js';
import { isWhole, parseDecimal } from './internal/decimal.js';
import { type HopKey, hopKeyFromJwk, openHopRoom } from './keys.js';
import { nginxLogSource, type Route } from './traffic/nginx-log.js';
import { prometheusTrafficSource } from './traffic/prometheus.js';
import { noTraffic, type TrafficSource } from './traffic/source.js';
import { AgentConfigError, SourceError } from './types.js';

/**
 * A duration field: a string with its unit, read by the one duration parser (`2s`, `500ms`,
 * `1.5s`, `1m`, `7d`, …), or a bare number of seconds; whole µs.
 */
const duration = (what: string) =>
  z.union([z.string(), z.number()]).transform((v, ctx) => {
    const us =
      typeof v === 'number'
        ? Number.isSafeInteger(v) && v >= 0
          ? BigInt(v) * 1_000_000n
          : 'expected whole seconds of 0 or above'
        : parseDuration(v, 'us');
    const problem = typeof us === 'string' ? us : us >= 1n << 64n ? 'above 2^64 − 1 µs' : undefined;
    if (problem !== undefined) {
      ctx.addIssue({ code: 'custom', message: `${what}: ${problem}` });
      return z.NEVER;
    }
    return us as bigint;
  });

const missingOr = (message: string) => (issue: { input?: unknown }) =>
  issue.input === undefined ? 'missing' : message;
const path = z.string({ error: missingOr('expected a file path') }).min(1, 'expected a file path');
const url = z
  .string({ error: missingOr('expected an http(s) URL') })
  .regex(/^https?:\/\/[^\s/]+(\/\S*)?$/, 'expected an http(s) URL');
const int = (min: number, max: number) =>
  z
    .number({ error: `expected an integer from ${min} to ${max}` })
    .int(`expected an integer from ${min} to ${max}`)
    .min(min, `expected an integer from ${min} to ${max}`)
    .max(max, `expected an integer from ${min} to ${max}`);
const decimal = z.union([z.string(), z.number()], {
  error: missingOr('expected a decimal number'),
});
/** A decimal the model holds exactly: at most `places` decimals. */
const exactDecimal = (places: number) =>
  decimal.superRefine((v, ctx) => {
    const d = parseDecimal(String(v));
    if (typeof d === 'string') ctx.addIssue({ code: 'custom', message: d });
    else if (!isWhole(d, places)) {
      ctx.addIssue({ code: 'custom', message: `${v} has more than ${places} decimals` });
    }
  });
const labels = z.record(z.string(), z.string(), { error: 'expected labels: name: value' });
const className = z.enum(['ModelBased', 'Estimator', 'OnChipCounter', 'CalibratedInstrument'], {
  error: 'expected ModelBased, Estimator, OnChipCounter or CalibratedInstrument',
});
const kind = z.enum(['media', 'other'], { error: 'expected media or other' });
const selector = z.strictObject({ metric: z.string().min(1), labels: labels.optional() });

const energySchema = z.discriminatedUnion(
  'source',
  [
    z.strictObject({
      source: z.literal('rapl'),
      root: path.optional(),
      zones: z.array(z.string().min(1)).min(1).optional(),
    }),
    z
      .strictObject({
        source: z.literal('prometheus'),
        url,
        preset: z
          .enum(['node_rapl', 'kepler', 'scaphandre'], {
            error: 'expected node_rapl, kepler or scaphandre',
          })
          .optional(),
        metric: z.string().min(1).optional(),
        unit: z
          .enum(['joules', 'microjoules'], { error: 'expected joules or microjoules' })
          .optional(),
        labels: labels.optional(),
        class: className.optional(),
      })
      .refine((e) => e.preset !== undefined || (e.metric !== undefined && e.unit !== undefined), {
        message: 'give a preset, or a metric and its unit',
      }),
    z.strictObject({
      source: z.literal('model'),
      idle_watts: exactDecimal(6), // to the microwatt
      nanojoules_per_byte: exactDecimal(3), // to the picojoule
    }),
    z.strictObject({ source: z.literal('none') }),
  ],
  { error: 'expected source: rapl, prometheus, model or none' },
);

const route = z.strictObject({
  match: z.string().min(1),
  track: int(0, 0xffff_ffff),
  kind: kind.default('media'),
  tier: int(0, 7).optional(),
  segment: duration('the media duration of a segment').optional(),
});

const trafficSchema = z.discriminatedUnion(
  'source',
  [
    z.strictObject({
      source: z.literal('nginx'),
      log: path,
      routes: z.array(route).min(1, 'expected at least one route'),
    }),
    z.strictObject({
      source: z.literal('prometheus'),
      url,
      bytes: selector,
      sessions: selector.optional(),
      track: int(0, 0xffff_ffff).default(1),
      kind: kind.default('media'),
    }),
    z.strictObject({ source: z.literal('none') }),
  ],
  { error: 'expected source: nginx, prometheus or none' },
);

const listenSchema = z.strictObject({
  host: z.string().min(1).default('127.0.0.1'),
  port: int(0, 65535),
});

// An edge hop's capacity reports (docs/live-policy.md): GAS = slots − the period's sessions.
const capacitySchema = z.strictObject({
  pathway: z.string({ error: 'expected the pathway ID this hop is an edge of' }).min(1),
  slots: int(0, 0xffff_ffff),
  expires: duration('how long a report stays valid').optional(),
  computing_ms: int(0, 0xffff_ffff).optional(),
  network_ms: int(0, 0xffff_ffff).optional(),
});

const backoffSchema = z.strictObject({
  initial: duration('the first retry delay').default(250_000n),
  max: duration('the longest retry delay').default(30_000_000n),
});

const deliverySchema = z.strictObject({
  cut_delay: duration('how long after a period its traffic is taken').optional(),
  backoff: backoffSchema.prefault({}),
  backfill: int(0, 1_000_000).default(10_000),
  keep: int(0, 10_000_000).default(10_000),
});

/** The file's fields, as written (snake_case). */
const hopFileSchema = z
  .strictObject({
    room: path,
    key_log: path.nullable().default(null),
    key: path,
    policy: path.optional(),
    period: duration('the period P').optional(),
    lag: duration('the lag L').optional(),
    servers: z.array(url).min(1, 'expected at least one steering server'),
    spool: path,
    listen: listenSchema.optional(),
    energy: energySchema,
    traffic: trafficSchema.prefault({ source: 'none' }),
    capacity: capacitySchema.optional(),
    delivery: deliverySchema.prefault({}),
  })
  .refine((c) => c.policy !== undefined || c.period !== undefined, {
    message: 'give the policy (its period P and lag L) or a period',
    path: ['period'],
  });

/** The file's fields under the agent's names (camelCase). */
function fromFile({
  key_log,
  energy,
  capacity,
  delivery,
  ...rest
}: z.output<typeof hopFileSchema>) {
  return {
    ...rest,
    keyLog: key_log,
    energy:
      energy.source === 'model'
        ? {
            source: energy.source,
            idleWatts: energy.idle_watts,
            nanojoulesPerByte: energy.nanojoules_per_byte,
          }
        : energy,
    capacity:
      capacity === undefined
        ? undefined
        : {
            pathway: capacity.pathway,
            slots: capacity.slots,
            expires: capacity.expires,
            computingMs: capacity.computing_ms,
            networkMs: capacity.network_ms,
          },
    delivery: {
      cutDelay: delivery.cut_delay,
      backoff: delivery.backoff,
      backfill: delivery.backfill,
      keep: delivery.keep,
    },
  };
}

/**
 * The schema of `hop.yaml`: its input the file's fields (snake_case, no alias), its output the
 * agent's names (camelCase).
 */
export const hopConfigSchema = hopFileSchema.transform(fromFile);

/** The configuration as read, paths absolute. */
export type HopConfig = z.output<typeof hopConfigSchema> & { readonly baseDir: string };

/**
 * The spellings of earlier releases, read for one more release with a warning: the mapping's
 * path (`''` the top level), the old field, the field it now is.
 */
export const HOP_CONFIG_ALIASES: readonly (readonly [string, string, string])[] = [
  ['', 'keyLog', 'key_log'],
  ['energy', 'idleWatts', 'idle_watts'],
  ['energy', 'nanojoulesPerByte', 'nanojoules_per_byte'],
  ['capacity', 'computingMs', 'computing_ms'],
  ['capacity', 'networkMs', 'network_ms'],
  ['delivery', 'cutDelay', 'cut_delay'],
];

/** The fields each mapping of the file knows, by the mapping's path (array indices left out). */
const KNOWN: Readonly<Record<string, readonly string[]>> = {
  '': Object.keys(hopFileSchema.shape),
  listen: Object.keys(listenSchema.shape),
  'traffic.routes': Object.keys(route.shape),
  'traffic.bytes': Object.keys(selector.shape),
  'traffic.sessions': Object.keys(selector.shape),
  capacity: Object.keys(capacitySchema.shape),
  delivery: Object.keys(deliverySchema.shape),
  'delivery.backoff': Object.keys(backoffSchema.shape),
};

const isMap = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/** The fields the mapping at `path` of `input` knows: for `energy` and `traffic`, its source's. */
function knownFields(path: readonly PropertyKey[], input: unknown): readonly string[] {
  const at = path.filter((p) => typeof p === 'string').join('.');
  if (at === 'energy' || at === 'traffic') {
    const mapping = isMap(input) ? input[at] : undefined;
    const source = isMap(mapping) ? mapping.source : undefined;
    const options = at === 'energy' ? energySchema.options : trafficSchema.options;
    const option = options.find((o) => o.shape.source.value === source);
    return option === undefined ? [] : Object.keys(option.shape);
  }
  return KNOWN[at] ?? [];
}

function fieldPath(path: readonly PropertyKey[]): string {
  return path.length === 0 ? '(top level)' : path.map(String).join('.');
}

function describeIssue(issue: z.core.$ZodIssue, input: unknown): string[] {
  if (issue.code === 'unrecognized_keys') {
    // One line per unknown field, each with the known field it is most likely meant to be.
    const known = knownFields(issue.path, input);
    return issue.keys.map(
      (k) => `${fieldPath([...issue.path, k])}: unknown field${didYouMean(k, known)}`,
    );
  }
  let message = issue.message;
  if (issue.code === 'invalid_type' && /received undefined/.test(issue.message)) {
    message = 'missing';
  }
  return [`${fieldPath(issue.path)}: ${message}`];
}

/** A configuration as read, with the warnings of its reading (an old spelling, say). */
export interface ReadHopConfig {
  readonly config: HopConfig;
  readonly warnings: readonly string[];
}

/**
 * Validates a configuration object, with the warnings of its reading. The error names every
 * field that breaks a rule, on one line (`; ` between them; also in its `issues`), unknown fields
 * first (each with the known field it is most likely meant to be).
 */
export function readHopConfig(input: unknown, baseDir: string, name = 'hop config'): ReadHopConfig {
  const top = notAMapping(input);
  if (top !== undefined) throw new AgentConfigError(`${name}: ${top}`, [top]);
  // An old spelling where its new one is not a field (`idleWatts` of a rapl source) stays an
  // unknown field.
  const renamed = renameAliases(input, HOP_CONFIG_ALIASES, (at, now, top) =>
    knownFields(at === '' ? [] : [at], top).includes(now),
  );
  const parsed = hopConfigSchema.safeParse(renamed.input);
  if (!parsed.success || renamed.issues.length > 0) {
    const all = parsed.success ? [] : parsed.error.issues;
    const describe = (i: z.core.$ZodIssue) => describeIssue(i, renamed.input);
    const issues = [
      ...all.filter((i) => i.code === 'unrecognized_keys').flatMap(describe),
      ...renamed.issues,
      ...all.filter((i) => i.code !== 'unrecognized_keys').flatMap(describe),
    ];
    throw new AgentConfigError(`${name}: ${issues.join('; ')}`, issues);
  }
  return { config: { ...parsed.data, baseDir }, warnings: renamed.warnings };
}

/** {@link readHopConfig} without its warnings. */
export function parseHopConfig(input: unknown, baseDir: string, name = 'hop config'): HopConfig {
  return readHopConfig(input, baseDir, name).config;
}

/** Reads `hop.yaml` (or JSON), with the warnings of its reading. */
export function readHopConfigFile(file: string): ReadHopConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new AgentConfigError(
      `hop config ${file}: cannot read it (${(e as NodeJS.ErrnoException).code ?? e})`,
    );
  }
  let input: unknown;
  try {
    input = parseYaml(text);
  } catch (e) {
    throw new AgentConfigError(`hop config ${file}: does not parse: ${parseProblem(e, text)}`);
  }
  return readHopConfig(input, dirname(resolve(file)), `hop config ${file}`);
}

/** {@link readHopConfigFile} without its warnings. */
export function loadHopConfig(file: string): HopConfig {
  return readHopConfigFile(file).config;
}

function readFile(file: string, what: string): Uint8Array {
  try {
    return new Uint8Array(readFileSync(file));
  } catch (e) {
    throw new AgentConfigError(
      `${what} ${file}: cannot read it (${(e as NodeJS.ErrnoException).code ?? e})`,
    );
  }
}

const CLASS_OF: Readonly<Record<string, number>> = {
  ModelBased: CLASS.ModelBased,
  Estimator: CLASS.Estimator,
  OnChipCounter: CLASS.OnChipCounter,
  CalibratedInstrument: CLASS.CalibratedInstrument,
};

function energyOf(c: HopConfig, abs: (p: string) => string): EnergySource {
  const e = c.energy;
  try {
    switch (e.source) {
      case 'rapl':
        return raplSource({
          root: abs(e.root ?? '/sys/class/powercap'),
          ...(e.zones === undefined ? {} : { zones: e.zones }),
        });
      case 'prometheus': {
        const p = e.preset === undefined ? undefined : ENERGY_PRESETS[e.preset];
        return prometheusEnergySource({
          url: e.url,
          metric: e.metric ?? p!.metric,
          unit: e.unit ?? p!.unit,
          ...(e.labels === undefined ? {} : { labels: e.labels }),
          class: e.class !== undefined ? CLASS_OF[e.class]! : (p?.class ?? CLASS.Estimator),
        });
      }
      case 'model':
        return modelSource(e);
      case 'none':
        return unmetered();
    }
  } catch (err) {
    if (err instanceof SourceError) throw new AgentConfigError(`energy: ${err.message}`);
    throw err;
  }
}

function trafficOf(c: HopConfig, abs: (p: string) => string): TrafficSource {
  const t = c.traffic;
  switch (t.source) {
    case 'nginx': {
      const routes: Route[] = t.routes.map((r, i) => {
        let pattern: RegExp;
        try {
          pattern = new RegExp(r.match);
        } catch (e) {
          throw new AgentConfigError(`traffic.routes.${i}.match: ${(e as Error).message}`);
        }
        return {
          pattern,
          track: r.track,
          kind: r.kind === 'media' ? 1 : 2,
          ...(r.tier === undefined ? {} : { tier: r.tier }),
          ...(r.segment === undefined ? {} : { segmentUs: r.segment }),
        };
      });
      try {
        return nginxLogSource({ path: abs(t.log), routes });
      } catch (e) {
        throw new AgentConfigError(`traffic: ${(e as Error).message}`);
      }
    }
    case 'prometheus':
      return prometheusTrafficSource({
        url: t.url,
        bytes: t.bytes,
        ...(t.sessions === undefined ? {} : { sessions: t.sessions }),
        track: t.track,
        kind: t.kind === 'media' ? 1 : 2,
      });
    case 'none':
      return noTraffic();
  }
}

/** What {@link readHopMaterials} read. */
export interface HopMaterials {
  readonly room: RoomContext;
  readonly key: HopKey;
  readonly period: bigint;
  readonly lag: bigint | undefined;
}

/** Reads the room, key log, key and policy a configuration names; checks the room verifies. */
export function readHopMaterials(c: HopConfig): HopMaterials {
  const abs = (p: string) => (isAbsolute(p) ? p : resolve(c.baseDir, p));
  const room = openHopRoom(
    readFile(abs(c.room), 'room'),
    c.keyLog === null ? null : readFile(abs(c.keyLog), 'key log'),
  );
  const keyPath = abs(c.key);
  let jwk: unknown;
  try {
    jwk = JSON.parse(new TextDecoder().decode(readFile(keyPath, 'key')));
  } catch (e) {
    if (e instanceof AgentConfigError) throw e;
    throw new AgentConfigError(`key ${keyPath}: not a JWK (not JSON)`);
  }
  const key = hopKeyFromJwk(jwk, `key ${keyPath}`);
  let period = c.period;
  let lag = c.lag;
  if (c.policy !== undefined) {
    const p = readPolicy(readFile(abs(c.policy), 'policy'));
    if (!p.ok)
      throw new AgentConfigError(`policy ${abs(c.policy)}: does not read (${p.refusal.reason})`);
    period ??= p.value.period_us;
    lag ??= p.value.lag_us;
  }
  return { room, key, period: period!, lag };
}

/** Builds the agent a configuration describes (reading its files), with overrides. */
export function createHopAgent(c: HopConfig, overrides: Partial<HopAgentOptions> = {}): HopAgent {
  const abs = (p: string) => (isAbsolute(p) ? p : resolve(c.baseDir, p));
  const m = readHopMaterials(c);
  const cap = c.capacity;
  const reporter =
    cap === undefined
      ? undefined
      : new CapacityReporter({
          key: m.key,
          roomId: m.room instanceof Uint8Array ? m.room : m.room.roomId,
          pathway: cap.pathway,
          slots: cap.slots,
          // Soft state for three periods by default: one lost report does not age a site out.
          expiresUs: cap.expires ?? 3n * m.period,
          windowUs: m.period,
          ...(cap.computingMs === undefined ? {} : { computingMs: cap.computingMs }),
          ...(cap.networkMs === undefined ? {} : { networkMs: cap.networkMs }),
          servers: c.servers,
        });
  return new HopAgent({
    room: m.room,
    key: m.key,
    period: m.period,
    ...(m.lag === undefined ? {} : { lag: m.lag }),
    energy: energyOf(c, abs),
    traffic: trafficOf(c, abs),
    servers: c.servers,
    spool: abs(c.spool),
    ...(c.delivery.cutDelay === undefined ? {} : { cutDelay: c.delivery.cutDelay }),
    backoff: {
      initialMs: Number(c.delivery.backoff.initial / 1000n),
      maxMs: Number(c.delivery.backoff.max / 1000n),
    },
    backfill: c.delivery.backfill,
    keep: c.delivery.keep,
    ...(reporter === undefined
      ? {}
      : {
          onRecord: (rec: CutRecord) => {
            void reporter.report(rec.span.end, rec.fields.sessions);
          },
        }),
    ...overrides,
  });
}
