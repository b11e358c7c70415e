import { dirname } from 'node:path';
import { nowUs, parseInstant } from '@wai-steering/config-text';
import {
  bytesEqual,
  CLASS,
  digestOf,
  parseHex,
  readHopRecord,
  STATUS,
  signHopRecord,
  type TrackEntry,
  toHex,
  unwrap,
  verifyDecisionSignature,
  verifyHopRecord,
} from '@wai-steering/wire';
import * as z from 'zod';
import type { Command, Context } from '../internal/command.js';
import { UserError } from '../internal/errors.js';
import { readDir, readJson, writeOutput } from '../internal/files.js';
import { readSecretKeyFile } from '../internal/keys.js';
import {
  describeRefusal,
  readDecisionFile,
  readHopRecordFile,
  readPolicyFile,
  roomIdFrom,
} from '../internal/records.js';
import {
  Failure,
  fail,
  integer,
  type Leaf,
  leaf,
  optionalLeaf,
  show,
  validate,
} from '../internal/schema.js';
import { decisionJson, decisionText, hopRecordJson, hopRecordText } from '../internal/show.js';
import { signing } from '../internal/sign.js';
import { evidenceOf } from '../internal/stale.js';
import { parsePeriod } from '../internal/time.js';
import { parseU64 } from '../internal/units.js';
import { noFigure, noFigureText } from '../internal/why.js';

const unsigned =
  (bits: number): Leaf<bigint> =>
  (value) => {
    if (typeof value !== 'string' && typeof value !== 'number') {
      return fail(`expected a whole number as a decimal string, got ${show(value)}`);
    }
    const out = parseU64(value, bits);
    return typeof out === 'string' ? fail(out) : out;
  };

/**
 * A room-clock instant: decimal µs (a string or a number), an RFC 3339 time, now, now-6s; `now`
 * read from `now()`, one reading for the whole record (so that `now-4s` to `now-2s` is 2 s).
 */
const instantAt =
  (now: () => bigint): Leaf<bigint> =>
  (value) => {
    if (typeof value === 'number') return unsigned(64)(value);
    if (typeof value !== 'string') {
      return fail(
        `expected room-clock µs as a decimal string or an RFC 3339 time, got ${show(value)}`,
      );
    }
    const out = parseInstant(value, now);
    return typeof out === 'string' ? fail(out) : out;
  };

const hex32: Leaf<Uint8Array> = (value) =>
  typeof value === 'string' && /^[0-9a-fA-F]{64}$/.test(value)
    ? parseHex(value)!
    : fail('expected 64 hex digits');

const CLASS_BY_NAME: Readonly<Record<string, number>> = {
  unmetered: CLASS.unmetered,
  ModelBased: CLASS.ModelBased,
  Estimator: CLASS.Estimator,
  OnChipCounter: CLASS.OnChipCounter,
  CalibratedInstrument: CLASS.CalibratedInstrument,
};

const recordClass: Leaf<number> = (value) => {
  if (typeof value === 'string' && value in CLASS_BY_NAME) return CLASS_BY_NAME[value]!;
  const n = integer(0, 255)(value);
  if (n instanceof Failure) {
    return fail(
      `expected a class tag (0 unmetered, 2 ModelBased, 3 Estimator, 4 OnChipCounter, 5 CalibratedInstrument) or its label, got ${show(value)}`,
    );
  }
  return n;
};

const named =
  (names: Readonly<Record<string, number>>): Leaf<number> =>
  (value) => {
    if (typeof value === 'string' && value in names) return names[value]!;
    const n = integer(0, 255)(value);
    if (n instanceof Failure) {
      const list = Object.entries(names)
        .map(([k, v]) => `${v} or "${k}"`)
        .join(', ');
      return fail(`expected ${list}, got ${show(value)}`);
    }
    return n;
  };

const track = z.strictObject({
  track: leaf(integer(0, 0xffff_ffff)),
  kind: leaf(named({ media: 1, other: 2 })),
  direction: leaf(named({ in: 1, out: 2 })),
  bytes: leaf(unsigned(64)),
});

const recordSchemaAt = (now: () => bigint) =>
  z.strictObject({
    kind: z.literal('WMH1').optional(),
    digest: z.string().optional(),
    sig: z.string().optional(),
    room: leaf((v) => (typeof v === 'string' ? v : fail('expected a room id or a room file'))),
    hop: optionalLeaf(hex32),
    start: optionalLeaf(instantAt(now)),
    end: optionalLeaf(instantAt(now)),
    sessions: optionalLeaf(integer(0, 0xffff_ffff)),
    class: leaf(recordClass),
    joules: optionalLeaf(unsigned(128)),
    subscriber_us: z
      .array(leaf(unsigned(64)))
      .length(8, 'expected 8 values, for layer classes 0 to 7')
      .optional(),
    tracks: z.array(track).max(255, 'at most 255 tracks').optional(),
  });

