/**
 * `policy compile`: a steering policy written by hand, in YAML or JSON, with readable units,
 * validated field by field (each message names the field and the rule it breaks), then
 * compiled to the fields of a `WSP1` (§3.1, §3.2).
 *
 * YAML is read with its failsafe schema (every scalar a string), so that a key of 64 decimal
 * digits, a `1e5` or an `0x10` reaches the validator as written, never as a number.
 */
import { dirname, extname } from 'node:path';
import {
  type DurationUnit,
  notAMapping,
  parseDuration,
  parseProblem,
  readStrictJson,
} from '@wai-steering/config-text';
import {
  NO_CAPACITY_LIMIT,
  NOT_A_CLONE,
  type PolicyFields,
  type PolicyHop,
  type PolicyPathway,
  parseHex,
} from '@wai-steering/wire';
import { parseDocument } from 'yaml';
import * as z from 'zod';
import { UserError } from './errors.js';
import { readText } from './files.js';
import { roomIdFrom } from './records.js';
import {
  Failure,
  fail,
  integer,
  type Leaf,
  leaf,
  optionalLeaf,
  show,
  text,
  validate,
} from './schema.js';
import { parseBitrate, parsePpm } from './units.js';

const duration =
  (unit: DurationUnit, max: bigint): Leaf<bigint> =>
  (value) => {
    const s = text(value, 'a duration such as "2s" or "500ms"');
    if (s instanceof Failure) return s;
    const out = parseDuration(s, unit);
    if (typeof out === 'string') return fail(out);
    if (out > max) return fail(`${s} is too long (at most ${max} ${unit})`);
    return out;
  };

const U32 = 0xffff_ffffn;
const U64 = (1n << 64n) - 1n;

const boolean: Leaf<boolean> = (value) => {
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  return fail(`expected true or false, got ${show(value)}`);
};

const ppm: Leaf<number> = (value) => {
  const s = text(value, 'a share such as "5%" or "50000ppm"');
  if (s instanceof Failure) return s;
  const out = parsePpm(s);
  if (typeof out === 'string') return fail(out);
  if (out > 1_000_000n) return fail(`${s} is above 100% (1 000 000 ppm)`);
  return Number(out);
};

const bitrate: Leaf<bigint> = (value) => {
  const s = typeof value === 'number' ? value : text(value, 'a bitrate such as "2.5M"');
  if (s instanceof Failure) return s;
  const out = parseBitrate(s);
  if (typeof out === 'string') return fail(out);
  if (out === 0n) return fail('a bitrate is above 0');
  if (out > U64) return fail('a bitrate is at most 2^64 − 1 bits per second');
  return out;
};

const capacity: Leaf<number> = (value) => {
  if (value === 'unlimited') return NO_CAPACITY_LIMIT;
  const n = integer(0, 0xffff_fffe)(value);
  return n instanceof Failure
    ? fail(
        `expected "unlimited" or a whole number of sessions from 0 to 4294967294, got ${show(value)}`,
      )
    : n;
};

const hexKey: Leaf<Uint8Array> = (value) => {
  if (typeof value !== 'string' || !/^[0-9a-fA-F]{64}$/.test(value)) {
    return fail('expected 64 hex digits (a public key; `wai-steer pubkey KEYFILE` prints it)');
  }
  return parseHex(value)!;
};

const place: Leaf<number> = (value) => {
  if (value === 'edge') return 1;
  if (value === 'interior') return 2;
  return fail(`expected "edge" or "interior", got ${show(value)}`);
};

const basis: Leaf<number> = (value) => {
  if (value === 'bytes' || value === 'byte') return 1;
  if (value === 'seconds' || value === 'second') return 2;
  return fail(
    `expected "bytes" (joules per delivered byte) or "seconds" (joules per delivered second at or above the floor tier), got ${show(value)}`,
  );
};

const string: Leaf<string> = (value) => text(value, 'a string');

