import { toHex } from '@wai-steering/wire';
import { afterEach, describe, expect, it } from 'vitest';
import { demoApp } from '../helpers/setup.js';

type Ctx = Awaited<ReturnType<typeof demoApp>>;
let ctx: Ctx | undefined;
afterEach(async () => {
  await ctx?.close();
  ctx = undefined;
});

const S = 1_000_000n;

describe('SteeringEngine', () => {
  it('decides: a manifest naming its durable decision, never a status', async () => {
    ctx = await demoApp();
    const { engine } = ctx;
    const r = await engine.decide({ target: '/steer?_DASH_pathway=cdn-a', cmcd: 'bl=500' });
    expect(r.kind).toBe('manifest');
    if (r.kind !== 'manifest') return;
    expect(r.fields.protocol).toBe(2);
    expect(r.fields.report.buffer).toBe(500n);
    const manifest = JSON.parse(r.body) as Record<string, string>;
    expect(manifest['science.transaction.wai-decision']!.endsWith(toHex(r.digest))).toBe(true);
    const stored = await engine.decision(r.digest);
    expect(stored.kind).toBe('found');
    // The session it minted comes back through the reload URI.
    const reload = manifest['RELOAD-URI']!;
    const again = await engine.decide({ target: reload.slice(reload.indexOf('/steer')) });
    expect(again.kind === 'manifest' && toHex(again.fields.session)).toBe(toHex(r.fields.session));
  });

  it('decides at the time it is given', async () => {
    ctx = await demoApp();
    const t = ctx.clock.us + 5n * S;
    const r = await ctx.engine.decide({ target: '/steer', t });
    expect(r.kind === 'manifest' && r.fields.t).toBe(t);
  });

  it('ingests: stored (new, then held), or refused with the reason and where', async () => {
    ctx = await demoApp();
    const { engine } = ctx;
    const bytes = ctx.sim.record(ctx.setup.hops[0]!, ctx.clock.us - 2n * S, ctx.clock.us, 10);
    const first = await engine.ingest(bytes);
    expect(first).toMatchObject({ kind: 'stored', inserted: true });
    expect(await engine.ingest(bytes)).toMatchObject({ kind: 'stored', inserted: false });
    if (first.kind !== 'stored') return;
    expect(await engine.record(first.digest)).toEqual({ kind: 'found', bytes });
    const refused = await engine.ingest(bytes.subarray(0, 20));
    expect(refused).toMatchObject({ kind: 'refused', reason: 'truncated' });
    expect(engine.metrics.refused.get({ reason: 'truncated' })).toBe(1);
  });

  it('reads by digest: absent for what it does not hold', async () => {
    ctx = await demoApp();
    const { engine } = ctx;
    const none = new Uint8Array(32);
    expect(await engine.decision(none)).toEqual({ kind: 'absent' });
    expect(await engine.record(none)).toEqual({ kind: 'absent' });
    expect(await engine.policyOf(none)).toEqual({ kind: 'absent' });
    expect(await engine.policyOf(engine.policyDigest)).toEqual({
      kind: 'found',
      bytes: ctx.setup.policyBytes,
    });
    expect(engine.roomDescriptorOf(none)).toEqual({ kind: 'absent' });
    expect(engine.roomDescriptorOf(ctx.setup.roomId)).toEqual({
      kind: 'found',
      bytes: ctx.setup.roomBytes,
    });
    expect(engine.keyLogHeadOf(none)).toEqual({ kind: 'absent' });
    expect(engine.keyLogHeadOf(ctx.setup.roomId)).toEqual({
      kind: 'found',
      bytes: ctx.setup.keyLogBytes,
    });
  });

  it('declines work once closing, and refuses another room', async () => {
    ctx = await demoApp();
    const { engine } = ctx;
    await expect(
      engine.replaceRoom({ ...engine.room, roomId: new Uint8Array(32) }, null),
    ).rejects.toThrow(TypeError);
    expect(engine.admit()).toBeUndefined();
    await engine.close();
    expect(engine.closing).toBe(true);
    expect(engine.admit()).toEqual({ kind: 'overloaded', why: 'the server is closing' });
    expect(await engine.decide({ target: '/steer' })).toEqual({
      kind: 'overloaded',
      why: 'the server is closing',
    });
    expect(await engine.ingest(new Uint8Array(4))).toMatchObject({ kind: 'overloaded' });
  });

  it('answers store_unavailable while the store file is gone, and when a commit fails', async () => {
    ctx = await demoApp();
    const { engine, store } = ctx;
    engine.health.fail('store', 'the store file was removed');
    expect(await engine.decide({ target: '/steer' })).toEqual({
      kind: 'store_unavailable',
      cause: 'file',
      why: 'the store file was removed or replaced',
    });
    engine.health.clear('store');
    const commit = store.commit.bind(store);
    store.commit = async () => {
      throw new Error('database is locked');
    };
    expect(await engine.decide({ target: '/steer' })).toEqual({
      kind: 'store_unavailable',
      cause: 'commit',
      why: 'the decision could not be archived',
    });
    expect(engine.health.has('commit')).toBe(true);
    store.commit = commit;
    expect((await engine.decide({ target: '/steer' })).kind).toBe('manifest');
    expect(engine.health.has('commit')).toBe(false);
  });

  it('reads a session only when this server minted it, and mints one for a request without', async () => {
    ctx = await demoApp();
    const { engine } = ctx;
    const mine = engine.sessionMac.mint();
    const hex = Buffer.from(mine).toString('hex');
    expect(engine.readSession(`/steer?wai_session=${hex}`)).toEqual(mine);
    expect(engine.readSession('/steer')).toBeUndefined();
    expect(engine.readSession(`/steer?wai_session=${'0'.repeat(32)}`)).toBeUndefined();
    expect(engine.metrics.forgedSessions.get()).toBe(1);
    // Given by the door: the one given (here none, so one is minted).
    const r = await engine.decide({ target: `/steer?wai_session=${hex}`, session: null });
    expect(r.kind === 'manifest' && Buffer.from(r.fields.session).toString('hex')).not.toBe(hex);
  });
});
