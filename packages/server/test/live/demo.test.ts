// The demo's `--fill-site`: a simulated edge site reports one slot fewer each period, the server
// keeps the pathway's capacity in step, and once it binds new sessions go elsewhere.
import { afterAll, describe, expect, it } from 'vitest';
import { type RunningDemo, runDemo } from '../../src/demo/run.js';
import { freePort, tempDir } from '../helpers/setup.js';

describe('demo --fill-site', () => {
  const { dir, remove } = tempDir();
  let demo: RunningDemo | undefined;
  afterAll(async () => {
    await demo?.close();
    remove();
  });

  it('fills cdn-b up until the limits send new sessions elsewhere', {
    timeout: 60_000,
  }, async () => {
    const reports: number[] = [];
    const refused: string[] = [];
    demo = await runDemo({
      dir,
      port: await freePort(),
      periodMs: 200,
      fillSite: 'cdn-b',
      onReport: (gas, status, body) => {
        if (status !== 200 && status !== 201) refused.push(`${gas}: ${status} ${body}`);
        reports.push(gas);
      },
    });
    const engine = demo.server.engine;
    // 12 slots at first, one fewer each period: down to 0 within 13 periods (2.6 s).
    await expect
      .poll(() => engine.policy.pathways[1]!.capacity, { timeout: 30_000, interval: 100 })
      .toBe(0);
    expect(reports.slice(0, 3)).toEqual([12, 11, 10]);
    expect(refused).toEqual([]);
    // With cdn-b's capacity 0, no new session is placed there first.
    for (let i = 0; i < 10; i++) {
      const res = await fetch(`${demo.steeringUrl}?_HLS_throughput=5000000`);
      const m = (await res.json()) as { 'PATHWAY-PRIORITY': string[] };
      expect(m['PATHWAY-PRIORITY'][0]).not.toBe('cdn-b');
    }
  });
});
