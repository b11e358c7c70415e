import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { monotonicClock } from '../dist/index.js';
import { HopSimulator, setupDemo } from '../dist/testkit.js';
import { trace } from './latency-trace.mjs';
import { freePort, here, loadRun, start, stop, storeDir } from './load.mjs';
const PROBE = ['--require', join(here, 'trace-probe.cjs')];
const dir = mkdtempSync(join(storeDir(), 'wai-estall-'));
const port = await freePort();
const setup = setupDemo(dir, { port, periodMs: 10_000, windowPeriods: 6, budgets: false });
const b = await start('steering-server.mjs', [setup.configPath], PROBE);
const sim = new HopSimulator({ policy: setup.policy, roomId: setup.roomId, hops: setup.hops, base: b.url, clock: monotonicClock(), history: 7 });
await sim.start();
for (let i = 0; i < Number(process.env.N ?? 3); i++) {
  await loadRun(b.url, { duration: 10, connections: 128 });
  await trace(b.child, 'trace-start');
  const t0 = performance.now();
  const res = await fetch(`${b.url}/energy`);
  const body = await res.text();
  const took = performance.now() - t0;
  const t = await trace(b.child, 'trace-stop');
  const gaps = [];
  for (let i = 3; i < t.turns.length; i += 3) {
    const dw = t.turns[i] - t.turns[i - 3];
    gaps.push(dw);
  }
  gaps.sort((x, y) => y - x);
  console.log(`after ${i + 1} loads: /energy ${res.status} in ${took.toFixed(0)} ms; turns ${gaps.length}; longest turns ms: ${gaps.slice(0, 8).map((g) => g.toFixed(1)).join(', ')}; sum of turns > 5 ms: ${gaps.filter((g) => g > 5).reduce((a, b) => a + b, 0).toFixed(0)}; body ${body.slice(0, 80)}`);
}
await sim.stop(); await stop(b);
