/**
 * What decisions under one policy need (§3, §5, §7): the policy, checked (`policy.ts`), its
 * pathway IDs, its per-window evidence cache (§5) and a signer of its digest (§7.3). Built once
 * when a policy is put in force, never per request.
 */
import { type Evidence, EvidenceCache, type EvidenceStore } from '@wai-steering/evidence';
import { assembleDecision, type Protocol, type Report } from '@wai-steering/rule';
import type { CryptoBackend, DecisionFields } from '@wai-steering/wire';
import type { CheckedPolicy } from './policy.js';
import { DecisionSigner } from './signer.js';

/** The steering key and how decisions are written: the same for every policy put in force. */
export interface SigningKey {
  readonly roomId: Uint8Array;
  /** The steering key's public key, each decision's `signer` (§3.5). */
  readonly publicKey: Uint8Array;
  readonly secretKey: Uint8Array;
  readonly backend: CryptoBackend;
  /** `fast` (default): the server's encoder (`encode.ts`); `wire`: wire's `signDecision`. */
  readonly encoder?: 'fast' | 'wire';
}

const NO_REPORT: Report = Object.freeze({ pathway: null, throughput: null, buffer: null });
const NO_SESSION = new Uint8Array(16);

/** A policy decisions can be made under. */
export class InForce {
  readonly policy: CheckedPolicy['policy'];
  readonly bytes: Uint8Array;
  /** §3.4: its digest, which each decision names. */
  readonly digest: Uint8Array;
  /** Its pathways' IDs, in its order. */
  readonly ids: readonly string[];
  /** Its pathways' capacities (§3.3, §6.1), in its order. */
  readonly capacities: Uint32Array;
  /** §5: the evidence of the window at an instant, computed once per window move. */
  readonly cache: EvidenceCache;
  readonly signer: DecisionSigner;

  constructor(
    checked: CheckedPolicy,
    private readonly key: SigningKey,
    evidence: EvidenceStore,
  ) {
    this.policy = checked.policy;
    this.bytes = checked.bytes;
    this.digest = checked.digest;
    this.ids = checked.policy.pathways.map((p) => p.id);
    this.capacities = Uint32Array.from(checked.policy.pathways, (p) => p.capacity);
    this.cache = new EvidenceCache(checked.policy, evidence);
    this.signer = new DecisionSigner(
      key.roomId,
      key.publicKey,
      checked.digest,
      key.secretKey,
      key.backend,
      key.encoder,
    );
  }

  /** §7.1: the fields of a decision at `t` over the evidence of its window and `loads`. */
  assemble(
    t: bigint,
    session: Uint8Array,
    protocol: Protocol,
    report: Report,
    loads: readonly number[],
  ): { fields: DecisionFields; evidence: Evidence } {
    const evidence = this.cache.at(t);
    const fields = assembleDecision({
      roomId: this.key.roomId,
      signer: this.key.publicKey,
      policy: this.policy,
      policyDigest: this.digest,
      t,
      session,
      protocol,
      report,
      evidence,
      loads,
      backend: this.key.backend,
    });
    return { fields, evidence };
  }

  /**
   * Signs one decision at `t` with the server's encoder and with wire's `signDecision`, and
   * throws unless the bytes are the same (`signer.ts`): run before a policy is put in force.
   */
  selfCheck(t: bigint, loads: readonly number[]): void {
    const { fields, evidence } = this.assemble(t, NO_SESSION, 'hls', NO_REPORT, loads);
    this.signer.selfCheck(fields, evidence);
  }
}
