// Linking an engine to the other workers of `serve --workers N` through the primary: its loads
// published and the peers' added, a record announced and one heard, live announcements relayed,
// the peers' gauges; and nothing to link for a store of its own.
import { EventEmitter } from 'node:events';
import { parseHex, readDecision, unwrap } from '@wai-steering/wire';
import { afterEach, describe, expect, it } from 'vitest';
import { LoadsHub, type LoadsMessage } from '../../src/instances/ipc-loads.js';
import { linkInstances } from '../../src/instances/start.js';
import { demoApp, get, postPeriods, text } from '../helpers/setup.js';

type Ctx = Awaited<ReturnType<typeof demoApp>>;
let ctx: Ctx | undefined;
afterEach(async () => {
  await ctx?.close();
  ctx = undefined;
});

/** The primary's side, as a worker sees it: what the worker sent, and a way to answer. */
class Primary extends EventEmitter {
  readonly sent: unknown[] = [];
  send(m: unknown): boolean {
    this.sent.push(m);
    return true;
  }
}

describe('linkInstances', () => {
  it('links nothing for an embedded store of its own', async () => {
    ctx = await demoApp();
    const linked = await linkInstances(ctx.engine, ctx.store, {
      heartbeatMs: 50,
      dropAfterMs: 200,
    });
    expect([linked.link, linked.peers]).toEqual([undefined, undefined]);
    await linked.stop();
  });

  it("through the primary: publishes this worker's loads, adds the peers', and announces records", async () => {
    ctx = await demoApp();
    const primary = new Primary();
    const linked = await linkInstances(ctx.engine, ctx.store, {
      heartbeatMs: 10_000,
      dropAfterMs: 40_000,
      worker: primary,
    });
    try {
      // The first beat, at once: this worker's own loads, and the slots it asks for of each
      // pathway's capacity (`leases.ts`).
      const first = primary.sent[0] as LoadsMessage;
      expect(first).toMatchObject({ wai: 'loads', counts: [0, 0, 0], seq: 1 });
      expect(first.capacities).toEqual(ctx.engine.policy.pathways.map((p) => p.capacity));
      // The primary answers with the others' sum and the slots it grants (as its hub does):
      // decisions state the sum.
      const granted = new LoadsHub(10_000, 4).beat(1, first, 0);
      primary.emit('message', { ...granted, counts: [5, 0, 2], live: 1 });
      const res = await get(ctx.app, '/steer');
      expect(res.status).toBe(200);
      const uri = JSON.parse(text(res.body))['science.transaction.wai-decision'] as string;
      const stored = await ctx.engine.decision(parseHex(uri.slice(-64))!);
      const decision = unwrap(readDecision((stored as { bytes: Uint8Array }).bytes));
      expect(decision.pathways.map((p) => p.load)).toEqual([5, 0, 2]);
      const metrics = ctx.engine.metrics.render();
      expect(metrics).toContain('wai_steering_peer_load{pathway="cdn-a"} 5');
      expect(metrics).toContain('wai_steering_peers 1');
      // A record this worker stored is announced to the others.
      const P = ctx.setup.policy.period_us;
      const [digest] = await postPeriods(ctx, [(ctx.clock.us / P) * P]);
      expect(primary.sent).toContainEqual({ wai: 'record', digest });
    } finally {
      await linked.stop();
    }
    expect(primary.listenerCount('message')).toBe(0);
  });
});
