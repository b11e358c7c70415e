/**
 * The runner of the corpus: every request gives its report, every vector its outcome, reason,
 * place and facts; every reason of companion C7 is covered by a refused vector; the reason codes
 * of the code are C7's and energy-steering §10's; and every single-byte mutation of an accepted
 * vector's policy, decision, named records and manifest is refused.
 *
 * Usage: `pnpm --filter @wai-steering/conformance corpus [--vectors FILE] [--positions N]`.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { readReport, reportJson } from '@wai-steering/rule';
import {
  type Corpus,
  type CorpusResult,
  type Outcome,
  runCorpus,
  VerifierCache,
  verifyDecision,
} from '@wai-steering/verifier';
import {
  type CryptoBackend,
  fromHex,
  nobleBackend,
  PRESENT,
  REASONS,
  readDecision,
  readPolicy,
  toHex,
} from '@wai-steering/wire';
import { nodeBackend } from '@wai-steering/wire/node';
import type { CorpusFile, VectorEntry } from './generate.js';
import { Prng } from './prng.js';
import { blobDigest } from './world.js';

const HERE = dirname(fileURLToPath(import.meta.url));

/** The committed corpus. */
export const DEFAULT_VECTORS = join(HERE, '..', 'vectors.json');

export function loadCorpus(path: string = DEFAULT_VECTORS): CorpusFile {
  return JSON.parse(readFileSync(path, 'utf8')) as CorpusFile;
}

// ---- facts ----------------------------------------------------------------------------------

export interface FactFailure {
  readonly name: string;
  readonly what: string;
}

