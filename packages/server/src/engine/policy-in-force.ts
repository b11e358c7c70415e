/**
 * The policy in force (§3): the one decisions are made under, and how it changes — the
 * operator's rotation (SIGHUP, the admin route), a live rotation signed from the sites' capacity
 * reports (`live-intake.ts`), the adoption of a policy another instance put in force, and joining
 * the store's policy at start. Changes run one at a time.
 *
 * On a store shared by several instances a policy is put in force for all of them: each
 * rotation is written to the store's order of policies (`claimPolicy`: the first to write a `seq`
 * wins) with the instant from which it is in force (`at`), and the others adopt it. A decision at
 * `t` is made under the claim of the greatest `seq` whose `at` is at or before `t`
 * ({@link PolicyInForce.at}). An operator's rotation is claimed `lead` ahead of its instant (a
 * rotation's schedule: `policy-schedule.ts`), so that every instance has it before it applies: no
 * decision of one instance is made under another policy than a decision of another at the same
 * instant (`docs/live-policy.md`, *Several instances*). A live rotation keeps every pathway ID
 * and applies at once.
 *
 * Sessions and loads carry over a change by pathway ID: each session moves to its pathway's new
 * index, and a removed pathway's sessions are dropped.
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
import { type Due, Schedule } from './policy-schedule.js';
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
  /**
   * How far ahead of the room clock an operator's rotation is claimed, µs (0, the default: it
   * applies at once, as for a server alone on its store). With a lead, decisions are made only
   * while the order of policies was read less than half of it before (`fresh`).
   */
  readonly leadUs?: bigint;
}

/** A rotation that other instances' rotations kept overtaking (or one this one cannot follow). */
export class RotationConflict extends Error {
  override readonly name = 'RotationConflict';
}

/** How many times a rotation is tried again when other instances keep rotating first. */
const ATTEMPTS = 8;

export class PolicyInForce {
  private current_: InForce;
  /** The claim in force: its `seq` in the store's order of policies, 0 before the first. */
  private inForceSeq = 0;
  /** The digest of the operator's policy (the template) the policy in force keeps the bounds of. */
  private template: Uint8Array;
  /** The claims known ahead of their instant, and the greatest `seq` and `at` known. */
  private readonly schedule = new Schedule();
  /** The `seq` of a stored policy that was not taken (logged once). */
  private refusedSeq = 0;
  private turn: Promise<unknown> = Promise.resolve();
  private readonly lead: bigint;
  /** When the latest read of the order of policies began (room clock), if one succeeded. */
  private readAt: bigint | undefined;
  /** A read under way that decisions wait for ({@link refresh}). */
  private reading: Promise<void> | undefined;

  constructor(
    private readonly o: PolicyInForceOptions,
    initial: CheckedPolicy,
  ) {
    this.current_ = new InForce(initial, o.key, o.evidence);
    this.template = initial.digest;
    this.lead = o.leadUs ?? 0n;
  }

  /** The policy decisions are made under now (as of the last decision or sweep). */
  get current(): InForce {
    return this.current_;
  }

  /**
   * The policy decisions at `t` are made under: a claim whose instant has come is put in force
   * first (the latest of them; those it follows never are).
   */
  at(t: bigint): InForce {
    const due = this.schedule.dueAt(t);
    if (due !== undefined) this.apply(due);
    return this.current_;
  }

  /** The operator's rotation claimed and not yet in force, if any: its instant. */
  get pending(): bigint | undefined {
    return this.schedule.next;
  }

  /**
   * The digest of the operator's policy the latest policy known keeps the bounds of (the one in
   * force, or one claimed to apply later): the policy itself, unless it was signed from live
   * capacity.
   */
  get templateDigest(): Uint8Array {
    return this.schedule.last?.claim.template ?? this.template;
  }

  /**
   * Whether a decision at `t` may be made without reading the order of policies again: always
   * without a lead; otherwise while the latest read began less than half the lead before `t`
   * (every claim applying by `t` was written a lead before it, so that read saw it, whatever
   * the instances' clocks differ by, up to half the lead).
   */
  fresh(t: bigint): boolean {
    return this.lead === 0n || (this.readAt !== undefined && t - this.readAt < this.lead / 2n);
  }

