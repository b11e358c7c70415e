import {
  bytesEqual,
  type CryptoBackend,
  type HopRecord,
  hopRecordBodyOf,
  type Refusal,
  type Result,
  readHopRecord,
  toHex,
  verifyHopRecord,
} from '@wai-steering/wire';
import { latin1 } from '@wai-steering/wire/internal';

/** What is known of one given record blob, independent of any decision. */
export interface BlobFacts {
  /** C9: the digest the blob answers to (over the bytes before where `sig` would begin). */
  readonly digest: string | undefined;
  /** C5.3 steps 1 and 2. */
  readonly read: Result<HopRecord>;
  /** C5.3 steps 3 and 4, by room id (hex): `null` when it verifies. */
  readonly verified: Map<string, Refusal | null>;
}

interface Held<T> {
  readonly copy: Uint8Array;
  readonly value: T;
}

/**
 * A cache of what verification learns of the records it is given, shared across verifications
 * (an audit of a server's decision log over the same records), so that each record's signature
 * is verified once, and the room, key log and policy of a run of decisions once.
 *
 * Entries are keyed by the bytes themselves: by the array given (checked against a copy, so that
 * bytes changed in place are not taken for the old ones) and, for records, by their content, so
 * that the same record read again from a file is found too.
 */
export class VerifierCache {
  private readonly byContent = new Map<string, BlobFacts>();
  private readonly byArray = new WeakMap<Uint8Array, Held<BlobFacts>>();
  private readonly memos = new WeakMap<object, Map<string, Held<unknown>>>();
  private readonly max: number;
  /** Record signatures verified through this cache (for audits and tests). */
  signaturesVerified = 0;

  constructor(maxEntries = 1 << 18) {
    this.max = maxEntries;
  }

  /** The facts of a record blob, computed once. */
  facts(blob: Uint8Array, backend: CryptoBackend): BlobFacts {
    const held = this.byArray.get(blob);
    if (held !== undefined && bytesEqual(held.copy, blob)) return held.value;
    const key = latin1(blob);
    let facts = this.byContent.get(key);
    if (facts === undefined) {
      const body = hopRecordBodyOf(blob);
      facts = {
        digest: body === undefined ? undefined : toHex(backend.sha256(body)),
        read: readHopRecord(blob),
        verified: new Map(),
      };
      if (this.byContent.size >= this.max) this.byContent.clear();
      this.byContent.set(key, facts);
    }
    this.byArray.set(blob, { copy: blob.slice(), value: facts });
    return facts;
  }

  /** C5.3 steps 3 and 4 for a record that reads, once per room. */
  verify(
    facts: BlobFacts,
    record: HopRecord,
    roomId: Uint8Array,
    backend: CryptoBackend,
  ): Refusal | null {
    const room = toHex(roomId);
    let outcome = facts.verified.get(room);
    if (outcome === undefined) {
      outcome = verifyHopRecord(record, roomId, backend) ?? null;
      this.signaturesVerified++;
      facts.verified.set(room, outcome);
    }
    return outcome;
  }

  /**
   * `compute()` once for the given arrays holding the same bytes (the room, key log and policy of
   * a run of decisions), under `scope` and `tag`.
   */
  memo<T>(scope: object, tag: string, parts: readonly Uint8Array[], compute: () => T): T {
    let held = this.memos.get(scope);
    if (held === undefined) {
      held = new Map();
      this.memos.set(scope, held);
    }
    const joined = concat(parts);
    const hit = held.get(tag);
    if (hit !== undefined && bytesEqual(hit.copy, joined)) return hit.value as T;
    const value = compute();
    held.set(tag, { copy: joined, value });
    return value;
  }
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  let n = 0;
  for (const p of parts) n += p.length + 4;
  const out = new Uint8Array(n);
  let o = 0;
  for (const p of parts) {
    new DataView(out.buffer).setUint32(o, p.length, true);
    out.set(p, o + 4);
    o += p.length + 4;
  }
  return out;
}
