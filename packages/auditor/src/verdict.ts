/**
 * §9.1 for every decision of an archive: each decision verified against the room, the key log
 * head, the policy it names (taken from the archive) and the records it names, with one cache
 * shared by all of them, so that each record's signature is verified once (by digest).
 */
import { openRoom, type RoomContext, VerifierCache, verifyDecision } from '@wai-steering/verifier';
import {
  bytesEqual,
  type CryptoBackend,
  type Decision,
  getBackend,
  hopRecordBodyOf,
  type Place,
  type Reason,
  readDecision,
  toHex,
} from '@wai-steering/wire';
import { ArchiveError } from './archive.js';
import { FastVerifier } from './internal/fast.js';

/** C8's `where` of a refusal. */
export interface Where {
  readonly at: Place;
  readonly pathway?: number;
  readonly record?: number;
}

/** What the audit reads of a decision beyond its verdict (§7.1), when it reads. */
export interface DecisionFacts {
  readonly t: bigint;
  readonly session: Uint8Array;
  readonly policy: Uint8Array;
  /** Each pathway's stated `load`. */
  readonly loads: readonly number[];
  /** The first pathway of its priority. */
  readonly first: number;
  readonly ttl: number;
  readonly reason: number;
}

/**
 * A decision's facts, as read. `session` and `policy` are views of the decision's own copy (the
 * reader's): a worker packs them, the audit's thread uses them at once.
 */
export function factsOf(d: Decision): DecisionFacts {
  return {
    t: d.t,
    session: d.session,
    policy: d.policy,
    loads: d.pathways.map((pw) => pw.load),
    first: d.priority[0]!,
    ttl: d.ttl,
    reason: d.reason,
  };
}

/**
 * What the verification of one decision gave: accepted, or refused with its C7 reason and place;
 * with its facts when it reads. Its digest is {@link frameDigest} of its bytes, computed only
 * where it is written.
 */
export type Verdict = (
  | { readonly accepted: true }
  | {
      readonly accepted: false;
      readonly reason: Reason;
      readonly where: Where;
    }
) & { readonly facts?: DecisionFacts };

/** What a {@link DecisionVerifier} is given: the archive's materials. */
export interface VerifierMaterials {
  /** The room descriptor (`WRD1`). */
  readonly room: Uint8Array;
  /** The key log head (`WKL1`), or none. */
  readonly keyLog: Uint8Array | null;
  /** The room id the auditor pins its trust to; the descriptor must be that room's. */
  readonly roomId: Uint8Array;
  /** The archive's policies (`WSP1`). */
  readonly policies: Iterable<Uint8Array>;
  /** The archive's records (`WMH1`). */
  readonly records: Iterable<Uint8Array>;
  readonly backend?: CryptoBackend;
  /**
   * `fast` (default): steps 4 and 5 once per window's evidence (`internal/fast.ts`); `reference`:
   * `verifyDecision` for every decision (the same outcomes, slower).
   */
  readonly mode?: 'fast' | 'reference';
}

/**
 * A digest's SHA-256 input: a frame's bytes before the last 64 (a record's body, when it reads:
 * `sig` is its last 64 bytes), or all of them when there are fewer.
 */
export function fallbackBody(bytes: Uint8Array): Uint8Array {
  return bytes.length >= 64 ? bytes.subarray(0, bytes.length - 64) : bytes;
}

/**
 * The digest the audit gives a decision's frame, lowercase hex: SHA-256 over its bytes but the
 * last 64, which is the decision's digest (§3.4) when it reads.
 */
export function frameDigest(bytes: Uint8Array, backend: CryptoBackend): string {
  return toHex(backend.sha256(fallbackBody(bytes)));
}

/** Opens the room and pins it: an {@link ArchiveError} when it does not verify or is another. */
export function openPinnedRoom(
  room: Uint8Array,
  keyLog: Uint8Array | null,
  roomId: Uint8Array,
  backend?: CryptoBackend,
): RoomContext {
  const opened = openRoom(room, keyLog, backend === undefined ? {} : { backend });
  if (!opened.ok) {
    throw new ArchiveError(`the archive's room does not verify (${opened.refusal.reason})`);
  }
  if (!bytesEqual(opened.value.roomId, roomId)) {
    throw new ArchiveError(
      `the archive's room descriptor is the room ${toHex(opened.value.roomId)}, not ${toHex(roomId)}`,
    );
  }
  return opened.value;
}