const id: Leaf<string> = (value) => {
  const s = text(value, 'a pathway ID');
  if (s instanceof Failure) return s;
  if (!/^[A-Za-z0-9._-]{1,64}$/.test(s)) {
    return fail(`expected a pathway ID: 1 to 64 of A-Z a-z 0-9 . - _, got ${show(value)}`);
  }
  return s;
};

const hop = z.strictObject({
  key: leaf(hexKey),
  place: leaf(place),
});

const clone = z.strictObject({
  base: leaf(id),
  host: optionalLeaf(string),
  params: z.record(z.string(), leaf(string)).optional(),
});

const pathway = z.strictObject({
  id: leaf(id),
  clone: clone.optional(),
  top_tier: optionalLeaf(integer(0, 255)),
  latency: leaf(duration('ms', U32)),
  capacity: optionalLeaf(capacity),
  min_share: optionalLeaf(ppm),
  hops: z.array(hop),
});

const config = z.strictObject({
  room: leaf(string),
  period: leaf(duration('us', U64)),
  window: leaf(duration('us', U64)),
  lag: leaf(duration('us', U64)),
  basis: optionalLeaf(basis),
  floor: optionalLeaf(integer(0, 255)),
  latency_ceiling: leaf(duration('ms', U32)),
  min_buffer: leaf(duration('ms', U32)),
  hysteresis: leaf(ppm),
  ttl: leaf(duration('s', U32)),
  min_ttl: leaf(duration('s', U32)),
  query_before_start: optionalLeaf(boolean),
  initial: optionalLeaf(id),
  tiers: z.array(leaf(bitrate)),
  server_uri: leaf(string),
  reload_uri: leaf(string),
  decision_uri: leaf(string),
  pathways: z.array(pathway),
});

type Config = z.output<typeof config>;

/** Reads a config file: JSON when its name ends in `.json`, YAML otherwise. */
export function readConfigFile(path: string): unknown {
  const source = readText(path, 'policy config');
  if (extname(path).toLowerCase() === '.json') {
    const read = readStrictJson(source);
    if (!read.ok) throw new UserError(`policy config ${path}: ${read.problem}`);
    return read.value;
  }
  const doc = parseDocument(source, { schema: 'failsafe', uniqueKeys: true, prettyErrors: true });
  const error = doc.errors[0];
  if (error !== undefined) {
    const line = source.slice(0, error.pos[0]).split('\n').length;
    // The parser's message without its position, which parseProblem says with the line's text.
    const bare = Object.assign(
      new Error(error.message.replace(/ at line \d+, column \d+:?[\s\S]*$/, '')),
      { linePos: error.linePos },
    );
    throw new UserError(
      `policy config ${path}, line ${line}: ${parseProblem(bare, source).replace(/: (".*")$/, ' ($1)')}`,
    );
  }
  return doc.toJS();
}

/** The config fields of each `WSP1` field, to name a wire refusal in the config's words. */
function configField(field: string): string {
  return field
    .replace(/^period_us$/, 'period')
    .replace(/^window_us$/, 'window')
    .replace(/^lag_us$/, 'lag')
    .replace(/^latency_ceiling_ms$/, 'latency_ceiling')
    .replace(/^min_buffer_ms$/, 'min_buffer')
    .replace(/^hysteresis_ppm$/, 'hysteresis')
    .replace(/^ttl_s$/, 'ttl')
    .replace(/^min_ttl_s$/, 'min_ttl')
    .replace(/^flags$/, 'query_before_start')
    .replace(/^(pathways\[\d+\])\.latency_ms$/, '$1.latency')
    .replace(/^(pathways\[\d+\])\.min_share_ppm$/, '$1.min_share')
    .replace(/^(pathways\[\d+\])\.base$/, '$1.clone.base')
    .replace(/^(pathways\[\d+\])\.host$/, '$1.clone.host')
    .replace(/^(pathways\[\d+\])\.params(\[\d+\].*)?$/, '$1.clone.params');
}

export { configField };