function eq(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Each vector's outcome, verified afresh, has the facts the corpus states by hand. */
export function checkFacts(
  corpus: CorpusFile,
  backend: CryptoBackend = nobleBackend,
): { failures: FactFailure[]; outcomes: Map<string, Outcome> } {
  const failures: FactFailure[] = [];
  const outcomes = new Map<string, Outcome>();
  const cache = new VerifierCache();
  for (const v of corpus.vectors) {
    const o = verifyDecision(inputOf(v), { cache, backend });
    outcomes.set(v.name, o);
    const fail = (what: string): void => {
      failures.push({ name: v.name, what });
    };
    const f = v.facts as Record<string, unknown>;
    if (o.outcome === 'refuse') {
      if (o.reason !== f.reason) fail(`reason ${o.reason}, stated ${String(f.reason)}`);
      if (!eq(o.where, f.where))
        fail(`place ${JSON.stringify(o.where)}, stated ${JSON.stringify(f.where)}`);
      continue;
    }
    if (!('priority' in f)) {
      fail(`accepted, stated ${String(f.reason)}`);
      continue;
    }
    const facts = v.facts as Extract<VectorEntry['facts'], { priority: unknown }>;
    if (o.reason !== facts.reason) fail(`reason ${o.reason}, stated ${facts.reason}`);
    if (!eq(o.priority, facts.priority)) fail(`priority ${o.priority.join(',')}`);
    const status = Object.fromEntries(o.pathways.map((p) => [p.id, p.status]));
    if (!eq(status, facts.status)) fail(`statuses ${JSON.stringify(status)}`);
    if (facts.ttl !== undefined && o.ttl !== facts.ttl) fail(`ttl ${o.ttl}`);
    for (const [id, limits] of Object.entries(facts.limits ?? {})) {
      if (!eq(o.pathways.find((p) => p.id === id)?.limits, limits)) fail(`limits of ${id}`);
    }
    for (const [id, fig] of Object.entries(facts.figures ?? {})) {
      const p = o.pathways.find((x) => x.id === id);
      if (p === undefined || !eq({ class: p.class, joules: p.joules, delivery: p.delivery }, fig)) {
        fail(`figure of ${id}`);
      }
    }
    if (facts.clones !== undefined && !o.manifest.includes(facts.clones)) fail('PATHWAY-CLONES');
    // The decision's report is what §4 reads from the vector's request.
    const d = readDecision(fromHex(v.decision));
    const p = readPolicy(fromHex(v.policy));
    if (d.ok && p.ok) {
      const r = d.value.report;
      const stated = {
        pathway: (r.present & PRESENT.pathway) !== 0 ? r.pathway : null,
        throughput: (r.present & PRESENT.throughput) !== 0 ? r.throughput.toString() : null,
        buffer: (r.present & PRESENT.buffer) !== 0 ? r.buffer.toString() : null,
      };
      if (facts.report !== undefined && !eq(stated, facts.report)) fail('report');
      if (v.request !== undefined) {
        const read = reportJson(
          readReport(
            v.request,
            p.value.pathways.map((x) => x.id),
          ),
        );
        if (!eq(read, stated)) fail(`report read from the request ${JSON.stringify(read)}`);
      }
    }
  }
  return { failures, outcomes };
}

function inputOf(v: VectorEntry, replace?: { what: string; bytes: Uint8Array }) {
  const pick = (what: string, hex: string): Uint8Array =>
    replace !== undefined && replace.what === what ? replace.bytes : fromHex(hex);
  return {
    room: fromHex(v.room),
    keyLog: v.key_log === null ? null : fromHex(v.key_log),
    policy: pick('policy', v.policy),
    decision: pick('decision', v.decision),
    records: v.records.map((r, i) => pick(`records[${i}]`, r)),
    manifest: replace !== undefined && replace.what === 'manifest' ? replace.bytes : v.manifest,
  };
}

/** The runner of the verifier package over the file, as any implementation runs it. */
export function runFile(corpus: CorpusFile, backend?: CryptoBackend): CorpusResult {
  return runCorpus(corpus as unknown as Corpus, backend === undefined ? {} : { backend });
}

/** The reasons the corpus's refused vectors cover. */
export function coveredReasons(corpus: CorpusFile): Set<string> {
  return new Set(
    corpus.vectors.flatMap((v) => (v.outcome.outcome === 'refuse' ? [v.outcome.reason] : [])),
  );
}

// ---- the reason codes ----------------------------------------------------------------------

/** `reasons.json`: companion C7's table and energy-steering §10's codes, copied from the texts. */
interface ReasonsFile {
  readonly c7: readonly { readonly from: string; readonly codes: readonly string[] }[];
  readonly section10: {
    readonly table: readonly { readonly reason: string; readonly raisedAt: string }[];
    readonly alsoRaises: readonly string[];
    readonly alsoRaisesForTheRoom: readonly string[];
  };
}

/** The path of `reasons.json`, beside this package's `src/`. */
export const REASONS_PATH: string = resolve(HERE, '..', 'reasons.json');

/**
 * The reason codes of the code (wire's REASONS), C7's (in the order of its table) and §10's: its
 * table, the codes its paragraph says a verifier also raises, and "live-rooms §9.1's codes for
 * the room", which are C7's live-rooms row (`room` is the row's codes as §10 reads them).
 */
export function reasonLists(path: string = REASONS_PATH): {
  code: string[];
  c7: string[];
  section10: string[];
  room: { section10: string[]; c7: string[] };
} {
  const file = JSON.parse(readFileSync(path, 'utf8')) as ReasonsFile;
  const s10 = file.section10;
  const liveRooms = file.c7.find((r) => /live-rooms/.test(r.from));
  return {
    code: [...REASONS],
    c7: file.c7.flatMap((r) => r.codes),
    section10: [
      ...new Set([
        ...s10.table.map((r) => r.reason),
        ...s10.alsoRaises,
        ...s10.alsoRaisesForTheRoom,
      ]),
    ],
    room: { section10: [...s10.alsoRaisesForTheRoom], c7: [...(liveRooms?.codes ?? [])] },
  };
}

// ---- mutation -------------------------------------------------------------------------------

export interface MutationResult {
  readonly vectors: number;
  readonly blobs: number;
  readonly tried: number;
  readonly refused: number;
  /** Mutations refused, by reason. */
  readonly byReason: Readonly<Record<string, number>>;
  /** Mutations refused, by what was mutated (policy, decision, record, manifest). */
  readonly byBlob: Readonly<Record<string, { tried: number; refused: number }>>;
  /** Mutations that were not refused: each a failure. */
  readonly accepted: readonly string[];
}

/**
 * For every accepted vector: the policy, the decision, each record the decision names and the
 * manifest given, each mutated at `positions` positions chosen by a seeded generator (all of
 * them for a shorter blob), one byte XORed with a non-zero byte of the generator. Every mutated
 * copy must be refused.
 */
export function mutate(
  corpus: CorpusFile,
  options: { positions?: number; backend?: CryptoBackend } = {},
): MutationResult {
  const positions = options.positions ?? 16;
  const backend = options.backend ?? nobleBackend;
  const cache = new VerifierCache();
  const byReason: Record<string, number> = {};
  const byBlob: Record<string, { tried: number; refused: number }> = {};
  const accepted: string[] = [];
  let vectors = 0;
  let blobs = 0;
  let tried = 0;
  let refused = 0;
  for (const v of corpus.vectors) {
    if (v.outcome.outcome !== 'accept') continue;
    vectors++;
    const targets: { what: string; kind: string; bytes: Uint8Array }[] = [
      { what: 'policy', kind: 'policy', bytes: fromHex(v.policy) },
      { what: 'decision', kind: 'decision', bytes: fromHex(v.decision) },
    ];
    // The records the decision names: for each named digest, the first given that answers to it.
    const d = readDecision(fromHex(v.decision));
    if (!d.ok) throw new Error(`${v.name}: an accepted decision that does not read`);
    const named = new Set(d.value.pathways.flatMap((p) => p.evidence.map((x) => toHex(x))));
    const used = new Set<string>();
    v.records.forEach((hex, i) => {
      const digest = blobDigest(fromHex(hex));
      if (digest !== undefined && named.has(digest) && !used.has(digest)) {
        used.add(digest);
        targets.push({ what: `records[${i}]`, kind: 'record', bytes: fromHex(hex) });
      }
    });
    if (v.manifest !== null) {
      targets.push({
        what: 'manifest',
        kind: 'manifest',
        bytes: new TextEncoder().encode(v.manifest),
      });
    }
    for (const t of targets) {
      blobs++;
      const prng = new Prng(`mutation:${v.name}:${t.what}`);
      const tally = byBlob[t.kind] ?? { tried: 0, refused: 0 };
      byBlob[t.kind] = tally;
      for (const at of prng.sample(t.bytes.length, positions)) {
        const mask = 1 + prng.below(255);
        const bytes = t.bytes.slice();
        bytes[at] = bytes[at]! ^ mask;
        const o = verifyDecision(inputOf(v, { what: t.what, bytes }), { cache, backend });
        tried++;
        tally.tried++;
        if (o.outcome === 'refuse') {
          refused++;
          tally.refused++;
          byReason[o.reason] = (byReason[o.reason] ?? 0) + 1;
        } else {
          accepted.push(`${v.name}: ${t.what} byte ${at} ^ 0x${mask.toString(16)}`);
        }
      }
    }
  }
  const sorted = Object.fromEntries(Object.entries(byReason).sort(([a], [b]) => (a < b ? -1 : 1)));
  return { vectors, blobs, tried, refused, byReason: sorted, byBlob, accepted };
}

export function mutationSummary(m: MutationResult): string {
  const lines = [
    `mutations ${m.tried} tried over ${m.blobs} blobs of ${m.vectors} accepted vectors: ${m.refused} refused, ${m.accepted.length} accepted`,
    ...Object.entries(m.byBlob).map(([k, t]) => `  ${k.padEnd(9)} ${t.refused}/${t.tried} refused`),
    ...Object.entries(m.byReason).map(([r, n]) => `  ${r.padEnd(24)} ${n}`),
  ];
  return lines.join('\n');
}

// ---- the command ----------------------------------------------------------------------------

function main(args: readonly string[]): number {
  const at = args.indexOf('--vectors');
  const path = at >= 0 && args[at + 1] !== undefined ? resolve(args[at + 1]!) : DEFAULT_VECTORS;
  const p = args.indexOf('--positions');
  const positions = p >= 0 ? Number(args[p + 1]) : 16;
  const corpus = loadCorpus(path);
  const result = runFile(corpus);
  const facts = checkFacts(corpus);
  const covered = coveredReasons(corpus);
  const missing = REASONS.filter((r) => !covered.has(r));
  const out = [
    `corpus    ${path}`,
    `requests  ${result.requests.passed}/${result.requests.total} give their report`,
    `vectors   ${result.vectors.passed}/${result.vectors.total} give their outcome (${result.vectors.accepted} accepted, ${result.vectors.refused} refused)`,
    `facts     ${facts.failures.length} failing`,
    `reasons   ${covered.size}/${REASONS.length} of C7 covered${missing.length > 0 ? `; missing ${missing.join(', ')}` : ''}`,
  ];
  for (const f of result.failures) out.push(`  FAIL ${f.kind} ${f.name}: ${f.what}`);
  for (const f of facts.failures) out.push(`  FAIL ${f.name}: ${f.what}`);
  process.stdout.write(`${out.join('\n')}\n`);
  const m = mutate(corpus, { positions, backend: nodeBackend });
  process.stdout.write(`${mutationSummary(m)}\n`);
  for (const a of m.accepted) process.stdout.write(`  FAIL mutation accepted: ${a}\n`);
  const ok =
    result.failures.length === 0 &&
    facts.failures.length === 0 &&
    missing.length === 0 &&
    m.accepted.length === 0;
  return ok ? 0 : 1;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = main(process.argv.slice(2));
}