/** Verifies decisions one by one against an archive's materials. */
export class DecisionVerifier {
  readonly ctx: RoomContext;
  readonly cache = new VerifierCache();
  private readonly backend: CryptoBackend;
  private readonly room: Uint8Array;
  private readonly keyLog: Uint8Array | null;
  /** Policies by digest (hex of SHA-256 over the bytes before `sig`, when they have one). */
  private readonly policies = new Map<string, Uint8Array>();
  /** Records by the digest they answer to (C9: the first given of a digest is used). */
  private readonly records = new Map<string, Uint8Array>();
  private readonly fast: FastVerifier | undefined;
  private lastPolicy: { digest: Uint8Array; bytes: Uint8Array } | undefined;
  /** The last decision read. */
  private lastRead: Decision | undefined;

  constructor(m: VerifierMaterials) {
    this.backend = m.backend ?? getBackend();
    this.ctx = openPinnedRoom(m.room, m.keyLog, m.roomId, this.backend);
    this.room = m.room;
    this.keyLog = m.keyLog;
    for (const p of m.policies) {
      const hex = toHex(this.backend.sha256(fallbackBody(p)));
      if (!this.policies.has(hex)) this.policies.set(hex, p);
    }
    for (const r of m.records) {
      const body = hopRecordBodyOf(r);
      if (body === undefined) continue;
      const hex = toHex(this.backend.sha256(body));
      if (!this.records.has(hex)) this.records.set(hex, r);
    }
    this.fast =
      (m.mode ?? 'fast') === 'fast'
        ? new FastVerifier(this.ctx, this.records, this.cache, this.backend)
        : undefined;
  }

  /** The records held, by digest. */
  get recordCount(): number {
    return this.records.size;
  }

  /** §9.1 steps 1 to 6 for one decision (no manifest is archived, so no step 7). */
  verify(bytes: Uint8Array): Verdict {
    // The decision before's figures and evidence taken when the bytes are the same (a window).
    const previous = this.lastRead;
    const read = readDecision(bytes, previous === undefined ? undefined : { previous });
    if (!read.ok) {
      return { accepted: false, reason: read.refusal.reason, where: { at: 'decision' } };
    }
    const d = read.value;
    this.lastRead = d;
    const facts = factsOf(d);
    const lp = this.lastPolicy;
    let policy: Uint8Array | undefined;
    if (lp !== undefined && bytesEqual(lp.digest, d.policy)) policy = lp.bytes;
    else {
      policy = this.policies.get(toHex(d.policy));
      if (policy !== undefined) this.lastPolicy = { digest: d.policy.slice(), bytes: policy };
    }
    if (policy === undefined) {
      // §9.1 step 3 in C9's order: the room first, then the policy digest.
      const reason: Reason = bytesEqual(d.room, this.ctx.roomId) ? 'record_missing' : 'wrong_room';
      return { accepted: false, reason, where: { at: 'decision' }, facts };
    }
    if (this.fast !== undefined) {
      const refusal = this.fast.verify(bytes, d, policy);
      return refusal === null ? { accepted: true, facts } : { accepted: false, ...refusal, facts };
    }
    const named: Uint8Array[] = [];
    for (const pw of d.pathways) {
      for (const e of pw.evidence) {
        const r = this.records.get(toHex(e));
        if (r !== undefined) named.push(r);
      }
    }
    const outcome = verifyDecision(
      { room: this.room, keyLog: this.keyLog, policy, decision: bytes, records: named },
      { backend: this.backend, cache: this.cache },
    );
    if (outcome.outcome === 'accept') return { accepted: true, facts };
    return { accepted: false, reason: outcome.reason, where: { ...outcome.where }, facts };
  }
}
