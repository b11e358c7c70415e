/**
 * The demo: a fresh room in a directory, the steering server on the embedded store, and the
 * simulated hops posting signed records every period. Nothing is canned: every manifest served
 * is a decision over the records the hops posted, signed and archived.
 */
import { dashElement, hlsTag } from '@wai-steering/manifest';
import { ConfigError, loadConfig } from '../config.js';
import { monotonicClock } from '../engine/clock.js';
import { type RunningServer, startServer } from '../server.js';
import { type DemoSetup, setupDemo } from './setup.js';
import { HopSimulator } from './simulator.js';
import { SiteSimulator } from './site.js';

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
  /**
   * A pathway whose edge site fills up: it reports one slot fewer each period, and the server
   * keeps the pathway's capacity in step (live policy, `docs/live-policy.md`).
   */
  readonly fillSite?: string;
  /** Called with each of the filling site's reports. */
  readonly onReport?: (gas: number, status: number, body: string) => void;
}

/** A running demo. */
export interface RunningDemo {
  readonly setup: DemoSetup;
  readonly server: RunningServer;
  readonly simulator: HopSimulator;
  /** The filling site, when `fillSite` is given. */
  readonly site: SiteSimulator | undefined;
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
  const fill = options.fillSite;
  const pathway = fill === undefined ? -1 : setup.policy.pathways.findIndex((p) => p.id === fill);
  const edge = setup.hops.find((h) => h.pathway === pathway && h.place === 1);
  if (fill !== undefined && edge === undefined) {
    const ids = setup.policy.pathways.map((p) => p.id).join(', ');
    throw new ConfigError([`fill-site: "${fill}" is no pathway of the demo (${ids})`]);
  }
  const config = loadConfig(setup.configPath);
  const server = await startServer(
    fill === undefined
      ? config
      : {
          ...config,
          live: {
            pathways: [fill],
            capacityThresholdPpm: 0,
            latencyThresholdMs: 10,
            maxAhead: 5000,
          },
        },
    { clock },
  );
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
  const site =
    fill === undefined || edge === undefined
      ? undefined
      : new SiteSimulator({
          base: server.url,
          roomId: setup.roomId,
          pathway: fill,
          hop: edge,
          periodUs: setup.policy.period_us,
          clock,
          ...(options.onReport === undefined ? {} : { onReport: options.onReport }),
        });
  site?.start();
  return {
    setup,
    server,
    simulator,
    site,
    steeringUrl: setup.policy.server_uri,
    hlsTag: hlsTag(setup.policy),
    dashElement: dashElement(setup.policy),
    async close(): Promise<void> {
      site?.stop();
      await simulator.stop();
      await server.close();
    },
  };
}
