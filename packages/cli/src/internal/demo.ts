/**
 * The demo: a fresh room in a directory, the steering server on the embedded store, and the
 * simulated hops posting signed records every period. Nothing is canned: every manifest served
 * is a decision over the records the hops posted, signed and archived.
 */
import { join } from 'node:path';
import { SimulatedHops } from '@wai-steering/agent';
import { dashElement, hlsTag } from '@wai-steering/manifest';
import {
  ConfigError,
  loadConfig,
  monotonicClock,
  type RunningServer,
  startServer,
} from '@wai-steering/server';
import {
  type DemoSetup,
  demoAudience,
  SiteSimulator,
  setupDemo,
} from '@wai-steering/server/testkit';

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
  /** The demo's hops: hop agents (`@wai-steering/agent`) with simulated sources. */
  readonly simulator: SimulatedHops;
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
  // The demo's hops and its players share one address (loopback): its config turns the
  // per-client budgets off, which a deployment keeps (docs/server.md, *Abuse*).
  const setup = setupDemo(options.dir, {
    port: options.port,
    budgets: false,
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
            // The site's reports hold three periods and at least 5 s (a demo's periods are short).
            maxExpiry: Math.max(10 * Number(setup.policy.period_us / 1000n), 5000),
          },
        },
    { clock },
  );
  // The hops run as agents, the production code path (periods, signing, spool, delivery), on
  // simulated energy and traffic: each pathway serves a base audience plus the sessions the
  // server steers to it first.
  const simulator = new SimulatedHops({
    room: setup.roomId,
    period: setup.policy.period_us,
    lag: setup.policy.lag_us,
    hops: setup.hops,
    servers: [server.url],
    spoolDir: join(options.dir, 'spools'),
    clock,
    history: Number(setup.policy.window_us / setup.policy.period_us) + 1,
    audience: (p) => demoAudience(p, server.engine.loadsNow()[p] ?? 0),
    ...(options.onPeriod === undefined
      ? {}
      : {
          onPeriod: (end: bigint, refused: readonly string[]) => options.onPeriod?.(end, refused),
        }),
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
          // The sessions steered to the pathway are the ones its site serves.
          sessions: () => server.engine.loadsNow()[pathway] ?? 0,
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
