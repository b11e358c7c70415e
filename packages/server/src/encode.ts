/**
 * The steering server's decision encoder: §7.1's bytes and §7.3's signature, written for one
 * room, signer and policy, with each window's evidence encoded once.
 *
 * wire's `encodeDecision` and `signDecision` write a decision from its fields, every field every
 * time; a server writes thousands a second whose evidence (per pathway: status, class, J, D and
 * the digests of the records named, 3 pathways × 2 hops × 6 periods being 36 digests) is the same
 * for every decision of a window. Here each evidence object's pathway chunks are encoded once, a
 * decision is the fixed prefix, its own 47 bytes, each pathway's load and limits with the chunk,
 * then the TTL, reason and priority, written straight after the signing domain (C2) so that the
 * message signed is not copied again, and signed with a key made once (libsodium where it
 * loads, else `node:crypto`: `ed25519.ts`).
 *
 * The bytes are exactly wire's: a test checks them against `encodeDecision` and `signDecision`
 * (Ed25519 is deterministic, so the signatures agree too), and `DecisionSigner.selfCheck`
 * (`engine/signer.ts`) compares them before a policy is put in force.
 */
import { hash } from 'node:crypto';
import type { Evidence } from '@wai-steering/evidence';
import { bytesEqual, type DecisionFields, DOMAIN_TAGS } from '@wai-steering/wire';
import { type Ed25519SigningKey, ed25519SigningKey } from './ed25519.js';

/** C2: "wai:steering-decision" then 0x01. */
const DOMAIN = Buffer.from(`${DOMAIN_TAGS.WSD1}\u0001`, 'latin1');
const D = DOMAIN.length;
/** §7.1: magic, version, room, signer, policy. */
const PREFIX = 5 + 32 * 3;
/** A pathway chunk's head: status, class, joules, delivery, count. */
const CHUNK_HEAD = 1 + 1 + 16 + 16 + 1;

/** An evidence object's encoding: each pathway's chunk, and the evidence set of the store. */
interface EncodedEvidence {
  readonly chunks: readonly Uint8Array[];
  readonly size: number;
  /** room ‖ signer ‖ policy ‖ m ‖ chunks: the store's evidence set (`store/compact.ts`). */
  readonly set: Uint8Array;
}

/** A signed decision as the store keeps it: digest, evidence set and tail. */
export interface CompactEncodedDecision {
  readonly digest: Uint8Array;
  readonly set: Uint8Array;
  readonly tail: Uint8Array;
}

/** A signed decision, with the parts the store keeps. */
export interface EncodedDecision {
  /** The `WSD1` bytes. */
  readonly bytes: Uint8Array;
  /** The bytes before `sig` (a view of `bytes`). */
  readonly body: Uint8Array;
  /** The evidence set: the same object for every decision over one evidence object. */
  readonly set: Uint8Array;
}

const U64 = 0xffff_ffff_ffff_ffffn;

function u128(out: Uint8Array, at: number, v: bigint): void {
  if (v < 0n || v >> 128n !== 0n) throw new RangeError('a u128 out of range');
  const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
  view.setBigUint64(at, v & U64, true);
  view.setBigUint64(at + 8, v >> 64n, true);
}

/** A u64 (DataView's setBigUint64 would wrap one out of range). */
function u64(v: bigint): bigint {
  if (v < 0n || v >> 64n !== 0n) throw new RangeError('a u64 out of range');
  return v;
}

export class DecisionEncoder {
  private readonly prefix: Uint8Array;
  private readonly key: Ed25519SigningKey;
  private readonly encoded = new WeakMap<Evidence, EncodedEvidence>();
  /** The message buffer: the domain, then the body; grown when a decision needs more. */
  private message = new Uint8Array(4096);
  private view = new DataView(this.message.buffer);
  /** What `write` leaves: where each pathway's load is, where the fields after them begin. */
  private loadAt = new Int32Array(8);
  private after = 0;
  private set: Uint8Array = new Uint8Array(0);

  constructor(
    readonly room: Uint8Array,
    readonly signer: Uint8Array,
    readonly policyDigest: Uint8Array,
    secretKey: Uint8Array,
  ) {
    if (room.length !== 32 || signer.length !== 32 || policyDigest.length !== 32) {
      throw new RangeError('DecisionEncoder: room, signer and policy are 32 bytes each');
    }
    if (secretKey.length !== 32) throw new RangeError('DecisionEncoder: a 32-byte secret key');
    this.key = ed25519SigningKey(secretKey);
    if (!bytesEqual(this.key.publicKey, signer)) {
      throw new RangeError("DecisionEncoder: the secret key is not the signer's");
    }
    const p = new Uint8Array(PREFIX);
    p.set([0x57, 0x53, 0x44, 0x31, 0x01], 0); // "WSD1", version 1
    p.set(room, 5);
    p.set(signer, 37);
    p.set(policyDigest, 69);
    this.prefix = p;
  }

