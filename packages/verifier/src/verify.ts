import { decisionUri, writeManifest } from '@wai-steering/manifest';
import {
  bytesEqual,
  type CryptoBackend,
  type Decision,
  digestOf,
  getBackend,
  LIMIT,
  REASON_NAME,
  readDecision,
  STATUS_NAME,
  toHex,
} from '@wai-steering/wire';
import { VerifierCache } from './cache.js';
import { type Accepted, type Outcome, type Refused, refused, refusedBy } from './outcome.js';
import { openRoom, type RoomContext } from './room.js';
import {
  checkDecision,
  checkEvidence,
  checkOutput,
  type OpenedPolicy,
  openPolicy,
} from './steps.js';

/** §9.1: what a verifier is given. */
export interface VerifyInput {
  /** The room's descriptor (`WRD1`). */
  readonly room: Uint8Array;
  /** The head of the origin's key log (`WKL1`), or none. */
  readonly keyLog?: Uint8Array | null;
  /** The policy (`WSP1`). */
  readonly policy: Uint8Array;
  /** The decision (`WSD1`). */
  readonly decision: Uint8Array;
  /** The per-hop records (`WMH1`), as a set in any order; the decision names them by digest. */
  readonly records: readonly Uint8Array[];
  /** The steering manifest served with the decision, if any: its text or its bytes. */
  readonly manifest?: string | Uint8Array | null;
}

/** Options of {@link verifyDecision}. */
export interface VerifyOptions {
  /** The crypto backend; the default backend when absent. */
  readonly backend?: CryptoBackend;
  /** A cache shared across verifications, so that each record's signature is verified once. */
  readonly cache?: VerifierCache;
}

const ENCODER = new TextEncoder();
const EMPTY = new Uint8Array(0);

/** §9.1 steps 1 and 2: the room (at `room`), then the policy (at `policy`). */
function openAll(
  input: VerifyInput,
  backend: CryptoBackend,
): (OpenedPolicy & { ctx: RoomContext }) | Refused {
  const opened = openRoom(input.room, input.keyLog, { backend });
  if (!opened.ok) return refusedBy(opened.refusal, 'room');
  const ctx = opened.value;
  const policy = openPolicy(ctx, input.policy, { backend });
  return 'outcome' in policy ? policy : { ctx, ...policy };
}

/**
 * §9.1 steps 1 to 7: verifies a decision from the room, its key log head, the policy, the
 * records and, optionally, the manifest served with it; stops at the first refusal. The outcome
 * is companion C8's.
 */
export function verifyDecision(input: VerifyInput, options: VerifyOptions = {}): Outcome {
  const backend = options.backend ?? getBackend();
  const cache = options.cache ?? new VerifierCache();

  // §9.1 steps 1 and 2, once for a run of decisions over the same room, key log and policy.
  const parts = [input.room, input.keyLog ?? EMPTY, input.policy];
  const opened = cache.memo(backend, 'room+policy', parts, () => openAll(input, backend));
  if ('outcome' in opened) return opened;
  const { ctx, policy } = opened;

  // §9.1 step 3: the decision, at `decision` (C9 order: reading and rules; room; policy digest;
  // count; signature; signer).
  const readD = readDecision(input.decision);
  if (!readD.ok) return refusedBy(readD.refusal, 'decision');
  const decision: Decision = readD.value;
  const badDecision = checkDecision(ctx, opened, decision, { backend });
  if (badDecision !== undefined) return badDecision;

  // §9.1 steps 4 and 5: each record named, in order, at `evidence`; the evidence, at `pathway`.
  const given = new Map<string, Uint8Array>();
  for (const blob of input.records) {
    if (!(blob instanceof Uint8Array)) throw new TypeError('verifyDecision: records must be bytes');
    const digest = cache.facts(blob, backend).digest;
    // C9: when several given records answer to one digest, the first given is used.
    if (digest !== undefined && !given.has(digest)) given.set(digest, blob);
  }
  const badEvidence = checkEvidence(ctx, policy, decision, (hex) => given.get(hex), {
    backend,
    cache,
  });
  if (badEvidence !== undefined) return badEvidence;

  // §9.1 step 6: the output, at `output`.
  const badOutput = checkOutput(opened, decision, { backend });
  if (badOutput !== undefined) return badOutput;

  // §9.1 step 7: the manifest, at `manifest`, when one is given.
  const digest = digestOf(decision, backend);
  const manifest = writeManifest(policy, decision, digest);
  if (input.manifest !== undefined && input.manifest !== null) {
    const given =
      typeof input.manifest === 'string' ? ENCODER.encode(input.manifest) : input.manifest;
    if (!bytesEqual(given, ENCODER.encode(manifest)))
      return refused('manifest_mismatch', 'manifest');
  }

  // §9.3: accepted.
  const accepted: Accepted = {
    outcome: 'accept',
    digest: toHex(digest),
    priority: decision.priority.map((p) => policy.pathways[p]!.id),
    ttl: decision.ttl,
    reason: REASON_NAME[decision.reason]!,
    pathways: decision.pathways.map((pw, i) => ({
      id: policy.pathways[i]!.id,
      status: STATUS_NAME[pw.status]!,
      class: pw.class,
      joules: pw.joules.toString(),
      delivery: pw.delivery.toString(),
      limits: {
        latency: (pw.limits & LIMIT.latency) !== 0,
        quality: (pw.limits & LIMIT.quality) !== 0,
        capacity: (pw.limits & LIMIT.capacity) !== 0,
      },
    })),
    manifest,
    uri: decisionUri(policy, digest),
  };
  return accepted;
}
