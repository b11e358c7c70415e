/**
 * The policy in force (§3): the one decisions are made under now, and how it changes — the
 * operator's rotation (SIGHUP, the admin route), a live rotation signed from the sites' capacity
 * reports (`live-intake.ts`), the adoption of a policy another instance put in force, and joining
 * the store's policy at start. Changes run one at a time.
 *
 * On a store shared by several instances a policy is put in force for all of them: each
 * rotation is written to the store's order of policies (`claimPolicy`: the first to write a `seq`
 * wins), and the others adopt it. Sessions and loads carry over a change by pathway ID: each
 * session moves to its pathway's new index, and a removed pathway's sessions are dropped.
 */
import type { EvidenceStore } from '@wai-steering/evidence';
import type { RoomContext } from '@wai-steering/verifier';
import { bytesEqual, type Policy, toHex } from '@wai-steering/wire';
import type { LiveCapacity } from '../live/capacity.js';
import type { Metrics } from '../metrics.js';
import type { SessionTable } from '../sessions.js';
import type { PolicyClaim, PolicyStore } from '../store/store.js';
import { InForce, type SigningKey } from './in-force.js';
import { type CheckedPolicy, checkPolicy, pathwayMap } from './policy.js';
import type { PolicyRotated } from './types.js';

/** What {@link PolicyInForce} works with. */
export interface PolicyInForceOptions {
  readonly store: PolicyStore;
  readonly key: SigningKey;
  /** The room policies are checked against (its key log changes). */
  readonly room: () => RoomContext;
  /** The evidence index each policy's cache selects from. */
  readonly evidence: EvidenceStore;
  /** The sessions, shown under the pathway IDs of the policy in force. */
  readonly sessions: SessionTable;
  readonly metrics: Metrics;
  readonly now: () => bigint;
  /** Live capacity, when on: its template follows the operator's rotations. */
  readonly live: LiveCapacity | undefined;
  /** Tells the other instances that a policy was put in force (a store that notifies needs none). */
  readonly announce: () => void;
  /** Whether the engine is closing (nothing is adopted then). */
  readonly closing: () => boolean;
}

/** A rotation that other instances' rotations kept overtaking (or one this one cannot follow). */
export class RotationConflict extends Error {
  override readonly name = 'RotationConflict';
}

/** How many times a rotation is tried again when other instances keep rotating first. */
const ATTEMPTS = 8;

