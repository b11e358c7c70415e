// The engine's gauges, read at scrape time from the engine's state.
import { afterEach, describe, expect, it } from 'vitest';
import { demoApp, get } from '../helpers/setup.js';

type Ctx = Awaited<ReturnType<typeof demoApp>>;
let ctx: Ctx | undefined;
afterEach(async () => {
  await ctx?.close();
  ctx = undefined;
});

/** The samples of one metric in the exposition, by their label text. */
function samples(text: string, name: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const line of text.split('\n')) {
    const m = new RegExp(`^${name}(\\{[^}]*\\})? (\\S+)$`).exec(line);
    if (m !== null) out[m[1] ?? ''] = Number(m[2]);
  }
  return out;
}

describe('registerGauges', () => {
  it('reads the loads, sessions, queue, records and statuses of the engine now', async () => {
    ctx = await demoApp();
    for (let i = 0; i < 3; i++) expect((await get(ctx.app, '/steer')).status).toBe(200);
    const text = ctx.engine.metrics.render();
    const loads = samples(text, 'wai_steering_load');
    const ids = ctx.engine.policy.pathways.map((p) => p.id);
    expect(Object.keys(loads)).toEqual(ids.map((id) => `{pathway="${id}"}`));
    expect(Object.values(loads).reduce((a, b) => a + b, 0)).toBe(3);
    expect(samples(text, 'wai_steering_sessions')).toEqual({ '': 3 });
    expect(samples(text, 'wai_steering_commit_queue')).toEqual({ '': 0 });
    expect(samples(text, 'wai_steering_evidence_records')).toEqual({ '': 0 });
    // No records: every pathway is stale (3).
    expect(Object.values(samples(text, 'wai_steering_pathway_status'))).toEqual([3, 3, 3]);
    expect(Object.keys(samples(text, 'wai_steering_live_capacity'))).toEqual(
      ids.map((id) => `{pathway="${id}",source="template"}`),
    );
    expect(samples(text, 'wai_steering_live_report_age_seconds')).toEqual({});
  });
});
