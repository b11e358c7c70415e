import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readDecision, unwrap } from '@wai-steering/wire';
import { nodeBackend } from '@wai-steering/wire/node';
import { afterAll, beforeAll, expect } from 'vitest';
import { SteeringApp } from '../../src/app.js';
import { loadConfig, type ServerConfig } from '../../src/config/read.js';
import { ConsoleActivity } from '../../src/console/activity.js';
import {
  type ConsoleOptions,
  ConsoleRoutes,
  engineStatusSource,
} from '../../src/console/routes.js';
import { type DemoSetup, setupDemo } from '../../src/demo/setup.js';
import { HopSimulator } from '../../src/demo/simulator.js';
import { SteeringEngine } from '../../src/engine/engine.js';
import type { EngineLiveOptions } from '../../src/engine/types.js';
import { buildRoutes } from '../../src/routes/table.js';
import { type RunningServer, startServer } from '../../src/server.js';
import { readMaterials } from '../../src/start/materials.js';
import { SqliteStore } from '../../src/store/sqlite/index.js';

/** A free TCP port on 127.0.0.1 (closed again: a small race, fine for tests). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** A temporary directory, removed by the returned function. */
export function tempDir(prefix = 'wai-server-'): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return {
    dir,
    remove: () => rmSync(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 }),
  };
}

/** A clock the test moves: µs since the epoch. */
export class TestClock {
  constructor(public us: bigint) {}
  readonly now = (): bigint => this.us;
  advance(ms: number): void {
    this.us += BigInt(Math.round(ms * 1000));
  }
}

/** A demo room in a temp dir, and its config. */
export function demoRoom(
  port = 8080,
  periodMs = 2000,
): {
  setup: DemoSetup;
  config: ServerConfig;
  remove: () => void;
} {
  const { dir, remove } = tempDir();
  const setup = setupDemo(dir, { port, periodMs });
  return { setup, config: loadConfig(setup.configPath), remove };
}

/** A steering engine and its routes over a demo room, its store in memory, on a test clock. */
export async function demoApp(
  options: {
    periodMs?: number;
    graceMs?: number;
    maxQueue?: number;
    start?: bigint;
    encoder?: 'fast' | 'wire';
    console?: ConsoleOptions;
    live?: EngineLiveOptions;
  } = {},
) {
  const { setup, config, remove } = demoRoom(8080, options.periodMs ?? 2000);
  const clock = new TestClock(options.start ?? 1_800_000_000_000_000n);
  const m = readMaterials(config);
  const { warnings: _, ...materials } = m;
  const store = new SqliteStore(':memory:');
  const activity = new ConsoleActivity(materials.policy.pathways.length, {
    lag: { lagUs: materials.policy.lag_us, now: clock.now },
  });
  const engine = await SteeringEngine.open({
    ...materials,
    store,
    backend: nodeBackend,
    graceMs: options.graceMs ?? 10_000,
    maxSessions: 1_000_000,
    maxQueue: options.maxQueue ?? 10_000,
    clock: clock.now,
    ...(options.encoder === undefined ? {} : { encoder: options.encoder }),
    ...(options.live === undefined ? {} : { live: options.live }),
    observer: activity,
  });
  const app = new SteeringApp(engine, {
    maxRecordBytes: 4096,
    maxTargetBytes: 8192,
    ...(options.console === undefined
      ? {}
      : {
          routes: buildRoutes({
            engine,
            ...(options.console.enabled
              ? {
                  console: new ConsoleRoutes(options.console, engineStatusSource(engine, activity)),
                }
              : {}),
          }),
        }),
  });
  const sim = new HopSimulator({
    policy: setup.policy,
    roomId: setup.roomId,
    hops: setup.hops,
    base: 'http://unused',
    clock: clock.now,
  });
  return {
    setup,
    config,
    clock,
    engine,
    activity,
    app,
    store,
    sim,
    materials: m,
    close: async () => {
      await engine.close();
      await store.close();
      remove();
    },
  };
}

/** A session the application minted (§8.1, `guard/session-mac.ts`), hex: its nonce is `byte` × 8. */
export function minted(ctx: { engine: SteeringEngine }, byte: number): string {
  return Buffer.from(ctx.engine.sessionMac.sessionOf(new Uint8Array(8).fill(byte))).toString('hex');
}

