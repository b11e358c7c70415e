/**
 * A running server's periodic work, each on its own timer (none keeps the process alive):
 *
 * - the sessions' sweep, a pass over the table every 2 s at most (§6 loads), a fortieth every
 *   50 ms, and the evidence index pruned;
 * - once a second, the policy another instance put in force and the site reports it took (a
 *   notification missed is healed here), then live capacity (a report's expiry passing may call
 *   for a policy: CATS's age-out);
 * - the console's history, one sample a second;
 * - while the store is told failing (`health.ts`), one try a second (`engine.probeStore`);
 * - retention (`retention.sweep`);
 * - on the embedded store, its file and its `-wal` and `-shm` watched: removed or replaced while
 *   running, health 503 and steering `store_unavailable`, logged once (PostgreSQL's failures
 *   show as failing commits and queries).
 */
import type { ServerConfig } from '../config/read.js';
import type { ConsoleActivity } from '../console/activity.js';
import type { SteeringEngine } from '../engine/engine.js';
import { describeError, noteStoreFile } from '../health.js';
import { SqliteStore } from '../store/sqlite/index.js';
import type { SteeringStore } from '../store/store.js';
import { traced } from '../trace.js';

/** The timers started, and how to stop them. */
export interface Timers {
  stop(): void;
}

export function startTimers(
  config: ServerConfig,
  engine: SteeringEngine,
  store: SteeringStore,
  activity: ConsoleActivity,
  options: { readonly watchMs?: number } = {},
): Timers {
  const timers: NodeJS.Timeout[] = [];
  const every = (ms: number, f: () => void) => {
    const t = setInterval(f, ms);
    t.unref();
    timers.push(t);
  };
  let ticks = 0;
  // The sweep in short slices (a fortieth of the table every 50 ms: 26 000 slots of the table of
  // 700 000 sessions, about 0.2 ms), so that no request waits behind a long one.
  every(50, () => {
    traced('sweep', () => engine.sweep(Math.ceil(engine.sessions.slots / 40)));
    if (++ticks % 20 === 0) {
      engine.syncLive().catch((e: unknown) => {
        console.error(`wai-steering: keeping the live policy failed: ${describeError(e)}`);
      });
    }
  });
  every(1000, () =>
    traced('console-sample', () =>
      activity.sample(Number(engine.now() / 1_000_000n), engine.loadsNow()),
    ),
  );
  // A store told failing is tried once a second, so that its recovery is noticed without traffic.
  every(1000, () => {
    void engine.probeStore();
  });
  // Failures are the engine's to count and log once (health.ts).
  every(config.retention.sweep, () => {
    void engine.prune(config.retention.records, config.retention.decisions);
  });
  if (store instanceof SqliteStore) {
    every(options.watchMs ?? 1000, () =>
      noteStoreFile(engine.health, engine.metrics, store.fileState()),
    );
  }
  return {
    stop() {
      for (const t of timers) clearInterval(t);
    },
  };
}
