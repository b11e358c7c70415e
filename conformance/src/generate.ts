/**
 * Writes `conformance/vectors.json` from fixed seeds: every key from its label, every session
 * from a seeded sequence, every figure and instant fixed. Regenerating gives the same file byte
 * for byte.
 *
 * The generator checks the code under test rather than copying it: every request's report is
 * stated by hand (requests.ts) and asserted of `readReport`; every accepted vector's facts
 * (reason, priority, statuses, and limits, figures, report, clones and band where they matter)
 * are stated by hand (accepted.ts) and asserted of the verifier's outcome, with the manifest,
 * the HLS tag, the DASH element and the draw written independently from the text
 * (independent.ts); every refused vector's reason and place is stated by hand (refused/, a file
 * for each step of §9.1) and asserted. The outcome stored is the verifier's, after those assertions.
 *
 * Usage: `pnpm --filter @wai-steering/conformance generate` (writes the file), or
 * `tsx src/generate.ts --check` (compares instead of writing; exit 1 when they differ).
 */
import { deepStrictEqual } from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dashElement, hlsTag } from '@wai-steering/manifest';
import { type ReportJson, readReport, reportJson, type SteeringRequest } from '@wai-steering/rule';
import {
  type CorpusRequest,
  type CorpusVector,
  type Outcome,
  VerifierCache,
  verifyDecision,
} from '@wai-steering/verifier';
import {
  encodePolicy,
  type PolicyFields,
  PRESENT,
  REASONS,
  readDecision,
  readPolicy,
  toHex,
} from '@wai-steering/wire';
import { ACCEPTED, ONE_CLASS, SOLO_ROOM } from './accepted.js';
import {
  bandByHand,
  dashElementByHand,
  drawByHand,
  hlsTagByHand,
  manifestByHand,
} from './independent.js';
import { Prng } from './prng.js';
import { type Context, REFUSAL_SCENARIOS, REFUSED, type Where } from './refused/index.js';
import { REQUEST_IDS, REQUESTS } from './requests.js';
import {
  type AcceptFacts,
  type Built,
  blobDigest,
  build,
  concat,
  type Env,
  originEnv,
  type Parts,
  partsOf,
  type Scenario,
  seal,
  soloEnv,
} from './world.js';

// ---- the corpus's shape ---------------------------------------------------------------------

/** A request as the generator writes it: the verifier's `CorpusRequest`, with a note. */
export interface RequestEntry extends CorpusRequest {
  readonly note: string;
  readonly report: ReportJson;
}

/** A vector as the generator writes it: the verifier's `CorpusVector`, with what it is about. */
export interface VectorEntry extends CorpusVector {
  readonly note: string;
  readonly hls_tag: string;
  readonly dash_element: string;
  /** The steering request the decision's report was read from (accepted vectors). */
  readonly request?: SteeringRequest;
  /** What the vector is about, stated by hand: for a refused vector its reason and place. */
  readonly facts: AcceptFacts | { readonly reason: string; readonly where: Where };
}

export interface CorpusFile {
  readonly version: 1;
  readonly requests: readonly RequestEntry[];
  readonly vectors: readonly VectorEntry[];
}

// ---- checks -----------------------------------------------------------------------------------

class GenerationError extends Error {}

function check(cond: boolean, what: string): void {
  if (!cond) throw new GenerationError(what);
}

function same(got: unknown, want: unknown, what: string): void {
  try {
    deepStrictEqual(got, want);
  } catch {
    throw new GenerationError(
      `${what}: expected ${JSON.stringify(want)}, got ${JSON.stringify(got)}`,
    );
  }
}

// ---- building ---------------------------------------------------------------------------------

