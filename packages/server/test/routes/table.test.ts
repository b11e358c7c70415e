// The route table, built once: its rows in order, the admin and console rows only when configured,
// and the steering paths following the policy in force.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { jwkToKeyPair, signPolicy } from '@wai-steering/wire';
import { nodeBackend } from '@wai-steering/wire/node';
import { afterEach, describe, expect, it } from 'vitest';
import { ConsoleRoutes, engineStatusSource } from '../../src/console/routes.js';
import { buildRoutes } from '../../src/routes/table.js';
import { NOT_FOUND } from '../../src/routes/types.js';
import { demoApp } from '../helpers/setup.js';

type Ctx = Awaited<ReturnType<typeof demoApp>>;
let ctx: Ctx | undefined;
afterEach(async () => {
  await ctx?.close();
  ctx = undefined;
});

const HEX = 'ab'.repeat(32);

describe('buildRoutes', () => {
  it('has the fixed rows, and admin and console rows only when given', async () => {
    ctx = await demoApp();
    const { engine } = ctx;
    expect(buildRoutes({ engine }).map((r) => r.name)).toEqual([
      'steering',
      'decision',
      'listing',
      'ingest',
      'capacity',
      'record',
      'policy',
      'room',
      'key_log',
      'healthz',
      'metrics',
      'root',
    ]);
    const console = new ConsoleRoutes(
      { enabled: true, auth: null },
      engineStatusSource(engine, ctx.activity),
    );
    const all = buildRoutes({
      engine,
      admin: {
        token: 'x'.repeat(16),
        reload: async () => ({ policy: '', changed: false, keyLog: false, warnings: [] }),
      },
      console,
    });
    expect(all.map((r) => r.name).slice(-4)).toEqual(['admin', 'status', 'console', 'root']);
  });

  it('matches each path to its row and parameter', async () => {
    ctx = await demoApp();
    const routes = buildRoutes({ engine: ctx.engine });
    const match = (path: string) => {
      for (const r of routes) {
        const m = r.match(path);
        if (m !== undefined) return [r.name, m === NOT_FOUND ? 'not found' : m];
      }
      return undefined;
    };
    expect(match('/steer')).toEqual(['steering', '']);
    expect(match(`/decisions/${HEX}`)).toEqual(['decision', HEX]);
    expect(match('/decisions')).toEqual(['listing', '']);
    expect(match(`/records/${HEX}`)).toEqual(['record', HEX]);
    expect(match('/records/xyz')).toEqual(['record', 'not found']);
    expect(match('/records')).toEqual(['ingest', '']);
    expect(match(`/policies/${HEX.toUpperCase()}`)).toEqual(['policy', HEX.toUpperCase()]);
    expect(match(`/rooms/${HEX}/descriptor`)).toEqual(['room', HEX]);
    expect(match(`/rooms/${HEX}/key-log`)).toEqual(['key_log', HEX]);
    expect(match('/status')).toBeUndefined();
    expect(match('/nothing')).toBeUndefined();
  });

  it('follows the steering paths of the policy put in force', async () => {
    ctx = await demoApp();
    const routes = buildRoutes({ engine: ctx.engine });
    const steering = routes.find((r) => r.name === 'steering')!;
    expect(steering.match('/elsewhere')).toBeUndefined();
    const p = ctx.setup.policy;
    const moved = {
      ...p,
      server_uri: p.server_uri.replace('/steer', '/elsewhere'),
      reload_uri: p.reload_uri.replace('/steer/reload', '/elsewhere/reload'),
    };
    const key = jwkToKeyPair(
      JSON.parse(readFileSync(join(ctx.setup.dir, 'keys', 'authority.jwk'), 'utf8')),
      nodeBackend,
    );
    await ctx.engine.rotatePolicy(
      signPolicy(moved, key.secretKey!, { backend: nodeBackend }),
      'operator',
    );
    expect(steering.match('/elsewhere')).toBe('');
    expect(steering.match('/elsewhere/reload')).toBe('');
    expect(steering.match('/steer')).toBeUndefined();
  });
});
