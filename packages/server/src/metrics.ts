/**
 * Prometheus metrics in the text exposition format (version 0.0.4), written here: counters with
 * labels, gauges read at scrape time, and one latency histogram.
 */

/** The media type of the exposition. */
export const METRICS_MEDIA_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

type Labels = Readonly<Record<string, string>>;

function escapeLabel(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}

function labelText(labels: Labels): string {
  const keys = Object.keys(labels);
  if (keys.length === 0) return '';
  return `{${keys.map((k) => `${k}="${escapeLabel(labels[k]!)}"`).join(',')}}`;
}

function num(v: number): string {
  if (v === Number.POSITIVE_INFINITY) return '+Inf';
  if (Number.isNaN(v)) return 'NaN';
  return String(v);
}

interface Metric {
  write(out: string[]): void;
}

/**
 * A counter per label set. Each label set has a slot, its value in a typed array: a request
 * adds to a slot it found once (`slot`, `add`), and the label text is written only on a scrape.
 */
export class Counter implements Metric {
  private values = new Float64Array(8);
  /** Each slot's label text, in the order the slots were made. */
  private readonly texts: string[] = [];
  private readonly byText = new Map<string, number>();
  private readonly byKey = new Map<string | number, number>();
  constructor(
    readonly name: string,
    readonly help: string,
  ) {}

  /** The slot of a label set, made on first use. */
  slot(labels: Labels = {}): number {
    const text = labelText(labels);
    let slot = this.byText.get(text);
    if (slot === undefined) {
      slot = this.texts.length;
      if (slot === this.values.length) {
        const grown = new Float64Array(2 * slot);
        grown.set(this.values);
        this.values = grown;
      }
      this.texts.push(text);
      this.byText.set(text, slot);
    }
    return slot;
  }

  /** Adds to a slot's value. */
  add(slot: number, by = 1): void {
    this.values[slot]! += by;
  }

  inc(labels: Labels = {}, by = 1): void {
    this.values[this.slot(labels)]! += by;
  }

  /**
   * `inc(labels)` for a label set named by `key` (the caller's own short key, a string or a
   * number), without building the label text again: the hot path of a request.
   */
  incKey(key: string | number, labels: () => Labels, by = 1): void {
    let slot = this.byKey.get(key);
    if (slot === undefined) {
      slot = this.slot(labels());
      this.byKey.set(key, slot);
    }
    this.values[slot]! += by;
  }

  get(labels: Labels = {}): number {
    const slot = this.byText.get(labelText(labels));
    return slot === undefined ? 0 : this.values[slot]!;
  }

  write(out: string[]): void {
    out.push(`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} counter`);
    for (let i = 0; i < this.texts.length; i++) {
      out.push(`${this.name}${this.texts[i]!} ${num(this.values[i]!)}`);
    }
  }
}

/** A gauge whose values are read at scrape time. */
export class Gauge implements Metric {
  constructor(
    readonly name: string,
    readonly help: string,
    private readonly read: () => Iterable<readonly [Labels, number]>,
  ) {}

  write(out: string[]): void {
    out.push(`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} gauge`);
    for (const [labels, value] of this.read())
      out.push(`${this.name}${labelText(labels)} ${num(value)}`);
  }
}

/**
 * A counter whose values are read at scrape time, from totals the caller keeps (exact ones, say,
 * written as floats only here).
 */
export class CounterFn implements Metric {
  constructor(
    readonly name: string,
    readonly help: string,
    private readonly read: () => Iterable<readonly [Labels, number]>,
  ) {}

  write(out: string[]): void {
    out.push(`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} counter`);
    for (const [labels, value] of this.read())
      out.push(`${this.name}${labelText(labels)} ${num(value)}`);
  }
}

/** A histogram with fixed upper bounds (seconds for latencies). */
export class Histogram implements Metric {
  private readonly counts: Float64Array;
  private sum = 0;
  private total = 0;
  constructor(
    readonly name: string,
    readonly help: string,
    readonly bounds: readonly number[],
  ) {
    this.counts = new Float64Array(bounds.length);
  }

  observe(v: number): void {
    const b = this.bounds;
    for (let i = 0; i < b.length; i++) {
      if (v <= b[i]!) {
        this.counts[i]!++;
        break;
      }
    }
    this.sum += v;
    this.total++;
  }

  get count(): number {
    return this.total;
  }