  /** Reads the order of policies (one read for whoever waits); rejects when the store fails. */
  refresh(): Promise<void> {
    this.reading ??= this.adopt()
      .then(() => undefined)
      .finally(() => {
        this.reading = undefined;
      });
    return this.reading;
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
      // Another instance claimed the same policy first (SIGHUP on every worker): it is ours.
      const latest = this.schedule.last;
      if (latest !== undefined && bytesEqual(latest.claim.digest, checked.digest)) {
        return this.rotated(latest.claim, this.current_, latest.next);
      }
    }
    throw new RotationConflict(
      this.refusedSeq > this.schedule.seq
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

  /** What a rotation tells its caller: the policy, from when, and what it replaces. */
  private rotated(claim: PolicyClaim, previous: InForce, next: InForce): PolicyRotated {
    return {
      kind: 'rotated',
      by: claim.by,
      digest: next.digest,
      previous: previous.digest,
      remapped: pathwayMap(previous.policy, next.policy) !== undefined,
      from: claim.at,
    };
  }

  /**
   * One attempt at a rotation, in turn (inside {@link serially}): `undefined` when another
   * instance put a policy in force first (then adopted here), or for a live rotation while an
   * operator's waits for its instant (the live values apply to it once it is in force).
   */
  async tryRotate(
    checked: CheckedPolicy,
    by: 'operator' | 'live',
  ): Promise<PolicyRotated | undefined> {
    if (by === 'live' && this.schedule.next !== undefined) return undefined;
    const next = this.prepare(checked);
    const { store, key } = this.o;
    const now = this.o.now();
    const lead = by === 'operator' ? this.lead : 0n;
    const claim: PolicyClaim = {
      seq: this.schedule.seq + 1,
      digest: next.digest,
      bytes: next.bytes,
      template: by === 'operator' ? next.digest : this.template,
      // Never before a claim already made: the order's instants go forward with its `seq`.
      at: this.schedule.after(now + lead),
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
    const r = this.rotated(claim, this.current_, next);
    this.schedule.add({ claim, next });
    this.at(now);
    return r;
  }

  /** Puts a claim due now in force (its policy prepared). */
  private apply(due: Due, counted = true): void {
    const { claim, next } = due;
    // The sessions follow the policy of the next decision by pathway ID (sessions.ts).
    this.o.sessions.show(next.ids);
    this.current_ = next;
    this.inForceSeq = claim.seq;
    const templateChanged = !bytesEqual(claim.template, this.template);
    this.template = claim.template;
    const live = this.o.live;
    if (claim.by === 'operator') live?.setTemplate(next.policy);
    else if (templateChanged && due.template !== undefined) live?.setTemplate(due.template);
    // The next live rotation waits a period from this one, on every instance alike.
    live?.rotated(claim.at);
    if (counted) this.o.metrics.rotations.inc({ by: claim.by });
  }

  /**
   * Adopts the policies another instance put in force, or claimed to put in force later (their
   * bytes checked as the operator's are: room, signature, signer): the latest due now in force,
   * the others scheduled; `undefined` when none is new, or none due now.
   */
  adopt(): Promise<PolicyRotated | undefined> {
    return this.serially(() => this.adoptNow());
  }

  private async adoptNow(counted = true): Promise<PolicyRotated | undefined> {
    const { store, key } = this.o;
    if (this.o.closing()) return undefined;
    const began = this.o.now();
    let claims: PolicyClaim[];
    if (store.policySchedule !== undefined) claims = await store.policySchedule(key.roomId, began);
    else if (store.policyInForce !== undefined) {
      const latest = await store.policyInForce(key.roomId);
      claims = latest === undefined ? [] : [latest];
    } else return undefined;
    this.readAt = began;
    const previous = this.current_;
    let adopted = false;
    for (const claim of claims) {
      if (claim.seq <= this.schedule.seq) continue;
      if (bytesEqual(claim.digest, (this.schedule.last?.next ?? this.current_).digest)) {
        // The policy it would put in force already is (or is about to be): its place taken.
        this.schedule.add({ claim, next: this.schedule.last?.next ?? this.current_ });
        continue;
      }
      const checked = checkPolicy(this.o.room(), claim.bytes, key.backend);
      if (!checked.ok) {
        this.refused(claim, checked.problem);
        break;
      }
      let template: Policy | undefined;
      if (claim.by === 'live' && !bytesEqual(claim.template, this.templateDigest)) {
        // A live policy of another template: its bounds are the template's, read from the store.
        const bytes = await store.getBlob('policy', claim.template);
        const read =
          bytes === undefined ? undefined : checkPolicy(this.o.room(), bytes, key.backend);
        if (read === undefined || !read.ok) {
          this.refused(claim, 'names a template the store does not hold, or one that fails');
          break;
        }
        template = read.value.policy;
      }
      this.schedule.add({ claim, next: this.prepare(checked.value), template });
      adopted = true;
    }
    const due = this.schedule.dueAt(began);
    if (due !== undefined) this.apply(due, counted);
    if (!adopted || due === undefined || this.current_ === previous) return undefined;
    return this.rotated(due.claim, previous, this.current_);
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
   * At start, on a store that orders policies: takes the policy in force (and the claims made to
   * apply later) as another instance put them there; then, unless the latest keeps this
   * configuration's bounds (this policy, or one signed from live capacity over it when live
   * capacity is on), puts this configuration's policy in force for every instance, as the
   * operator's rotation it is (a new policy file, as SIGHUP would): a lead ahead, so that the
   * others have it when it applies (at once when none is in force yet).
   */
  async join(): Promise<void> {
    const { store, key } = this.o;
    if (store.policySchedule === undefined || store.claimPolicy === undefined) return;
    const mine = this.current_;
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      // Joined, not rotated: the rotations metric counts this instance's changes.
      await this.adoptNow(false);
      const latest = this.schedule.last?.claim;
      if (
        latest !== undefined &&
        bytesEqual(latest.template, mine.digest) &&
        (this.o.live !== undefined || bytesEqual(latest.digest, mine.digest))
      ) {
        return;
      }
      const now = this.o.now();
      // Nothing in force yet (or nothing this instance could take): this policy, at once.
      const alone = this.inForceSeq === 0 || this.refusedSeq > this.schedule.seq;
      const own: PolicyClaim = {
        seq: this.schedule.seq + 1,
        digest: mine.digest,
        bytes: mine.bytes,
        template: mine.digest,
        at: alone ? this.schedule.after(now) : this.schedule.after(now + this.lead),
        by: 'operator',
      };
      if (await store.claimPolicy(key.roomId, own)) {
        this.schedule.add({ claim: own, next: mine });
        if (this.schedule.dueAt(now) !== undefined) {
          // The configuration's policy, which decisions are made under already: no change.
          this.current_ = mine;
          this.o.sessions.show(mine.ids);
          this.inForceSeq = own.seq;
          this.template = own.template;
          if (latest !== undefined) this.o.live?.rotated(own.at);
        }
        return;
      }
    }
    throw new Error('the store: other instances kept rotating the policy while this one started');
  }
}