/**
 * Validates a config and compiles it to policy fields, signed by `signer`. `baseDir` resolves a
 * room file named by a relative path.
 */
export function compilePolicyConfig(
  data: unknown,
  signer: Uint8Array,
  baseDir: string,
): PolicyFields {
  const top = notAMapping(data);
  if (top !== undefined) throw new UserError(`the policy: ${top}`);
  // The rules between fields (§3.3) are named with the fields' own problems, in one list.
  const relations = relationProblems(data as Record<string, unknown>);
  return compile(validate(config, data, 'the policy', relations), signer, baseDir, relations);
}

/** A leaf's value as `read` reads it, or `undefined` when it is absent or does not read. */
function readOr<T>(read: Leaf<T>, value: unknown): T | undefined {
  if (value === undefined) return undefined;
  const out = read(value);
  return out instanceof Failure ? undefined : out;
}

/**
 * The rules of §3.3 that relate fields, checked on the fields that read (a field that does not
 * read is named by the validation): period above 0 and window a multiple of it; min_ttl from 1
 * to ttl; the tiers strictly ascending; each pathway with an edge hop; no hop key twice; the
 * minimum shares at most 100%. The signing checks every rule again (wire's reader).
 */
function relationProblems(data: Record<string, unknown>): string[] {
  const out: string[] = [];
  const rule = ' (policy_invalid)';
  const period = readOr(duration('us', U64), data.period);
  const window = readOr(duration('us', U64), data.window);
  if (period === 0n) out.push(`period: is 0; a period is above 0${rule}`);
  if (period !== undefined && period > 0n && window !== undefined) {
    if (window === 0n || window % period !== 0n) {
      out.push(
        `window: ${String(data.window)} is not a multiple of the period (${String(data.period)}) above 0: the window is a whole number of periods${rule}`,
      );
    }
  }
  const ttl = readOr(duration('s', U32), data.ttl);
  const minTtl = readOr(duration('s', U32), data.min_ttl);
  if (minTtl === 0n) out.push(`min_ttl: is 0; it is at least 1 s${rule}`);
  if (ttl !== undefined && minTtl !== undefined && minTtl > ttl) {
    out.push(`min_ttl: ${String(data.min_ttl)} is above ttl (${String(data.ttl)})${rule}`);
  }
  if (Array.isArray(data.tiers)) {
    const tiers = data.tiers.map((t) => readOr(bitrate, t));
    for (let i = 1; i < tiers.length; i++) {
      const [x, y] = [tiers[i - 1], tiers[i]];
      if (x !== undefined && y !== undefined && y <= x) {
        out.push(`tiers[${i}]: not above tiers[${i - 1}]: the tiers are strictly ascending${rule}`);
      }
    }
  }
  if (Array.isArray(data.pathways)) {
    const seen = new Map<string, string>();
    let shares = 0;
    data.pathways.forEach((p: unknown, i: number) => {
      if (p === null || typeof p !== 'object') return;
      const pw = p as Record<string, unknown>;
      shares += readOr(ppm, pw.min_share) ?? 0;
      if (!Array.isArray(pw.hops)) return;
      const places = pw.hops.map((h: unknown) =>
        h !== null && typeof h === 'object'
          ? readOr(place, (h as { place?: unknown }).place)
          : undefined,
      );
      if (pw.hops.length === 0) out.push(`pathways[${i}].hops: a pathway with no hop${rule}`);
      else if (places.every((x) => x === 2)) {
        out.push(`pathways[${i}].hops: a pathway with no edge hop${rule}`);
      }
      pw.hops.forEach((h: unknown, k: number) => {
        const key = h !== null && typeof h === 'object' ? (h as { key?: unknown }).key : undefined;
        if (typeof key !== 'string' || readOr(hexKey, key) === undefined) return;
        const at = `pathways[${i}].hops[${k}]`;
        const before = seen.get(key.toLowerCase());
        if (before !== undefined) {
          out.push(
            `${at}.key: a hop key named twice (also at ${before}: a hop belongs to one pathway)${rule}`,
          );
        } else seen.set(key.toLowerCase(), at);
      });
    });
    if (shares > 1_000_000) {
      out.push(
        `pathways: min_share_ppm sums above 1 000 000 (the min_share values add up to more than 100%)${rule}`,
      );
    }
  }
  return out;
}

