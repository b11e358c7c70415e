/**
 * The energy counters of `/metrics` (`docs/server.md`, *Metrics*): each
 * pathway's joules and delivery, counted from the per-hop records this instance takes as they
 * arrive (a record new to the store; a duplicate is not counted again), so that each instance
 * counts what it ingested and the instances' sum is the deployment's. The totals are exact
 * (`bigint`, µJ, bytes, µs) and written as floats in base units at a scrape: joules, bytes,
 * seconds. Joules count every hop of the pathway, delivery its edge hops (§5.3), on both bases:
 * the media bytes out (basis 1) and the subscriber time at the policy's floor tier or above
 * (basis 2). A record of a hop on no pathway of the policy in force is not counted.
 */
import { deliveryOf } from '@wai-steering/evidence';
import { type HopRecordFields, type Policy, toHex } from '@wai-steering/wire';
import type { Metrics } from '../metrics.js';

interface Totals {
  joules: bigint;
  bytes: bigint;
  us: bigint;
}

/** §3.2 hop `place` 1: an edge hop. */
const EDGE = 1;

export class EnergyCounters {
  private readonly totals = new Map<string, Totals>();
  private of: Policy | undefined;
  private hops = new Map<string, { readonly pathway: string; readonly edge: boolean }>();

  constructor(metrics: Metrics) {
    const rows = (f: (t: Totals) => number) => () =>
      [...this.totals].map(([pathway, t]) => [{ pathway }, f(t)] as const);
    metrics.counter(
      'wai_steering_energy_joules_total',
      'Joules stated by the records of each pathway’s hops, as this instance took them (new to the store).',
      rows((t) => Number(t.joules) / 1e6),
    );
    metrics.counter(
      'wai_steering_energy_delivered_bytes_total',
      'Media bytes out stated by the records of each pathway’s edge hops (§5.3 basis 1), as this instance took them.',
      rows((t) => Number(t.bytes)),
    );
    metrics.counter(
      'wai_steering_energy_delivered_seconds_total',
      'Subscriber seconds at the policy’s floor tier or above stated by the records of each pathway’s edge hops (§5.3 basis 2), as this instance took them.',
      rows((t) => Number(t.us) / 1e6),
    );
  }

  /** Counts a record new to the store, under the policy in force. */
  count(policy: Policy, record: HopRecordFields): void {
    if (policy !== this.of) {
      this.of = policy;
      this.hops = new Map();
      for (const p of policy.pathways) {
        for (const h of p.hops)
          this.hops.set(toHex(h.key), { pathway: p.id, edge: h.place === EDGE });
      }
    }
    const hop = this.hops.get(toHex(record.hop));
    if (hop === undefined) return;
    let t = this.totals.get(hop.pathway);
    if (t === undefined) {
      t = { joules: 0n, bytes: 0n, us: 0n };
      this.totals.set(hop.pathway, t);
    }
    t.joules += record.joules;
    if (hop.edge) {
      t.bytes += deliveryOf(record, 1, policy.floor);
      t.us += deliveryOf(record, 2, policy.floor);
    }
  }
}
