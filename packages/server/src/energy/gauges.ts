/**
 * The trailing-24-hour savings for Prometheus (`docs/server.md`, *Metrics*): the account of the
 * default span (the last 24 hours of settled periods, `span.ts`) computed in the background, in
 * turn with the requests (`service.ts`), and its figures served as gauges from the last one
 * computed: never on the scrape path. Each account after the first reads only the periods
 * settled since the last and the last window's again, the rest kept (`kept.ts`): a minute's
 * decisions, not a day's. It is recomputed once a minute (or once a period, if longer), and less
 * often when an account takes long: the wait after one is at least 19 times what it took, so
 * that it holds at most a twentieth of the time.
 */
import type { EnergyAccount } from '@wai-steering/energy';
import type { Metrics } from '../metrics.js';
import { KeptPeriods } from './kept.js';
import type { EnergyService } from './service.js';

/** Options of {@link EnergyGauges}. */
export interface EnergyGaugesOptions {
  /** The least wait between two accounts, ms (default 60 000, or the period if longer). */
  readonly intervalMs?: number;
  /** The period P, ms, of the policy in force (read at each wait). */
  readonly periodMs: () => number;
  /** Where a failure is said (once per kind, until an account is computed again). */
  readonly log?: (line: string) => void;
}

/** The share of the time the gauges' accounts may take (1 / 20). */
const DUTY = 20;

export class EnergyGauges {
  private last: { account: EnergyAccount; tookS: number } | undefined;
  /** The trailing day's periods, kept from one account to the next. */
  private readonly kept = new KeptPeriods();
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private said = '';

  constructor(
    private readonly service: EnergyService,
    metrics: Metrics,
    private readonly o: EnergyGaugesOptions,
  ) {
    const J = (uj: bigint) => Number(uj) / 1e6;
    const one = (f: (a: EnergyAccount) => number | undefined) => () => {
      const a = this.last?.account;
      const v = a === undefined ? undefined : f(a);
      return v === undefined ? [] : [[{}, v] as const];
    };
    metrics.gauge(
      'wai_steering_energy_saved_average_joules',
      'Energy steering saved over the last 24 h of settled periods against the initial pathway, in the average (attributional) view; absent when the account states none.',
      one((a) => (a.saved_average_uj === null ? undefined : J(a.saved_average_uj))),
    );
    metrics.gauge(
      'wai_steering_energy_saved_marginal_joules',
      'Energy steering saved over the last 24 h of settled periods against the initial pathway, in the marginal (fitted power model) view; absent when the account states none.',
      one((a) => (a.saved_marginal_uj === null ? undefined : J(a.saved_marginal_uj))),
    );
    metrics.gauge(
      'wai_steering_energy_saved_marginal_ci95_joules',
      'The 95 % interval of the marginal saving, its low and high bound.',
      () => {
        const ci = this.last?.account.saved_marginal_ci95_uj;
        if (ci === null || ci === undefined) return [];
        return [
          [{ bound: 'low' }, ci[0] / 1e6],
          [{ bound: 'high' }, ci[1] / 1e6],
        ];
      },
    );
    metrics.gauge(
      'wai_steering_energy_account_span_seconds',
      'The span the energy gauges state: 24 h, or less since a change of policy the account cannot span.',
      one((a) => Number(a.to - a.from) / 1e6),
    );
    metrics.gauge(
      'wai_steering_energy_account_end_timestamp_seconds',
      'The end of the span the energy gauges state, Unix seconds (the room clock).',
      one((a) => Number(a.to) / 1e6),
    );
    metrics.gauge(
      'wai_steering_energy_account_duration_seconds',
      'How long the last account of the energy gauges took to compute (wall time).',
      () => (this.last === undefined ? [] : [[{}, this.last.tookS]]),
    );
  }

  /** Computes the gauges' account now (in turn with the requests). */
  async refresh(): Promise<void> {
    const started = performance.now();
    const answer = await this.service.keptAccount(this.kept);
    const tookS = (performance.now() - started) / 1000;
    if (answer.kind === 'account') {
      this.last = { account: answer.account, tookS };
      this.said = '';
      return;
    }
    // Refused (no settled period yet, a change of policy within a period): no figure to state.
    if (answer.kind === 'refused') this.last = undefined;
    if (answer.kind !== 'busy' && this.said !== answer.kind && !this.stopped) {
      this.said = answer.kind;
      (this.o.log ?? console.error)(
        `wai-steering: the energy gauges' account: ${answer.kind === 'refused' ? answer.message : answer.kind}`,
      );
    }
  }

  /** Starts the background accounts: the first in a second, then at the cadence above. */
  start(): void {
    const next = (tookMs: number) => {
      if (this.stopped) return;
      const wait = Math.max(this.o.intervalMs ?? 60_000, this.o.periodMs(), (DUTY - 1) * tookMs);
      this.timer = setTimeout(run, wait);
      this.timer.unref();
    };
    const run = () => {
      const started = performance.now();
      this.refresh()
        .catch((e: unknown) => {
          // A server closing closes its store under an account under way: nothing to say then.
          if (!this.stopped)
            (this.o.log ?? console.error)(`wai-steering: the energy gauges: ${String(e)}`);
        })
        .finally(() => next(performance.now() - started));
    };
    this.timer = setTimeout(run, 1000);
    this.timer.unref();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
  }
}
