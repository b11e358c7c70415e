// The session table rebuilt from the store at start: an engine opened again over the decisions
// another made holds the same sessions, at the same pathways, until the same ends, as the engine
// that made them, across µs instants, sessions placed again and an operator's rotation that
// drops a pathway; the sessions of other instances are left to them.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { jwkToKeyPair, type PolicyFields, signPolicy } from '@wai-steering/wire';
import { nodeBackend } from '@wai-steering/wire/node';
import { afterEach, describe, expect, it } from 'vitest';
import { SteeringEngine } from '../../src/engine/engine.js';
import { SqliteStore } from '../../src/store/sqlite/index.js';
import { demoApp } from '../helpers/setup.js';

type Ctx = Awaited<ReturnType<typeof demoApp>>;
let ctx: Ctx | undefined;
const opened: SteeringEngine[] = [];
afterEach(async () => {
  for (const e of opened.splice(0)) await e.close();
  await ctx?.close();
  ctx = undefined;
});

const S = 1_000_000n;

/** A deterministic stream of numbers in [0, 1). */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** Another engine over the same store and materials, starting. */
async function again(c: Ctx, store = c.store): Promise<SteeringEngine> {
  const { warnings: _, ...materials } = c.materials;
  const engine = await SteeringEngine.open({
    ...materials,
    store,
    backend: nodeBackend,
    graceMs: 1500,
    maxSessions: 1_000_000,
    maxQueue: 10_000,
    clock: c.clock.now,
    sessionMac: c.engine.sessionMac,
    starting: true,
  });
  opened.push(engine);
  return engine;
}

describe('the session table rebuilt at start', () => {
  it('holds what the engine that made the decisions holds, pathway and end alike', async () => {
    ctx = await demoApp({ graceMs: 1500 });
    const c = ctx;
    const rand = prng(3);
    const sessions = Array.from({ length: 40 }, (_, n) =>
      c.engine.sessionMac.sessionOf(new Uint8Array(8).fill(n + 1)),
    );
    const authority = jwkToKeyPair(
      JSON.parse(readFileSync(join(c.setup.dir, 'keys', 'authority.jwk'), 'utf8')),
      nodeBackend,
    );
    const p = c.setup.policy;
    const [, b, east] = p.pathways as [
      PolicyFields['pathways'][0],
      PolicyFields['pathways'][0],
      PolicyFields['pathways'][0],
    ];
    // Decisions over 80 s at µs instants, each session asking again now and then; at 30 s the
    // operator drops cdn-a.
    let rotated = false;
    for (let i = 0; i < 400; i++) {
      c.clock.us += BigInt(Math.floor(rand() * 200_000));
      if (!rotated && c.clock.us > 1_800_000_000_000_000n + 30n * S) {
        const bytes = signPolicy(
          { ...p, initial: 0, pathways: [b!, { ...east!, base: 0 }] },
          authority.secretKey!,
          { backend: nodeBackend },
        );
        await c.engine.rotatePolicy(bytes, 'operator');
        rotated = true;
      }
      const session = sessions[Math.floor(rand() * sessions.length)]!;
      const r = await c.engine.decide({
        target: `/steer?_HLS_throughput=${3_000_000 + i}`,
        session,
      });
      expect(r.kind).toBe('manifest');
    }
    expect(rotated).toBe(true);
    const rebuilt = await again(c);
    expect(rebuilt.starting).toBe(true);
    const got = await rebuilt.rebuildSessions(() => true);
    expect(got.decisions).toBeGreaterThan(0);
    expect(got.others).toBe(0);
    expect(got.sessions).toBeGreaterThan(10);
    // At instants from now to past every end: the same loads, and each session where it was.
    const ids = c.engine.policies.current.ids;
    for (let probe = c.clock.us; probe < c.clock.us + 40n * S; probe += 700_001n) {
      const now = Number(probe);
      expect(Array.from(rebuilt.sessions.loadsAt(now, ids))).toEqual(
        Array.from(c.engine.sessions.loadsAt(now, ids)),
      );
      for (const s of sessions) {
        expect(rebuilt.sessions.current(s, now)).toBe(c.engine.sessions.current(s, now));
      }
    }
  });

  it('leaves the sessions another instance placed last to it', async () => {
    ctx = await demoApp({ graceMs: 1500 });
    const c = ctx;
    const store = new SqliteStore(':memory:', { instance: 7 });
    const maker = await again(c, store);
    maker.ready();
    for (let n = 0; n < 12; n++) {
      c.clock.us += 10_000n;
      const r = await maker.decide({
        target: '/steer',
        session: c.engine.sessionMac.sessionOf(new Uint8Array(8).fill(n + 1)),
      });
      expect(r.kind).toBe('manifest');
    }
    const mine = await again(c, store);
    expect(await mine.rebuildSessions((i) => i === 7)).toMatchObject({ sessions: 12, others: 0 });
    const theirs = await again(c, store);
    expect(await theirs.rebuildSessions((i) => i === 8)).toMatchObject({
      sessions: 0,
      others: 12,
    });
    expect(theirs.sessions.size).toBe(0);
    await maker.close();
    await store.close();
  });

  it('declines decisions until it is ready', async () => {
    ctx = await demoApp();
    const e = await again(ctx);
    expect(await e.decide({ target: '/steer' })).toMatchObject({ kind: 'overloaded' });
    e.ready();
    expect(await e.decide({ target: '/steer' })).toMatchObject({ kind: 'manifest' });
  });
});
