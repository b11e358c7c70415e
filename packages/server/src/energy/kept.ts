/**
 * The trailing day's periods kept between the energy gauges' accounts (`gauges.ts`): each
 * period's facts (`PeriodFacts` of `@wai-steering/energy`), so that an account reads only the
 * periods settled since the last one (and the last window's again) rather than the whole day
 * (docs/energy.md, *Kept period by period*). Contiguous, in ascending `start`, all made under one
 * timeline of policies (`key`).
 */
import type { PeriodFacts } from '@wai-steering/energy';

export class KeptPeriods {
  private facts: PeriodFacts[] = [];
  private key_ = '';

  /** The timeline of policies the facts were made under. */
  get key(): string {
    return this.key_;
  }

  /** The first period's start, `undefined` when none is kept. */
  get start(): bigint | undefined {
    return this.facts[0]?.start;
  }

  /** The periods kept. */
  get size(): number {
    return this.facts.length;
  }

  /** Forgets every period; those kept next are made under `key`. */
  reset(key: string): void {
    this.facts = [];
    this.key_ = key;
  }

  /** The end of the last period kept (`P` its length), `undefined` when none is. */
  end(P: bigint): bigint | undefined {
    const last = this.facts[this.facts.length - 1];
    return last === undefined ? undefined : last.start + P;
  }

  /**
   * Keeps `facts` (contiguous, ascending, the first at or before the end of those kept) in place
   * of those kept from the first one's start on.
   */
  put(facts: readonly PeriodFacts[]): void {
    const first = facts[0];
    if (first === undefined) return;
    let n = this.facts.length;
    while (n > 0 && this.facts[n - 1]!.start >= first.start) n--;
    this.facts.length = n;
    for (const f of facts) this.facts.push(f);
  }

  /** Forgets the periods that start before `from`. */
  dropBefore(from: bigint): void {
    let n = 0;
    while (n < this.facts.length && this.facts[n]!.start < from) n++;
    if (n > 0) this.facts = this.facts.slice(n);
  }

  /** Whether every period of `[from, to)` (of length `P`) is kept. */
  covers(from: bigint, to: bigint, P: bigint): boolean {
    const start = this.start;
    if (start === undefined || start > from) return from >= to;
    const end = start + BigInt(this.facts.length) * P;
    return end >= to && this.facts[this.facts.length - 1]!.start === end - P;
  }

  /** The periods of `[from, to)` kept. */
  within(from: bigint, to: bigint): PeriodFacts[] {
    return this.facts.filter((f) => f.start >= from && f.start < to);
  }
}
