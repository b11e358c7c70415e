/**
 * §7.3: signing a decision. The server's encoder (`encode.ts`) writes the evidence of a window
 * once; with `encoder: 'wire'`, wire's `signDecision` writes every field every time. Both give
 * the same bytes (Ed25519 is deterministic), which {@link DecisionSigner.selfCheck} compares at
 * start.
 */
import { hash } from 'node:crypto';
import type { Evidence } from '@wai-steering/evidence';
import {
  bytesEqual,
  type CryptoBackend,
  type DecisionFields,
  signDecision,
} from '@wai-steering/wire';
import { DecisionEncoder } from '../encode.js';
import { joinDecision } from '../store/compact.js';
import type { StoredDecision } from '../store/store.js';

/** §7.3: the digest, SHA-256 over the bytes before `sig`. */
function digestOfDecision(bytes: Uint8Array): Uint8Array {
  return hash('sha256', bytes.subarray(0, bytes.length - 64), 'buffer');
}

export class DecisionSigner {
  private readonly encoder: DecisionEncoder | undefined;

  constructor(
    roomId: Uint8Array,
    publicKey: Uint8Array,
    policyDigest: Uint8Array,
    private readonly secretKey: Uint8Array,
    private readonly backend: CryptoBackend,
    kind: 'fast' | 'wire' = 'fast',
  ) {
    this.encoder =
      kind === 'wire' ? undefined : new DecisionEncoder(roomId, publicKey, policyDigest, secretKey);
  }

  /** The signed decision, as the store keeps it. */
  sign(fields: DecisionFields, evidence: Evidence): StoredDecision {
    if (this.encoder !== undefined) return this.encoder.encodeCompact(fields, evidence);
    const bytes = signDecision(fields, this.secretKey, { backend: this.backend, check: false });
    return { bytes, digest: digestOfDecision(bytes) };
  }

  /**
   * Signs `fields` both ways and requires the same bytes; throws when the encoder disagrees
   * with wire's `signDecision` (the server must not start then).
   */
  selfCheck(fields: DecisionFields, evidence: Evidence): void {
    if (this.encoder === undefined) return;
    const fast = this.encoder.encode(fields, evidence).bytes;
    const compact = this.encoder.encodeCompact(fields, evidence);
    const wire = signDecision(fields, this.secretKey, { backend: this.backend, check: true });
    if (
      !bytesEqual(fast, wire) ||
      !bytesEqual(joinDecision(compact.set, compact.tail), wire) ||
      !bytesEqual(compact.digest, digestOfDecision(wire))
    ) {
      throw new Error("the server's decision encoder disagrees with wire's signDecision");
    }
  }
}