export class PolicyInForce {
  private current_: InForce;
  /** The `seq` of the policy in force in the store's order of policies; 0 before the first. */
  private seq = 0;
  /** The digest of the operator's policy (the template) the policy in force keeps the bounds of. */
  private template: Uint8Array;
  /** A template read with another instance's live policy, for `apply`. */
  private adoptedTemplate: Policy | undefined;
  /** The `seq` of a stored policy that was not taken (logged once). */
  private refusedSeq = 0;
  private turn: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly o: PolicyInForceOptions,
    initial: CheckedPolicy,
  ) {
    this.current_ = new InForce(initial, o.key, o.evidence);
    this.template = initial.digest;
  }

  /** The policy decisions are made under now. */
  get current(): InForce {
    return this.current_;
  }

  /**
   * The digest of the operator's policy the policy in force keeps the bounds of: the policy in
   * force itself, unless it was signed from live capacity.
   */
  get templateDigest(): Uint8Array {
    return this.template;
  }

  /**
   * Puts a policy in force: one the operator rotated in, or one signed from live capacity. It must
   * be of the room, verify and have a signer that may sign it (§3.5); it is kept in the store
   * before any decision names it (§8.4). An operator's rotation that another instance's overtakes
   * is written again after it.
   */
  async rotate(bytes: Uint8Array, by: 'operator' | 'live'): Promise<PolicyRotated> {
    const checked = checkPolicy(this.o.room(), bytes, this.o.key.backend);
    if (!checked.ok) throw new TypeError(`rotatePolicy: the policy ${checked.problem}`);
    return this.serially(() => this.rotateChecked(checked.value, by));
  }

  private async rotateChecked(
    checked: CheckedPolicy,
    by: 'operator' | 'live',
  ): Promise<PolicyRotated> {
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const r = await this.tryRotate(checked, by);
      if (r !== undefined) return r;
    }
    throw new RotationConflict(
      this.refusedSeq > this.seq
        ? 'rotatePolicy: the policy another instance put in force could not be taken here (see the log), so this one cannot follow it'
        : 'rotatePolicy: other instances kept rotating the policy first',
    );
  }

  /** Policy changes, one at a time (a rotation, an adoption, a report's rotation). */
  serially<T>(f: () => Promise<T>): Promise<T> {
    const run = this.turn.then(f, f);
    this.turn = run.catch(() => {});
    return run;
  }

  /** What decisions under a policy need, checked against wire's encoder. */
  private prepare(checked: CheckedPolicy): InForce {
    const next = new InForce(checked, this.o.key, this.o.evidence);
    next.selfCheck(
      this.o.now(),
      next.ids.map(() => 0),
    );
    return next;
  }

  /**
   * One attempt at a rotation, in turn (inside {@link serially}): `undefined` when another
   * instance put a policy in force first (then adopted here).
   */
  async tryRotate(
    checked: CheckedPolicy,
    by: 'operator' | 'live',
  ): Promise<PolicyRotated | undefined> {
    const next = this.prepare(checked);
    const { store, key } = this.o;
    const claim: PolicyClaim = {
      seq: this.seq + 1,
      digest: next.digest,
      bytes: next.bytes,
      template: by === 'operator' ? next.digest : this.template,
      at: this.o.now(),
      by,
    };
    if (store.claimPolicy !== undefined) {
      if (!(await store.claimPolicy(key.roomId, claim))) {
        await this.adoptNow();
        return undefined;
      }
      this.o.announce();
    } else {
      await store.putBlob('policy', next.digest, next.bytes);
    }
    return this.apply(next, claim);
  }

  /** Puts a prepared policy in force under its claim. */
  private apply(next: InForce, claim: PolicyClaim, counted = true): PolicyRotated {
    const map = pathwayMap(this.current_.policy, next.policy);
    // The sessions follow the policy of the next decision by pathway ID (sessions.ts).
    this.o.sessions.show(next.ids);
    const previous = this.current_.digest;
    this.current_ = next;
    this.seq = claim.seq;
    const templateChanged = !bytesEqual(claim.template, this.template);
    this.template = claim.template;
    const live = this.o.live;
    if (claim.by === 'operator') live?.setTemplate(next.policy);
    else if (templateChanged && this.adoptedTemplate !== undefined) {
      live?.setTemplate(this.adoptedTemplate);
    }
    this.adoptedTemplate = undefined;
    // The next live rotation waits a period from this one, on every instance alike.
    live?.rotated(claim.at);
    if (counted) this.o.metrics.rotations.inc({ by: claim.by });
    return {
      kind: 'rotated',
      by: claim.by,
      digest: next.digest,
      previous,
      remapped: map !== undefined,
    };
  }

  /**
   * Adopts the policy the store has in force when another instance put it there (its bytes are
   * checked as the operator's are: room, signature, signer); `undefined` when there is none newer.
   */
  adopt(): Promise<PolicyRotated | undefined> {
    return this.serially(() => this.adoptNow());
  }

  private async adoptNow(): Promise<PolicyRotated | undefined> {
    const { store, key } = this.o;
    if (store.policyInForce === undefined || this.o.closing()) return undefined;
    const claim = await store.policyInForce(key.roomId);
    if (claim === undefined || claim.seq <= this.seq) return undefined;
    if (bytesEqual(claim.digest, this.current_.digest)) {
      this.seq = claim.seq;
      this.o.live?.rotated(claim.at);
      return undefined;
    }
    const checked = checkPolicy(this.o.room(), claim.bytes, key.backend);
    if (!checked.ok) {
      this.refused(claim, checked.problem);
      return undefined;
    }
    if (claim.by === 'live' && !bytesEqual(claim.template, this.template)) {
      // A live policy of another template: its bounds are the template's, read from the store.
      const bytes = await store.getBlob('policy', claim.template);
      const template =
        bytes === undefined ? undefined : checkPolicy(this.o.room(), bytes, key.backend);
      if (template === undefined || !template.ok) {
        this.refused(claim, 'names a template the store does not hold, or one that fails');
        return undefined;
      }
      this.adoptedTemplate = template.value.policy;
    }
    return this.apply(this.prepare(checked.value), claim);
  }

  /** A policy of the store this instance cannot take: logged once, the one in force stays. */
  private refused(claim: PolicyClaim, problem: string): void {
    if (this.refusedSeq === claim.seq) return;
    this.refusedSeq = claim.seq;
    console.error(
      `wai-steering: the policy ${toHex(claim.digest)} another instance put in force was not taken: it ${problem}`,
    );
  }

  /**
   * At start, on a store that orders policies: joins the policy in force when it keeps this
   * configuration's bounds (this policy, or one signed from live capacity over it, when live
   * capacity is on); otherwise puts this configuration's policy in force for every instance (a
   * new policy file, as SIGHUP would).
   */
  async join(): Promise<void> {
    const { store, key } = this.o;
    if (store.policyInForce === undefined || store.claimPolicy === undefined) return;
    const mine = this.current_;
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const claim = await store.policyInForce(key.roomId);
      if (
        claim !== undefined &&
        bytesEqual(claim.template, mine.digest) &&
        (this.o.live !== undefined || bytesEqual(claim.digest, mine.digest))
      ) {
        if (bytesEqual(claim.digest, mine.digest)) {
          this.seq = claim.seq;
          this.o.live?.rotated(claim.at);
          return;
        }
        const checked = checkPolicy(this.o.room(), claim.bytes, key.backend);
        if (checked.ok) {
          // Joined, not rotated: the rotations metric counts this instance's changes.
          this.apply(this.prepare(checked.value), claim, false);
          return;
        }
      }
      const seq = (claim?.seq ?? 0) + 1;
      const at = this.o.now();
      const own: PolicyClaim = {
        seq,
        digest: mine.digest,
        bytes: mine.bytes,
        template: mine.digest,
        at,
        by: 'operator',
      };
      if (await store.claimPolicy(key.roomId, own)) {
        this.seq = seq;
        if (claim !== undefined) this.o.live?.rotated(at);
        return;
      }
    }
    throw new Error('the store: other instances kept rotating the policy while this one started');
  }
}
