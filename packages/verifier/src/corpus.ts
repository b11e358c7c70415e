import { dashElement, hlsTag } from '@wai-steering/manifest';
import { readReport, reportJson, type SteeringRequest } from '@wai-steering/rule';
import { type CryptoBackend, parseHex, type Reason, readPolicy } from '@wai-steering/wire';
import { VerifierCache } from './cache.js';
import type { Outcome } from './outcome.js';
import { verifyDecision } from './verify.js';

/** A steering request of the corpus, with the report companion C8 expects of it. */
export interface CorpusRequest {
  readonly name: string;
  readonly policy: string;
  readonly request: SteeringRequest;
  readonly report: unknown;
}

/** A verification vector of the corpus, with its expected outcome (companion C8). */
export interface CorpusVector {
  readonly name: string;
  readonly room: string;
  readonly key_log: string | null;
  readonly policy: string;
  readonly decision: string;
  readonly records: readonly string[];
  readonly manifest: string | null;
  readonly hls_tag?: string;
  readonly dash_element?: string;
  readonly outcome: Outcome;
}

/** The corpus: `conformance/vectors.json`'s shape. */
export interface Corpus {
  readonly version: number;
  readonly requests: readonly CorpusRequest[];
  readonly vectors: readonly CorpusVector[];
}

/** One case that did not give what the corpus states. */
export interface CorpusFailure {
  readonly kind: 'request' | 'vector';
  readonly name: string;
  readonly what: string;
  readonly expected: unknown;
  readonly got: unknown;
}

/** What running a corpus gives. */
export interface CorpusResult {
  readonly requests: { readonly total: number; readonly passed: number };
  readonly vectors: {
    readonly total: number;
    readonly passed: number;
    readonly accepted: number;
    readonly refused: number;
  };
  /** The reasons the corpus's refused vectors cover. */
  readonly reasons: readonly Reason[];
  readonly failures: readonly CorpusFailure[];
}

function bytesOf(hex: string, what: string): Uint8Array {
  const bytes = parseHex(hex);
  if (bytes === undefined) throw new TypeError(`${what}: not hexadecimal`);
  return bytes;
}

/** Deep equality of two JSON values (objects compared by their members, in any order). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  }
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  const bo = b as Record<string, unknown>;
  return ka.every(
    (k) => Object.hasOwn(bo, k) && jsonEqual((a as Record<string, unknown>)[k], bo[k]),
  );
}

/**
 * Runs a corpus in the shape of `conformance/vectors.json`: every request must give its report,
 * and every vector its outcome, reason, place and facts, and its HLS tag and DASH element.
 */
export function runCorpus(
  corpus: Corpus,
  options: { readonly backend?: CryptoBackend } = {},
): CorpusResult {
  const failures: CorpusFailure[] = [];
  let requestsPassed = 0;
  for (const req of corpus.requests) {
    const policy = readPolicy(bytesOf(req.policy, `${req.name}: policy`));
    if (!policy.ok) {
      failures.push({
        kind: 'request',
        name: req.name,
        what: 'policy',
        expected: 'a policy',
        got: policy.refusal.reason,
      });
      continue;
    }
    const got = reportJson(
      readReport(
        req.request,
        policy.value.pathways.map((p) => p.id),
      ),
    );
    if (jsonEqual(got, req.report)) requestsPassed++;
    else
      failures.push({ kind: 'request', name: req.name, what: 'report', expected: req.report, got });
  }
  const cache = new VerifierCache();
  const reasons = new Set<Reason>();
  let vectorsPassed = 0;
  let accepted = 0;
  let refusedCount = 0;
  for (const v of corpus.vectors) {
    const got = verifyDecision(
      {
        room: bytesOf(v.room, `${v.name}: room`),
        keyLog: v.key_log === null ? null : bytesOf(v.key_log, `${v.name}: key_log`),
        policy: bytesOf(v.policy, `${v.name}: policy`),
        decision: bytesOf(v.decision, `${v.name}: decision`),
        records: v.records.map((r, i) => bytesOf(r, `${v.name}: records[${i}]`)),
        manifest: v.manifest,
      },
      options.backend === undefined ? { cache } : { cache, backend: options.backend },
    );
    let ok = jsonEqual(got, v.outcome);
    if (!ok)
      failures.push({ kind: 'vector', name: v.name, what: 'outcome', expected: v.outcome, got });
    const policy = readPolicy(bytesOf(v.policy, `${v.name}: policy`));
    if (policy.ok) {
      if (v.hls_tag !== undefined && v.hls_tag !== hlsTag(policy.value)) {
        ok = false;
        failures.push({
          kind: 'vector',
          name: v.name,
          what: 'hls_tag',
          expected: v.hls_tag,
          got: hlsTag(policy.value),
        });
      }
      if (v.dash_element !== undefined && v.dash_element !== dashElement(policy.value)) {
        ok = false;
        failures.push({
          kind: 'vector',
          name: v.name,
          what: 'dash_element',
          expected: v.dash_element,
          got: dashElement(policy.value),
        });
      }
    }
    if (ok) vectorsPassed++;
    if (got.outcome === 'accept') accepted++;
    else {
      refusedCount++;
      if (ok) reasons.add(got.reason);
    }
  }
  return {
    requests: { total: corpus.requests.length, passed: requestsPassed },
    vectors: {
      total: corpus.vectors.length,
      passed: vectorsPassed,
      accepted,
      refused: refusedCount,
    },
    reasons: [...reasons].sort(),
    failures,
  };
}
