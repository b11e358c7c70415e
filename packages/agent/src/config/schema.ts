/**
 * The schema of `hop.yaml`, in zod: each field, the rule it must follow, and the message that
 * names the rule (`expected an http(s) URL`). Its fields are in snake_case, as the server's config
 * and the policy YAML (docs/decisions.md, "One naming style"); the camelCase spellings of earlier
 * releases are listed in {@link HOP_CONFIG_ALIASES}, and read as aliases by `read.ts`. Once
 * parsed, the configuration's properties are camelCase, as the rest of the agent's
 * ({@link hopConfigSchema}). {@link knownFields} says which fields each mapping of the file
 * knows, for the error on an unknown one.
 */
import { parseDuration } from '@wai-steering/config-text';
import { CLASS } from '@wai-steering/wire';
import { z } from 'zod';
import { checkEnergyCounter, ENERGY_PRESETS } from '../energy/prometheus.js';
import { isWhole, parseDecimal } from '../internal/decimal.js';

/** The class tags (companion C5.2) of the class names a file may give. */
export const CLASS_OF: Readonly<Record<string, number>> = {
  ModelBased: CLASS.ModelBased,
  Estimator: CLASS.Estimator,
  OnChipCounter: CLASS.OnChipCounter,
  CalibratedInstrument: CLASS.CalibratedInstrument,
};

/**
 * A duration field: a string with its unit, read by the one duration parser (`2s`, `500ms`,
 * `1.5s`, `1m`, `7d`, …); a bare number (a YAML number or a string without a unit) is refused as
 * everywhere, saying what to write (`write "2s"`); whole µs.
 */
const duration = (what: string) =>
  z.union([z.string(), z.number()]).transform((v, ctx) => {
    const us = parseDuration(String(v), 'us');
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
          .enum(['joules', 'millijoules', 'microjoules'], {
            error: 'expected joules, millijoules or microjoules',
          })
          .optional(),
        labels: labels.optional(),
        class: className.optional(),
      })
      .refine((e) => e.preset !== undefined || e.metric !== undefined, {
        message: 'give a preset, or a metric',
      })
      .superRefine((e, ctx) => {
        // A counter of energy, of a class its source can back (docs/metering.md).
        if (e.preset === undefined && e.metric === undefined) return;
        const p = e.preset === undefined ? undefined : ENERGY_PRESETS[e.preset];
        const metric = e.metric ?? p!.metric;
        const unit = e.unit ?? (e.metric === undefined ? p?.unit : undefined);
        const checked = checkEnergyCounter(
          metric,
          unit,
          e.class === undefined ? undefined : CLASS_OF[e.class],
        );
        if (typeof checked === 'string') {
          const at = /^class /.test(checked)
            ? 'class'
            : e.metric === undefined
              ? 'preset'
              : 'metric';
          ctx.addIssue({ code: 'custom', message: checked, path: [at] });
        }
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
export function knownFields(path: readonly PropertyKey[], input: unknown): readonly string[] {
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