export const recordSign: Command = {
  name: ['record', 'sign'],
  summary: 'Sign a per-hop record (WMH1) from its fields in JSON; print its digest.',
  args: ['JSON'],
  options: {
    key: {
      type: 'string',
      arg: 'KEY',
      description: "the hop's key file (it signs the record)",
      required: true,
    },
    out: { type: 'string', arg: 'FILE', description: 'the record file to write', required: true },
    period: {
      type: 'string',
      arg: 'PERIOD',
      description:
        'the span, instead of start and end: now-1 (the last complete period), now-K, or an instant',
    },
    policy: {
      type: 'string',
      arg: 'FILE',
      description: 'the policy whose period --period counts in',
    },
    json: { type: 'boolean', description: 'print the signed record as JSON' },
  },
  description: `
Reads a JSON object of a WMH1's fields (companion C5.1), u64 and u128 values as decimal strings:

  { "room": "<room id, 64 hex digits, or a room file relative to the JSON>",
    "start": "4000000", "end": "6000000", "sessions": 120,
    "class": "OnChipCounter",            (or its tag: 0 unmetered, 2, 3, 4, 5)
    "joules": "1500000",                 (microjoules; 0 for an unmetered record)
    "subscriber_us": ["0","0","0","0","0","0","0","0"],   (optional, layer classes 0 to 7)
    "tracks": [ { "track": 1, "kind": "media", "direction": "out", "bytes": "25000000" } ] }

"hop" is the key's public key (optional; when given it must be KEY's). The output of
\`record inspect --json\` reads back here. The record's rules (C5.3) are checked before signing.

start and end are room-clock µs (since 1970-01-01T00:00:00Z) as decimal strings, or RFC 3339
times ("2026-12-01T08:00:00Z"). Instead of them, --period with --policy gives the span: a
period of the policy, aligned as its windows are (§5.1: [k × period, (k + 1) × period)):
now-1 is the last complete period, now-K the period K before the one in progress, and an
instant (µs, RFC 3339, now-10s) the period that holds it. \`wai-steer window\` prints the
periods a decision reads.`,
  run(ctx) {
    const path = ctx.path(ctx.args[0]!);
    const key = readSecretKeyFile(ctx.path(ctx.string('key')), '--key key file');
    const at = nowUs();
    const data = validate(
      recordSchemaAt(() => at),
      readJson(path, 'record JSON'),
      'the record',
    );
    if (data.hop !== undefined && !bytesEqual(data.hop, key.publicKey)) {
      throw new UserError(
        `hop: ${toHex(data.hop)} is not the public key of --key (${toHex(key.publicKey)})`,
      );
    }
    const span = spanOf(ctx, data.start, data.end);
    const tracks: TrackEntry[] = (data.tracks ?? []).map((t) => ({
      track: t.track!,
      kind: t.kind!,
      direction: t.direction!,
      bytes: t.bytes!,
    }));
    const fields = {
      room: roomIdFrom(data.room!, dirname(path), 'room'),
      hop: key.publicKey,
      start: span.start,
      end: span.end,
      sessions: data.sessions ?? 0,
      class: data.class!,
      joules: data.joules ?? 0n,
      subscriber_us: data.subscriber_us?.map((x) => x!) ?? [0n, 0n, 0n, 0n, 0n, 0n, 0n, 0n],
      tracks,
    };
    const bytes = signing(() => signHopRecord(fields, key.secretKey));
    writeOutput(ctx.path(ctx.string('out')), bytes, 'record file');
    const record = unwrap(readHopRecord(bytes));
    ctx.out(
      ctx.flag('json')
        ? `${JSON.stringify(hopRecordJson(record))}\n`
        : `${toHex(digestOf(record))}\n`,
    );
    return 0;
  },
};