function compile(
  c: Config,
  signer: Uint8Array,
  baseDir: string,
  relations: readonly string[] = [],
): PolicyFields {
  // Every problem at once, on one line (as the validation's).
  const problems: string[] = [...relations];
  const problem = (text: string): void => {
    problems.push(text);
  };
  const n = c.tiers.length;
  const index = new Map<string, number>();
  const pathways: PolicyPathway[] = c.pathways.map((p, i) => {
    const at = `pathways[${i}]`;
    let base = NOT_A_CLONE;
    let host = '';
    let params: { name: string; value: string }[] = [];
    if (p.clone !== undefined) {
      const b = index.get(p.clone.base);
      if (b === undefined) {
        problem(
          `${at}.clone.base: "${p.clone.base}" is not the id of a pathway before this one (a clone names an earlier pathway)`,
        );
      }
      base = b ?? NOT_A_CLONE;
      host = p.clone.host ?? '';
      // §3.3: param names in strictly ascending bytewise order; a mapping has each name once.
      params = Object.entries(p.clone.params ?? {})
        .map(([name, value]) => ({ name, value: value! }))
        .sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0));
    }
    if (index.has(p.id)) problem(`${at}.id: "${p.id}" names two pathways`);
    index.set(p.id, i);
    const top = p.top_tier ?? n - 1;
    if (n > 0 && top >= n) {
      problem(`${at}.top_tier: ${top} is not a tier (the tiers are 0 to ${n - 1})`);
    }
    const hops: PolicyHop[] = p.hops.map((h) => ({ key: h.key!, place: h.place! }));
    return {
      id: p.id!,
      base,
      host,
      params,
      top_tier: Math.max(top, 0),
      latency_ms: Number(p.latency!),
      capacity: p.capacity ?? NO_CAPACITY_LIMIT,
      min_share_ppm: p.min_share ?? 0,
      hops,
    };
  });
  let initial: number;
  if (c.initial !== undefined) {
    const i = index.get(c.initial);
    if (i === undefined) problem(`initial: "${c.initial}" is not the id of a pathway`);
    initial = i ?? 0;
  } else {
    initial = pathways.findIndex((p) => p.base === NOT_A_CLONE);
    if (initial === -1) initial = 0;
  }
  const floor = c.floor ?? 0;
  if (n > 0 && floor >= n) {
    problem(`floor: ${floor} is not a tier (the tiers are 0 to ${n - 1})`);
  }
  let room: Uint8Array | undefined;
  try {
    room = roomIdFrom(c.room!, baseDir, 'room');
  } catch (e) {
    if (!(e instanceof UserError)) throw e;
    problem(e.message);
  }
  if (problems.length > 0 || room === undefined) throw new UserError(problems.join('; '));
  return {
    room,
    signer,
    period_us: c.period!,
    window_us: c.window!,
    lag_us: c.lag!,
    basis: c.basis ?? 1,
    floor,
    latency_ceiling_ms: Number(c.latency_ceiling!),
    min_buffer_ms: Number(c.min_buffer!),
    hysteresis_ppm: c.hysteresis!,
    ttl_s: Number(c.ttl!),
    min_ttl_s: Number(c.min_ttl!),
    flags: c.query_before_start === true ? 1 : 0,
    initial,
    tiers: c.tiers.map((t) => t!),
    server_uri: c.server_uri!,
    reload_uri: c.reload_uri!,
    decision_uri: c.decision_uri!,
    pathways,
  };
}

/** The directory a config's relative paths are resolved from. */
export function configDir(path: string): string {
  return dirname(path);
}
