/**
 * The decision log of a server (`docs/server.md`, *The decision log*): every decision the store
 * keeps is an entry of a tiled transparency log (C2SP tlog-tiles), appended at its commit as a
 * pending entry (the stores' `commit`), integrated by one instance at a time (`integrator.ts`),
 * signed by the steering key under the log's origin (tlog-checkpoint), sent to the witnesses
 * (`witnesses.ts`) and served by every instance from the store (`reader.ts`, `routes/log.ts`).
 * This file composes them from the configuration, and prunes the log with the decisions.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import {
  ed25519Signer,
  formatVerifierKey,
  parseVerifierKey,
  type VerifierKey,
} from '@wai-steering/tlog';
import type { CryptoBackend } from '@wai-steering/wire';
import { ConfigError } from '../config/errors.js';
import type { ServerConfig } from '../config/read.js';
import { isLogOrigin } from '../config/schema.js';
import { describeError, type Health } from '../health.js';
import type { Metrics } from '../metrics.js';
import { INTEGRATION_SLICE, SqliteStore } from '../store/sqlite/index.js';
import { type DecisionStore, type LogStore, POLICY_LAG_US } from '../store/store.js';
import { LogIntegrator } from './integrator.js';
import { writerBackend, writerHashReady } from './plan.js';
import { LogReader } from './reader.js';
import { Witnesses } from './witnesses.js';

/** The log's settings when the configuration has none (`log:` absent). */
export const LOG_DEFAULTS = Object.freeze({
  origin: null,
  interval: 1000,
  maxDelay: 2000,
  witnesses: [] as readonly { readonly url: string; readonly vkey: string }[],
});

/**
 * The default origin of the log (tlog-tiles: "the scheme-less URL prefix of the log with no
 * trailing slashes"): the server's public URL, else its listen address, without the scheme,
 * then `/log` (`127.0.0.1:8080/log`, `steer.example.com/log`).
 */
export function defaultLogOrigin(config: Pick<ServerConfig, 'publicUrl' | 'listen'>): string {
  const host = config.listen.host.includes(':') ? `[${config.listen.host}]` : config.listen.host;
  const base = new URL(config.publicUrl ?? `http://${host}:${config.listen.port}`);
  return `${base.host}${base.pathname.replace(/\/+$/, '')}/log`;
}

export interface DecisionLogOptions {
  readonly store: LogStore & DecisionStore;
  readonly config: Pick<ServerConfig, 'publicUrl' | 'listen' | 'log' | 'retention'>;
  /** The steering key's secret (the log's checkpoints are signed with it). */
  readonly secretKey: Uint8Array;
  readonly backend: CryptoBackend;
  /** The room clock, µs. */
  readonly clock: () => bigint;
  readonly health?: Health;
  readonly metrics?: Metrics;
  /** Where the witnesses' changes of state are said (stderr by default). */
  readonly log?: (line: string) => void;
}

export class DecisionLog {
  /** The log's verifier key (signed-note vkey, type 0x01): what a verifier of its checkpoints holds. */
  readonly verifierKey: VerifierKey;
  private pruner: NodeJS.Timeout | undefined;

  private constructor(
    readonly origin: string,
    readonly reader: LogReader,
    readonly integrator: LogIntegrator,
    readonly witnesses: Witnesses | undefined,
    verifierKey: VerifierKey,
    private readonly o: DecisionLogOptions,
  ) {
    this.verifierKey = verifierKey;
  }

  /** The vkey text of the log's key, `<origin>+<key ID>+<base64>`. */
  get vkey(): string {
    return formatVerifierKey(this.verifierKey);
  }