/** A GET through the application. */
export function get(app: SteeringApp, target: string, headers: Record<string, string> = {}) {
  return app.handle({ method: 'GET', target, headers });
}

/** A POST of bytes through the application. */
export function post(app: SteeringApp, target: string, body: Uint8Array) {
  return app.handle({
    method: 'POST',
    target,
    headers: { 'content-type': 'application/octet-stream', 'content-length': String(body.length) },
    body: async (limit) => (body.length > limit ? 'too_large' : body),
  });
}

/** Posts every hop's record of the periods ending in `ends` (µs) through the application. */
export async function postPeriods(
  ctx: Awaited<ReturnType<typeof demoApp>>,
  ends: readonly bigint[],
): Promise<string[]> {
  const digests: string[] = [];
  const P = ctx.setup.policy.period_us;
  for (const end of ends) {
    for (const hop of ctx.setup.hops) {
      const bytes = ctx.sim.record(hop, end - P, end, 100);
      const res = await post(ctx.app, '/records', bytes);
      if (res.status !== 201 && res.status !== 200) {
        throw new Error(`record refused: ${res.status} ${String(res.body)}`);
      }
      digests.push(JSON.parse(String(res.body)).digest);
    }
  }
  return digests;
}

/** The text of a body. */
export function text(body: string | Uint8Array): string {
  return typeof body === 'string' ? body : new TextDecoder().decode(body);
}

/**
 * A running server on a fresh demo room and an in-memory store, for the tests of a `describe`
 * block: started before them, closed after. Read `.server` inside the tests.
 */
export function useDemoServer(): { readonly server: RunningServer } {
  const held = {} as { server: RunningServer };
  let remove: () => void = () => {};
  beforeAll(async () => {
    const port = await freePort();
    const room = demoRoom(port);
    remove = room.remove;
    held.server = await startServer({
      ...room.config,
      store: { ...room.config.store, path: ':memory:' },
    });
  });
  afterAll(async () => {
    await held.server.close();
    remove();
  });
  return held;
}

/** A demo room whose server keeps a file store, started on a test clock (or on `clock`). */
export async function fileServer(
  dir: string,
  clock: TestClock,
  options: {
    overrides?: Partial<ServerConfig>;
    start?: Parameters<typeof startServer>[1];
  } = {},
): Promise<{ server: RunningServer; setup: DemoSetup; config: ServerConfig; sim: HopSimulator }> {
  const port = await freePort();
  const setup = setupDemo(dir, { port, periodMs: 2000 });
  const config = { ...loadConfig(setup.configPath), ...options.overrides };
  const server = await startServer(config, { clock: clock.now, ...options.start });
  const sim = new HopSimulator({
    policy: setup.policy,
    roomId: setup.roomId,
    hops: setup.hops,
    base: server.url,
    clock: clock.now,
  });
  return { server, setup, config, sim };
}

/** Posts every hop's record of the periods ending in `ends` (µs) to a running app. */
export async function postRecords(
  app: SteeringApp,
  setup: DemoSetup,
  sim: HopSimulator,
  ends: readonly bigint[],
): Promise<number> {
  let n = 0;
  const P = setup.policy.period_us;
  for (const end of ends) {
    for (const hop of setup.hops) {
      const res = await post(app, '/records', sim.record(hop, end - P, end, 100));
      if (res.status !== 201 && res.status !== 200) {
        throw new Error(`record refused: ${res.status} ${text(res.body)}`);
      }
      n++;
    }
  }
  return n;
}

/** A steering manifest's members the tests read (§8.1). */
export function manifestOf(body: string | Uint8Array) {
  return JSON.parse(text(body)) as {
    TTL: number;
    'RELOAD-URI': string;
    'PATHWAY-PRIORITY': string[];
    'science.transaction.wai-decision': string;
  };
}

/** A steering request through the application, and the decision its manifest names. */
export async function decide(
  c: { app: SteeringApp },
  query = '',
  headers: Record<string, string> = {},
) {
  const res = await get(c.app, `/steer${query}`, headers);
  expect(res.status).toBe(200);
  const m = manifestOf(res.body);
  const hex = m['science.transaction.wai-decision'].slice(-64);
  const got = await get(c.app, `/decisions/${hex}`);
  expect(got.status).toBe(200);
  const bytes = got.body as Uint8Array;
  const decision = unwrap(readDecision(bytes));
  return { res, manifest: m, text: text(res.body), hex, bytes, decision };
}