  /** The pathway chunks of an evidence object, encoded once. */
  private evidenceOf(evidence: Evidence, fields: DecisionFields): EncodedEvidence {
    let e = this.encoded.get(evidence);
    if (e === undefined) {
      const chunks = fields.pathways.map((pw) => {
        const k = pw.evidence.length;
        if (k > 255) throw new RangeError('more than 255 records named for a pathway (§7.1)');
        const c = new Uint8Array(CHUNK_HEAD + 32 * k);
        c[0] = pw.status;
        c[1] = pw.class;
        u128(c, 2, pw.joules);
        u128(c, 18, pw.delivery);
        c[34] = k;
        pw.evidence.forEach((digest, j) => {
          if (digest.length !== 32) throw new RangeError('a digest is 32 bytes');
          c.set(digest, CHUNK_HEAD + 32 * j);
        });
        return c;
      });
      const size = chunks.reduce((n, c) => n + c.length, 0);
      const set = new Uint8Array(97 + size);
      set.set(this.prefix.subarray(5), 0);
      set[96] = chunks.length;
      let o = 97;
      for (const c of chunks) {
        set.set(c, o);
        o += c.length;
      }
      e = { chunks, size, set };
      this.encoded.set(evidence, e);
    }
    return e;
  }

  /**
   * §7.1, §7.3: the signed decision of `fields`, which `assembleDecision` gave over `evidence`
   * (each pathway's status, class, J, D and digests are the evidence object's, encoded once per
   * object), with this encoder's room, signer and policy.
   */
  encode(fields: DecisionFields, evidence: Evidence): EncodedDecision {
    const size = this.write(fields, evidence);
    const set = this.set;
    const sig = this.key.sign(this.message.subarray(0, D + size));
    const bytes = new Uint8Array(size + 64);
    bytes.set(this.message.subarray(D, D + size), 0);
    bytes.set(sig, size);
    return { bytes, body: bytes.subarray(0, size), set };
  }

  /**
   * The hot path: the decision signed, as the store keeps it (`store/compact.ts`): its digest
   * (§7.3), its evidence set (the same object for every decision over one evidence object) and
   * its tail (its own fields and `sig`). The whole record is not built; `joinDecision(set, tail)`
   * gives its bytes.
   */
  encodeCompact(fields: DecisionFields, evidence: Evidence): CompactEncodedDecision {
    const size = this.write(fields, evidence);
    const { set, after, loadAt: loads } = this;
    const msg = this.message;
    const sig = this.key.sign(msg.subarray(0, D + size));
    // §7.3: SHA-256 over the body, with node:crypto's one-shot hash, the result used in place.
    const h = hash('sha256', msg.subarray(D, D + size), 'buffer');
    const digest = new Uint8Array(h.buffer, h.byteOffset, h.byteLength);
    const m = fields.pathways.length;
    const end = D + size;
    const tail = new Uint8Array(47 + 5 * m + (end - after) + 64);
    tail.set(msg.subarray(D + PREFIX, D + PREFIX + 47), 0);
    let t = 47;
    for (let i = 0; i < m; i++) {
      const at = loads[i]!;
      for (let j = 0; j < 5; j++) tail[t + j] = msg[at + j]!;
      t += 5;
    }
    tail.set(msg.subarray(after, end), t);
    tail.set(sig, t + (end - after));
    return { digest, set, tail };
  }

  /**
   * Writes the domain and the body into the message buffer; the body's size. It leaves the
   * evidence set in `set`, where each pathway's load is in `loadAt`, and where the fields after
   * the pathways begin in `after`.
   */
  private write(fields: DecisionFields, evidence: Evidence): number {
    const e = this.evidenceOf(evidence, fields);
    const m = fields.pathways.length;
    if (m !== e.chunks.length || fields.priority.length > 255) {
      throw new RangeError('the decision does not fit its evidence');
    }
    const size = PREFIX + 47 + 1 + 5 * m + e.size + 4 + 1 + 1 + fields.priority.length;
    if (
      (fields.room !== this.room && !bytesEqual(fields.room, this.room)) ||
      (fields.signer !== this.signer && !bytesEqual(fields.signer, this.signer)) ||
      (fields.policy !== this.policyDigest && !bytesEqual(fields.policy, this.policyDigest))
    ) {
      throw new RangeError("the decision is not of this encoder's room, signer and policy");
    }
    if (this.message.length < D + size) {
      this.message = new Uint8Array(2 * (D + size));
      this.view = new DataView(this.message.buffer);
    }
    const msg = this.message;
    const view = this.view;
    msg.set(DOMAIN, 0);
    msg.set(this.prefix, D);
    let o = D + PREFIX;
    view.setBigUint64(o, u64(fields.t), true);
    if (fields.session.length !== 16) throw new RangeError('a session is 16 bytes');
    msg.set(fields.session, o + 8);
    view.setUint32(o + 24, fields.draw, true);
    msg[o + 28] = fields.protocol;
    const r = fields.report;
    msg[o + 29] = r.present;
    msg[o + 30] = r.pathway;
    view.setBigUint64(o + 31, u64(r.throughput), true);
    view.setBigUint64(o + 39, u64(r.buffer), true);
    msg[o + 47] = m;
    o += 48;
    if (this.loadAt.length < m) this.loadAt = new Int32Array(2 * m);
    const loads = this.loadAt;
    for (let i = 0; i < m; i++) {
      const pw = fields.pathways[i]!;
      loads[i] = o;
      view.setUint32(o, pw.load, true);
      msg[o + 4] = pw.limits;
      o += 5;
      const chunk = e.chunks[i]!;
      msg.set(chunk, o);
      o += chunk.length;
    }
    const after = o;
    view.setUint32(o, fields.ttl, true);
    msg[o + 4] = fields.reason;
    msg[o + 5] = fields.priority.length;
    o += 6;
    for (const index of fields.priority) msg[o++] = index;
    this.set = e.set;
    this.after = after;
    return size;
  }
}