/** The record's span: the JSON's start and end, or --period of --policy's period. */
function spanOf(
  ctx: Context,
  start: bigint | undefined,
  end: bigint | undefined,
): { start: bigint; end: bigint } {
  const period = ctx.optional('period');
  const policyPath = ctx.optional('policy');
  if (period === undefined) {
    if (policyPath !== undefined) {
      throw new UserError('record sign: --policy is for --period: give --period too');
    }
    if (start === undefined || end === undefined) {
      throw new UserError(
        `${start === undefined ? 'start' : 'end'}: required (or give --period now-1 --policy FILE)`,
      );
    }
    return { start, end };
  }
  if (start !== undefined || end !== undefined) {
    throw new UserError(
      'record sign: the JSON has start or end, and --period gives them: keep one',
    );
  }
  if (policyPath === undefined) {
    throw new UserError("record sign: --period counts in the policy's period: give --policy FILE");
  }
  const { value: policy } = readPolicyFile(ctx.path(policyPath));
  const out = parsePeriod(period, policy.period_us);
  if (typeof out === 'string') throw new UserError(`--period: ${out}`);
  return out;
}

export const recordInspect: Command = {
  name: ['record', 'inspect'],
  summary: 'Print a per-hop record: span, class, joules, delivery, tracks.',
  args: ['FILE'],
  options: {
    json: {
      type: 'boolean',
      description: 'print the record as JSON (it reads back in record sign)',
    },
  },
  description: `
Reads a per-hop record (WMH1), checks its rules (C5.3) and its signature by its hop, and prints it.`,
  run(ctx) {
    const path = ctx.path(ctx.args[0]!);
    const { value: record } = readHopRecordFile(path);
    const bad = verifyHopRecord(record, record.room);
    if (bad !== undefined) throw new UserError(`record ${path}: ${describeRefusal(bad)}`);
    ctx.out(
      ctx.flag('json') ? `${JSON.stringify(hopRecordJson(record))}\n` : hopRecordText(record),
    );
    return 0;
  },
};

export const decisionInspect: Command = {
  name: ['decision', 'inspect'],
  summary: 'Print a decision (WSD1): report, pathways, evidence, priority, reason, TTL.',
  args: ['FILE'],
  options: {
    policy: {
      type: 'string',
      arg: 'FILE',
      description: 'the policy, to name pathways and explain stale ones (with --records)',
    },
    records: {
      type: 'string',
      arg: 'DIR',
      description: 'the per-hop records, to name the hop and periods of a stale pathway',
    },
    json: { type: 'boolean', description: 'print the decision as JSON' },
  },
  description: `
Reads a steering decision (WSD1), checks its rules (§7.2) and its signature by its signer, and
prints its fields. It does not verify the decision: \`wai-steer verify\` does (§9).

With --policy and --records, each pathway without a figure is explained: a stale one hop by hop
(the periods missing at the decision's t, §5.1, §5.2, the records that overlap, cross the
window's edge or are not cut on the period), an unmetered one by the hops that signed the
unmetered marker, a mixed one by its classes, an empty one by what its edge hops delivered.`,
  run(ctx) {
    const path = ctx.path(ctx.args[0]!);
    const { value: decision } = readDecisionFile(path);
    const bad = verifyDecisionSignature(decision);
    if (bad !== undefined) throw new UserError(`decision ${path}: ${describeRefusal(bad)}`);
    if (ctx.flag('json')) {
      ctx.out(`${JSON.stringify(decisionJson(decision))}\n`);
      return 0;
    }
    const policyPath = ctx.optional('policy');
    const recordsDir = ctx.optional('records');
    if ((policyPath === undefined) !== (recordsDir === undefined)) {
      throw new UserError(
        'decision inspect: --policy and --records go together (to explain a stale pathway)',
      );
    }
    const policy =
      policyPath === undefined ? undefined : readPolicyFile(ctx.path(policyPath)).value;
    ctx.out(decisionText(decision, policy?.basis));
    // Every pathway without a figure: stale, unmetered, mixed or empty (§5.3).
    const stale = new Set(
      decision.pathways.flatMap((p, i) => (p.status !== STATUS.figure ? [i] : [])),
    );
    if (policy !== undefined && recordsDir !== undefined) {
      if (policy.pathways.length !== decision.pathways.length) {
        throw new UserError(
          `--policy ${policyPath}: ${policy.pathways.length} pathways, the decision ${decision.pathways.length}: not the decision's policy`,
        );
      }
      const records = readDir(ctx.path(recordsDir), 'records directory').map((f) => f.bytes);
      for (const line of noFigureText(
        noFigure(policy, decision.t, evidenceOf(records), stale),
        11,
      )) {
        ctx.out(`${line}\n`);
      }
    } else if (stale.size > 0) {
      ctx.out('why        give --policy and --records to say why a pathway has no figure\n');
    }
    return 0;
  },
};
