/**
 * The demo: a fresh room in a directory, the steering server on the embedded store, and the
 * simulated hops posting signed records every period. Nothing is canned: every manifest served
 * is a decision over the records the hops posted, signed and archived.
 */
import { dashElement, hlsTag } from '@wai-steering/manifest';
import { loadConfig } from '../config.js';
import { monotonicClock } from '../engine/clock.js';
import { type RunningServer, startServer } from '../server.js';
import { type DemoSetup, setupDemo } from './setup.js';
import { HopSimulator } from './simulator.js';

/** Options of {@link runDemo}. */
export interface DemoOptions {
  /** The demo's directory (default `.demo`). */
  readonly dir: string;
  readonly host?: string;
  /** The port to listen on; the policy's URIs name it. */
  readonly port: number;
  /** P, ms (default 2000). */
  readonly periodMs?: number;
  /** Called after each period's records are posted. */
  readonly onPeriod?: (end: bigint, refused: readonly string[]) => void;
}

/** A running demo. */
export interface RunningDemo {
  readonly setup: DemoSetup;
  readonly server: RunningServer;
  readonly simulator: HopSimulator;
  /** The policy's `server_uri`: where a player asks first. */
  readonly steeringUrl: string;
  readonly hlsTag: string;
  readonly dashElement: string;
  close(): Promise<void>;
}

/** Sets up the demo in `dir`, starts the server and the hops. */
export async function runDemo(options: DemoOptions): Promise<RunningDemo> {
  const setup = setupDemo(options.dir, {
    port: options.port,
    ...(options.host === undefined ? {} : { host: options.host }),
    ...(options.periodMs === undefined ? {} : { periodMs: options.periodMs }),
  });
  const clock = monotonicClock();
  const server = await startServer(loadConfig(setup.configPath), { clock });
  const simulator = new HopSimulator({
    policy: setup.policy,
    roomId: setup.roomId,
    hops: setup.hops,
    base: server.url,
    clock,
    loads: () => server.engine.sessions.loads,
    ...(options.onPeriod === undefined ? {} : { onPeriod: options.onPeriod }),
  });
  try {
    await simulator.start();
  } catch (e) {
    await server.close();
    throw e;
  }
  return {
    setup,
    server,
    simulator,
    steeringUrl: setup.policy.server_uri,
    hlsTag: hlsTag(setup.policy),
    dashElement: dashElement(setup.policy),
    async close(): Promise<void> {
      await simulator.stop();
      await server.close();
    },
  };
}
