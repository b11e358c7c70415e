import {
  type CryptoBackend,
  type HopRecord,
  hopRecordBodyOf,
  type Refusal,
  type Result,
  readHopRecord,
  toHex,
  verifyHopRecord,
} from '@wai-steering/wire';

/** What is known of one given record blob, independent of any decision. */
export interface BlobFacts {
  /** C9: the digest the blob answers to (over the bytes before where `sig` would begin). */
  readonly digest: string | undefined;
  /** C5.3 steps 1 and 2. */
  readonly read: Result<HopRecord>;
  /** C5.3 steps 3 and 4, by room id (hex): `null` when it verifies. */
  readonly verified: Map<string, Refusal | null>;
}

/**
 * A cache of what verification learns of each record, keyed by the record's whole bytes: its
 * digest, its reading and its signature outcome. Shared across verifications (an audit of a
 * server's decisions over the same records), it verifies each record's signature once.
 */
export class VerifierCache {
  private readonly blobs = new Map<string, BlobFacts>();
  private readonly max: number;
  /** Signatures verified through this cache (for audits and tests). */
  signaturesVerified = 0;

  constructor(maxEntries = 1 << 18) {
    this.max = maxEntries;
  }

  /** The facts of a blob, computed once. */
  facts(blob: Uint8Array, backend: CryptoBackend): BlobFacts {
    const key = latin1(blob);
    let facts = this.blobs.get(key);
    if (facts === undefined) {
      const body = hopRecordBodyOf(blob);
      facts = {
        digest: body === undefined ? undefined : toHex(backend.sha256(body)),
        read: readHopRecord(blob),
        verified: new Map(),
      };
      if (this.blobs.size >= this.max) this.blobs.clear();
      this.blobs.set(key, facts);
    }
    return facts;
  }

  /** C5.3 steps 3 and 4 for a record that reads, once per room. */
  verify(facts: BlobFacts, record: HopRecord, roomId: Uint8Array, backend: CryptoBackend) {
    const room = toHex(roomId);
    let outcome = facts.verified.get(room);
    if (outcome === undefined) {
      outcome = verifyHopRecord(record, roomId, backend) ?? null;
      this.signaturesVerified++;
      facts.verified.set(room, outcome);
    }
    return outcome;
  }
}

function latin1(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bytes.length; i += 4096) {
    s += String.fromCharCode(...bytes.subarray(i, i + 4096));
  }
  return s;
}
