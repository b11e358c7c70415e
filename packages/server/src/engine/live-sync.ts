/**
 * Keeping the policy in force in step with the other instances (`docs/live-policy.md`): the
 * policy another instance put in force adopted, with the capacity reports it was signed from,
 * and, on a timer or when the store announces a change, the policy the live values call for
 * signed. A store that does not answer is told once per state change (`health.ts`); the policy
 * held stays in force.
 */
import { describeError, type FaultSink } from '../health.js';
import type { Metrics } from '../metrics.js';
import type { LiveIntake } from './live-intake.js';
import type { PolicyInForce } from './policy-in-force.js';
import type { PolicyRotated } from './types.js';

/** What {@link LiveSync} keeps in step, and where it tells faults. */
export interface LiveSyncOptions {
  readonly policies: PolicyInForce;
  readonly live: LiveIntake | undefined;
  readonly health: FaultSink;
  readonly metrics: Metrics;
}

/** The policy in force and the live reports, read again from the store. */
export class LiveSync {
  constructor(private readonly o: LiveSyncOptions) {}

  /** Adopts the policy another instance put in force, with the reports it was signed from. */
  async adopt(): Promise<PolicyRotated | undefined> {
    try {
      const adopted = await this.o.policies.adopt();
      if (adopted !== undefined) await this.o.live?.readReports();
      this.o.health.clear('store_queries');
      return adopted;
    } catch (e) {
      this.failed(e);
      return undefined;
    }
  }

  /**
   * Catches up with the other instances (the policy in force, the site reports they took), then
   * signs the policy the live values call for, if any.
   */
  async sync(): Promise<PolicyRotated | undefined> {
    try {
      const adopted = await this.o.policies.adopt();
      await this.o.live?.readReports();
      const rotated = (await this.o.live?.tick()) ?? adopted;
      this.o.health.clear('store_queries');
      return rotated;
    } catch (e) {
      this.failed(e);
      return undefined;
    }
  }

  /** Keeping the live policy failed (the store did not answer): told once per state change. */
  private failed(e: unknown): void {
    this.o.metrics.storeErrors.inc({ op: 'query' });
    this.o.health.fail('store_queries', `the policy in force cannot be read: ${describeError(e)}`);
  }
}
