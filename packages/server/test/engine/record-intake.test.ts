// The records' part of ingest: a refusal counted by reason and told to the observer; a record
// outside the horizon refused unless the store holds it already; a record durable taken into the
// evidence index, announced to the other instances when new, and said unused when no window the
// server will use names it.
import { readHopRecord, sha256, unwrap } from '@wai-steering/wire';
import { nodeBackend } from '@wai-steering/wire/node';
import { afterEach, describe, expect, it } from 'vitest';
import { StoreReads } from '../../src/engine/reads.js';
import { RecordIntake } from '../../src/engine/record-intake.js';
import { Retention } from '../../src/engine/retention.js';
import type { EngineObserver } from '../../src/engine/types.js';
import { Metrics } from '../../src/metrics.js';
import type { StoredRecord } from '../../src/store/store.js';
import { demoApp } from '../helpers/setup.js';

type Ctx = Awaited<ReturnType<typeof demoApp>>;
let ctx: Ctx | undefined;
afterEach(async () => {
  await ctx?.close();
  ctx = undefined;
});

/** An intake over the demo engine's index and store, with a metrics, observer and link of its own. */
function intakeOf(c: Ctx) {
  const metrics = new Metrics();
  const told: unknown[] = [];
  const announced: StoredRecord[] = [];
  const observer: EngineObserver = {
    decided: () => {},
    ingested: (hop, outcome) => told.push([hop === null ? null : 'hop', outcome]),
  };
  const intake = new RecordIntake({
    metrics,
    reads: new StoreReads({
      store: c.store,
      backend: nodeBackend,
      health: c.engine.health,
      metrics,
    }),
    index: c.engine.index,
    retention: new Retention(c.store, c.engine.health, metrics),
    observer,
    link: () => ({ stored: (r) => announced.push(r) }),
    policy: () => c.engine.policy,
  });
  return { intake, metrics, told, announced };
}

function recordOf(c: Ctx, end: bigint) {
  const P = c.setup.policy.period_us;
  const bytes = c.sim.record(c.setup.hops[0]!, end - P, end, 10);
  const digest = sha256(bytes.subarray(0, bytes.length - 64));
  const record = unwrap(readHopRecord(bytes));
  const stored: StoredRecord = { digest, bytes, hop: record.hop, start: record.start, end };
  return { bytes, digest, record, stored };
}

describe('RecordIntake', () => {
  it('counts a refusal by reason and tells the observer', async () => {
    ctx = await demoApp();
    const { intake, metrics, told } = intakeOf(ctx);
    const refusal = { reason: 'bad_signature', where: { field: 'sig' }, message: 'no' };
    expect(intake.refused(refusal as never, new Uint8Array(3))).toEqual({
      kind: 'refused',
      reason: 'bad_signature',
      where: { field: 'sig' },
      message: 'no',
    });
    expect(metrics.refused.get({ reason: 'bad_signature' })).toEqual(1);
    expect(told).toEqual([[null, { refused: 'bad_signature' }]]);
  });

  it('refuses a record outside the horizon unless the store holds it', async () => {
    ctx = await demoApp();
    const { intake, metrics } = intakeOf(ctx);
    const { digest, stored } = recordOf(ctx, ctx.clock.us);
    const refusal = { error: 'outside_horizon' } as never;
    expect(await intake.outside(refusal, digest)).toEqual({ kind: 'outside', refusal });
    expect(metrics.horizonRefused.get({ error: 'outside_horizon' })).toEqual(1);
    await ctx.store.commit({ decisions: [], records: [stored] });
    expect(await intake.outside(refusal, digest)).toEqual(undefined);
  });

  it('takes a durable record as evidence, announces it when new, and says when it is unused', async () => {
    ctx = await demoApp();
    const { intake, metrics, told, announced } = intakeOf(ctx);
    const { record, stored } = recordOf(ctx, ctx.clock.us);
    const r = intake.taken(stored, record, true, ctx.clock.us);
    expect(r).toMatchObject({ kind: 'stored', inserted: true, digest: stored.digest });
    expect(announced).toEqual([stored]);
    expect(intake.taken(stored, record, false, ctx.clock.us)).toMatchObject({ inserted: false });
    expect(announced.length).toEqual(1);
    expect(metrics.ingested.get({ result: 'new' })).toEqual(1);
    expect(metrics.ingested.get({ result: 'duplicate' })).toEqual(1);
    expect(told).toEqual([
      ['hop', 'new'],
      ['hop', 'duplicate'],
    ]);
    // Far in the past: no window the server will use names it.
    const old = recordOf(ctx, ctx.clock.us - 1000n * ctx.setup.policy.period_us);
    const unused = intake.taken(old.stored, old.record, true, ctx.clock.us);
    expect(unused.kind === 'stored' && typeof unused.unused).toEqual('string');
  });
});