/** Every hop the room with an origin lists, with the class of the records it signs. */
function originHops(scenarios: readonly Scenario[]): Map<string, number> {
  const hops = new Map<string, number>();
  for (const s of scenarios) {
    if (s.env !== 'origin') continue;
    for (const p of s.policy.pathways) {
      for (const h of p.hops) {
        if (h.key !== undefined) continue;
        const known = hops.get(h.label);
        if (known !== undefined && known !== h.class) {
          throw new GenerationError(`hop ${h.label} declared with classes ${known} and ${h.class}`);
        }
        hops.set(h.label, h.class);
      }
    }
  }
  return new Map([...hops].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function vectorOf(
  name: string,
  note: string,
  parts: Parts,
  facts: VectorEntry['facts'],
  outcome: Outcome,
  request?: SteeringRequest,
): VectorEntry {
  const read = readPolicy(parts.policy);
  const tagPolicy = read.ok ? read.value : parts.tagPolicy;
  const manifest =
    parts.manifest === null || typeof parts.manifest === 'string'
      ? parts.manifest
      : new TextDecoder().decode(parts.manifest);
  return {
    name,
    note,
    room: toHex(parts.room),
    key_log: parts.keyLog === null ? null : toHex(parts.keyLog),
    policy: toHex(parts.policy),
    decision: toHex(parts.decision),
    records: parts.records.map((r) => toHex(r)),
    manifest,
    hls_tag: hlsTag(tagPolicy),
    dash_element: dashElement(tagPolicy),
    ...(request === undefined ? {} : { request }),
    facts,
    outcome,
  };
}

function verify(parts: Parts, cache: VerifierCache): Outcome {
  return verifyDecision(
    {
      room: parts.room,
      keyLog: parts.keyLog,
      policy: parts.policy,
      decision: parts.decision,
      records: parts.records,
      manifest: parts.manifest,
    },
    { cache },
  );
}

/** Asserts an accepted outcome has the facts stated by hand, and what the text gives. */
function checkAccepted(name: string, b: Built, parts: Parts, o: Outcome, e: AcceptFacts): void {
  if (o.outcome !== 'accept') throw new GenerationError(`${name}: refused ${JSON.stringify(o)}`);
  const p = b.policyFields;
  same(o.reason, e.reason, `${name}: reason`);
  same(o.priority, e.priority, `${name}: priority`);
  same(Object.fromEntries(o.pathways.map((x) => [x.id, x.status])), e.status, `${name}: statuses`);
  // §6.5: the TTL is min_ttl_s for buffer, floor and none, ttl_s otherwise.
  const ttl = ['buffer', 'floor', 'none'].includes(e.reason) ? p.min_ttl_s : p.ttl_s;
  same(o.ttl, ttl, `${name}: ttl (§6.5)`);
  if (e.ttl !== undefined) same(o.ttl, e.ttl, `${name}: ttl`);
  for (const [id, limits] of Object.entries(e.limits ?? {})) {
    same(o.pathways.find((x) => x.id === id)?.limits, limits, `${name}: limits of ${id}`);
  }
  for (const [id, f] of Object.entries(e.figures ?? {})) {
    const x = o.pathways.find((y) => y.id === id);
    same(
      x === undefined ? undefined : { class: x.class, joules: x.joules, delivery: x.delivery },
      f,
      `${name}: figure of ${id}`,
    );
  }
  // §5.4: what has no figure is stated as zeros.
  for (const x of o.pathways) {
    if (x.status !== 'figure')
      same([x.class, x.joules, x.delivery], [0, '0', '0'], `${name}: ${x.id} zeros`);
  }
  const d = b.decisionFields;
  const reported = {
    pathway: (d.report.present & PRESENT.pathway) !== 0 ? d.report.pathway : null,
    throughput:
      (d.report.present & PRESENT.throughput) !== 0 ? d.report.throughput.toString() : null,
    buffer: (d.report.present & PRESENT.buffer) !== 0 ? d.report.buffer.toString() : null,
  };
  same(reported, reportJson(b.report), `${name}: the decision's report`);
  if (e.report !== undefined) same(reported, e.report, `${name}: report`);
  // §6.3: the draw, computed here.
  same(d.draw, drawByHand(b.policyDigest, d.session), `${name}: draw (§6.3)`);
  if (e.band !== undefined) {
    const band = bandByHand(p, d.draw);
    same(band === null ? null : p.pathways[band]!.id, e.band, `${name}: band`);
  }
  // §8: the manifest, the URI, the tag and the element, written here from the text.
  const digest = b.decisionDigest;
  const manifest = manifestByHand(p, d, digest);
  same(o.manifest, manifest, `${name}: manifest (§8.1)`);
  same(o.digest, toHex(digest), `${name}: digest`);
  same(o.uri, p.decision_uri + toHex(digest), `${name}: uri (§8.4)`);
  if (e.clones !== undefined) check(manifest.includes(`,${e.clones},`), `${name}: PATHWAY-CLONES`);
  else check(!manifest.includes('PATHWAY-CLONES'), `${name}: no PATHWAY-CLONES`);
  same(hlsTag(parts.tagPolicy), hlsTagByHand(parts.tagPolicy), `${name}: HLS tag (§8.2)`);
  same(
    dashElement(parts.tagPolicy),
    dashElementByHand(parts.tagPolicy),
    `${name}: DASH element (§8.3)`,
  );
  // The decision is the server's: its protocol is the request's.
  same(d.protocol, b.scenario.protocol === 'hls' ? 1 : 2, `${name}: protocol`);
}

/** The policy the requests are read against: pathways cdn-a, cdn-b, cdn-c. */
function requestPolicy(env: Env): Uint8Array {
  const base = build(ONE_CLASS, env).policyFields;
  const fields: PolicyFields = {
    ...base,
    pathways: base.pathways.map((p, i) => ({ ...p, id: REQUEST_IDS[i]! })),
  };
  return seal('WSP1', encodePolicy(fields), env.steer.secret);
}

/** Accepted vectors that vary what the verifier is given rather than the decision. */
function acceptedVariants(
  ctx: Context,
): { name: string; note: string; scenario: Scenario; parts: Parts }[] {
  const one = ctx.built(ONE_CLASS);
  const base = partsOf(one);
  // Every record the hops signed, the window's and the others, in a seeded order.
  const all = [...one.blobs.values()];
  const prng = new Prng('records-any-order');
  for (let i = all.length - 1; i > 0; i--) {
    const j = prng.below(i + 1);
    [all[i], all[j]] = [all[j]!, all[i]!];
  }
  const first = base.records[0]!;
  return [
    {
      name: 'accept/no-manifest-given',
      note: 'The base decision with no manifest given: step 7 is skipped, and the outcome still states the §8.1 manifest.',
      scenario: ONE_CLASS,
      parts: { ...base, manifest: null },
    },
    {
      name: 'accept/records-in-any-order-with-extras',
      note: 'Every record the hops signed, including those of periods outside the window, given in a shuffled order: the decision names its records by digest.',
      scenario: ONE_CLASS,
      parts: { ...base, records: all },
    },
    {
      name: 'accept/duplicate-digest-first-given-wins',
      note: 'A record given twice under one digest: first as signed, then with a trailing byte. The first given is used (C9).',
      scenario: ONE_CLASS,
      parts: {
        ...base,
        records: [first, concat(first, new Uint8Array([0])), ...base.records.slice(1)],
      },
    },
    {
      name: 'accept/room-without-origin-key-log-not-read',
      note: 'A room that names no origin with bytes given as a head: they are not read (C6).',
      scenario: SOLO_ROOM,
      parts: {
        ...partsOf(ctx.built(SOLO_ROOM)),
        keyLog: new TextEncoder().encode('not a key log'),
      },
    },
  ];
}

/** Builds the corpus in memory. */
export function generateCorpus(): CorpusFile {
  const cache = new VerifierCache();
  // Every hop of every scenario, checked once for one class per key.
  originHops([...ACCEPTED, ...REFUSAL_SCENARIOS]);
  const solo = soloEnv();
  const envs = new Map<Scenario, Env>();
  const memo = new Map<Scenario, Built>();
  const ctx: Context = {
    env(s) {
      if (s.env === 'solo') return solo;
      let e = envs.get(s);
      if (e === undefined) {
        // The room with an origin, its head listing the room's keys and this scenario's hops.
        e = originEnv(originHops([s]));
        envs.set(s, e);
      }
      return e;
    },
    solo,
    built(s) {
      let b = memo.get(s);
      if (b === undefined) {
        b = build(s, ctx.env(s));
        memo.set(s, b);
      }
      return b;
    },
    builtIn: (s, env) => build(s, env),
  };

  // Requests.
  const policyHex = toHex(requestPolicy(ctx.env(ONE_CLASS)));
  const requests: RequestEntry[] = REQUESTS.map((c) => {
    const got = reportJson(readReport(c.request, [...REQUEST_IDS]));
    same(got, c.report, `request ${c.name}`);
    return { name: c.name, note: c.note, policy: policyHex, request: c.request, report: c.report };
  });

  const vectors: VectorEntry[] = [];
  const names = new Set<string>();
  const add = (v: VectorEntry): void => {
    check(!names.has(v.name), `two vectors named ${v.name}`);
    names.add(v.name);
    vectors.push(v);
  };

  // Accepted.
  for (const s of ACCEPTED) {
    const b = ctx.built(s);
    const parts = partsOf(b);
    const o = verify(parts, cache);
    checkAccepted(s.name, b, parts, o, s.expect);
    add(vectorOf(s.name, s.note, parts, s.expect, o, s.request ?? undefined));
  }
  for (const v of acceptedVariants(ctx)) {
    const b = ctx.built(v.scenario);
    const o = verify(v.parts, cache);
    checkAccepted(v.name, b, v.parts, o, v.scenario.expect);
    same(o, verify(partsOf(b), cache), `${v.name}: the same outcome as ${v.scenario.name}`);
    add(vectorOf(v.name, v.note, v.parts, v.scenario.expect, o, v.scenario.request ?? undefined));
  }

  // Refused.
  for (const c of REFUSED) {
    const parts = c.make(ctx);
    const o = verify(parts, cache);
    const want = { outcome: 'refuse', reason: c.reason, where: c.where };
    same(o, want, c.name);
    add(vectorOf(c.name, c.note, parts, { reason: c.reason, where: c.where }, o));
  }

  // Every reason of companion C7 refuses at least one vector.
  const covered = new Set(
    vectors.flatMap((v) => (v.outcome.outcome === 'refuse' ? [v.outcome.reason] : [])),
  );
  const missing = REASONS.filter((r) => !covered.has(r));
  check(missing.length === 0, `reasons with no refused vector: ${missing.join(', ')}`);

  // The decision of each vector reads for the records it names (a sanity check of the file).
  for (const v of vectors) {
    const d = readDecision(Uint8Array.from(Buffer.from(v.decision, 'hex')));
    if (d.ok && v.outcome.outcome === 'accept') {
      const given = new Set(
        v.records.map((r) => blobDigest(Uint8Array.from(Buffer.from(r, 'hex')))),
      );
      for (const p of d.value.pathways) {
        for (const digest of p.evidence)
          check(given.has(toHex(digest)), `${v.name}: a named record not given`);
      }
    }
  }
  return { version: 1, requests, vectors };
}

/** The file's text: JSON with 2-space indentation and a final newline. */
export function serializeCorpus(corpus: CorpusFile): string {
  return `${JSON.stringify(corpus, null, 2)}\n`;
}

/** The committed file's path. */
export const VECTORS_PATH = join(dirname(fileURLToPath(import.meta.url)), '..', 'vectors.json');

function main(args: readonly string[]): number {
  const text = serializeCorpus(generateCorpus());
  const out = args.find((a) => !a.startsWith('--')) ?? VECTORS_PATH;
  if (args.includes('--check')) {
    let old = '';
    try {
      old = readFileSync(out, 'utf8');
    } catch {
      // missing: differs
    }
    if (old !== text) {
      process.stderr.write(`${out} differs from what the generator writes\n`);
      return 1;
    }
    process.stdout.write(`${out} regenerates byte for byte\n`);
    return 0;
  }
  writeFileSync(out, text);
  const c = JSON.parse(text) as CorpusFile;
  const accepted = c.vectors.filter((v) => v.outcome.outcome === 'accept').length;
  process.stdout.write(
    `wrote ${out}: ${c.requests.length} requests, ${c.vectors.length} vectors (${accepted} accepted, ${c.vectors.length - accepted} refused), ${text.length} bytes\n`,
  );
  return 0;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = main(process.argv.slice(2));
}