  /**
   * Begins the log in the store (or joins it) and composes its parts. The origin is fixed when
   * the log begins: a configured `log.origin` that differs from the store's is a
   * {@link ConfigError}; without one, the store's is kept.
   */
  static async open(o: DecisionLogOptions): Promise<DecisionLog> {
    const settings = o.config.log ?? LOG_DEFAULTS;
    const wanted = settings.origin ?? defaultLogOrigin(o.config);
    if (!isLogOrigin(wanted)) {
      throw new ConfigError([
        `log.origin: ${JSON.stringify(wanted)} is not a log's name (no space, no "+"): set log.origin`,
      ]);
    }
    const origin = await o.store.beginLog(wanted);
    if (origin !== wanted && settings.origin !== null) {
      throw new ConfigError([
        `log.origin: the store's decision log is ${origin}, not ${wanted} (a log keeps its origin: give every instance the same log.origin)`,
      ]);
    }
    const signer = ed25519Signer(origin, o.secretKey, o.backend);
    const reader = new LogReader(o.store, { intervalMs: settings.interval, backend: o.backend });
    const witnesses =
      settings.witnesses.length === 0
        ? undefined
        : new Witnesses({
            store: o.store,
            reader,
            witnesses: settings.witnesses.map((w, i) => {
              const key = parseVerifierKey(w.vkey, o.backend);
              if (!key.ok)
                throw new ConfigError([`log.witnesses.${i}.vkey: ${key.refusal.message}`]);
              return { url: w.url, key: key.value };
            }),
            timeoutMs: Math.max(1000, 5 * settings.interval),
            backend: o.backend,
            ...(o.log === undefined ? {} : { log: o.log }),
          });
    // The writer hashes with its WebAssembly SHA-256 once it is instantiated (`plan.ts`;
    // node:crypto until then, the same digests); the key signs as given.
    await writerHashReady;
    const integrator = new LogIntegrator({
      store: o.store,
      signing: { origin, signer, backend: writerBackend },
      intervalMs: settings.interval,
      maxDelayMs: settings.maxDelay,
      // The embedded store integrates on the event loop: in slices, requests answered between.
      ...(o.store instanceof SqliteStore ? { maxEntries: INTEGRATION_SLICE } : {}),
      clock: o.clock,
      holder: `${hostname()}:${process.pid}:${randomBytes(6).toString('hex')}`,
      ...(o.health === undefined ? {} : { health: o.health }),
      ...(o.metrics === undefined ? {} : { metrics: o.metrics }),
      ...(witnesses === undefined ? {} : { onCheckpoint: (c) => witnesses.submit(c) }),
    });
    const log = new DecisionLog(origin, reader, integrator, witnesses, signer.verifierKey, o);
    if (o.metrics !== undefined) log.registerGauges(o.metrics);
    return log;
  }

  /** Starts the integrator's runs and the log's pruning (with the decisions' retention sweep). */
  start(): void {
    this.integrator.start();
    const sweep = this.o.config.retention.sweep;
    this.pruner = setInterval(() => {
      this.prune().catch((e: unknown) => {
        this.o.metrics?.storeErrors.inc({ op: 'log' });
        this.o.health?.fail('log', `pruning the decision log fails: ${describeError(e)}`);
      });
    }, sweep);
    this.pruner.unref();
  }

  /**
   * Prunes the log with the decisions (by the lease's holder): the checkpoints issued more than
   * `retention.decisions` and an hour before the latest go, and the entries below the newest of
   * them (`SteeringStore.pruneLog`). Counted back from the latest checkpoint, never from the
   * clock alone, as the decisions' retention is.
   */
  async prune(): Promise<{ minIndex: bigint; entries: number; checkpoints: number } | undefined> {
    if (!this.integrator.holding) return undefined;
    const latest = await this.o.store.latestLogCheckpoint();
    if (latest === undefined) return undefined;
    const keep = BigInt(this.o.config.retention.decisions) * 1000n + POLICY_LAG_US;
    return this.o.store.pruneLog(latest.issued - keep);
  }

  /** Stops the integrator (giving up its lease) and the witnesses' requests. */
  async stop(): Promise<void> {
    if (this.pruner !== undefined) clearInterval(this.pruner);
    await this.integrator.stop();
    await this.witnesses?.close();
  }

  private registerGauges(metrics: Metrics): void {
    metrics.gauge(
      'wai_steering_log_integrator',
      'Whether this instance holds the decision log’s integrator lease (1) or not (0).',
      () => [[{}, this.integrator.holding ? 1 : 0]],
    );
    metrics.gauge(
      'wai_steering_log_appended',
      'Decision log entries this instance appended since it started.',
      () => [[{}, this.integrator.appended]],
    );
    metrics.gauge(
      'wai_steering_log_checkpoint_size',
      'The size of the latest checkpoint this instance signed.',
      () => [[{}, Number(this.integrator.latest?.size ?? 0n)]],
    );
    const w = this.witnesses;
    if (w !== undefined) {
      metrics.gauge(
        'wai_steering_log_witness_size',
        'The size each witness last cosigned for this instance (0 before it did).',
        () => w.status().map((s) => [{ witness: s.name }, Number(s.size ?? 0n)] as const),
      );
    }
  }
}