  write(out: string[]): void {
    out.push(`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} histogram`);
    let cumulative = 0;
    this.bounds.forEach((bound, i) => {
      cumulative += this.counts[i]!;
      out.push(`${this.name}_bucket{le="${num(bound)}"} ${cumulative}`);
    });
    out.push(`${this.name}_bucket{le="+Inf"} ${this.total}`);
    out.push(`${this.name}_sum ${this.sum}`, `${this.name}_count ${this.total}`);
  }
}

/** The server's metrics. */
export class Metrics {
  readonly requests = new Counter(
    'wai_steering_http_requests_total',
    'HTTP requests by route and status code.',
  );
  readonly decisions = new Counter(
    'wai_steering_decisions_total',
    'Decisions signed, archived and served, by reason (§6.4).',
  );
  readonly ingested = new Counter(
    'wai_steering_records_ingested_total',
    'Per-hop records accepted on POST /records, by whether they were new.',
  );
  readonly refused = new Counter(
    'wai_steering_records_refused_total',
    'Per-hop records refused on POST /records, by reason code (companion C7).',
  );
  readonly overload = new Counter(
    'wai_steering_overload_total',
    'Steering requests answered 503 because the commit queue or the session table was full.',
  );
  readonly commits = new Counter(
    'wai_steering_store_commits_total',
    'Group commits to the store, by outcome.',
  );
  readonly rotations = new Counter(
    'wai_steering_policy_rotations_total',
    'Policies put in force after the first, by who made them (operator, live).',
  );
  readonly capacityReports = new Counter(
    'wai_steering_capacity_reports_total',
    'Site capacity reports on POST /capacity, by result (taken, older, shared: read from another instance, or the refusal).',
  );
  readonly latency = new Histogram(
    'wai_steering_request_duration_seconds',
    'Time from a steering request to its manifest, durable archive included.',
    [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
  );
  readonly batch = new Histogram(
    'wai_steering_commit_batch_size',
    'Decisions and records written per group commit.',
    [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024],
  );
  readonly storeErrors = new Counter(
    'wai_steering_store_errors_total',
    'Store operations that failed, by operation (commit, prune, file: the store file or its -wal removed or replaced, query: a read, the loads heartbeat, the records catch-up or a dropped connection of the pool, notifications: the listening connection, capacity: a report not kept, or a live policy not written).',
  );
  readonly storeDamaged = new Counter(
    'wai_steering_store_damaged_total',
    'Rows of the store found not to rebuild the digest they are kept under (altered inside the database), by what they hold (decision, record, policy); each row once.',
  );
  readonly budgetRefused = new Counter(
    'wai_steering_budget_refused_total',
    'Requests answered 503 because their client was past its budget, by budget (requests, sessions).',
  );
  readonly forgedSessions = new Counter(
    'wai_steering_sessions_forged_total',
    'Steering requests whose wai_session the server did not mint (treated as absent).',
  );
  readonly cmcdIgnored = new Counter(
    'wai_steering_cmcd_ignored_total',
    'CMCD-Request headers over limits.max_cmcd_bytes, not read.',
  );
  readonly horizonRefused = new Counter(
    'wai_steering_records_horizon_refused_total',
    "Records refused by the server's horizon, by error (outside_horizon, too_many_records).",
  );
  readonly connectionsRefused = new Counter(
    'wai_steering_connections_dropped_total',
    'Connections refused or dropped, by why (cap, unread, timeout, stalled).',
  );
  private readonly extra: Metric[] = [];

  /** Adds a gauge read at scrape time. */
  gauge(name: string, help: string, read: () => Iterable<readonly [Labels, number]>): void {
    this.extra.push(new Gauge(name, help, read));
  }

  /** Adds a counter read at scrape time (monotonic totals the caller keeps). */
  counter(name: string, help: string, read: () => Iterable<readonly [Labels, number]>): void {
    this.extra.push(new CounterFn(name, help, read));
  }

  /** The exposition text. */
  render(): string {
    const out: string[] = [];
    for (const m of [
      this.requests,
      this.decisions,
      this.ingested,
      this.refused,
      this.overload,
      this.commits,
      this.rotations,
      this.capacityReports,
      this.storeErrors,
      this.storeDamaged,
      this.budgetRefused,
      this.forgedSessions,
      this.cmcdIgnored,
      this.horizonRefused,
      this.connectionsRefused,
      this.latency,
      this.batch,
      ...this.extra,
    ]) {
      m.write(out);
    }
    return `${out.join('\n')}\n`;
  }
}
