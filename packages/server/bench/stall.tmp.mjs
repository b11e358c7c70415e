import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { monotonicClock } from '../dist/index.js';
import { HopSimulator, setupDemo } from '../dist/testkit.js';
import { percentiles, trace, waits } from './latency-trace.mjs';
import { freePort, here, loadRun, start, stop, storeDir, load } from './load.mjs';
const PROBE = ['--require', join(here, 'trace-probe.cjs')];
const dir = mkdtempSync(join(storeDir(), 'wai-stall-'));
const port = await freePort();
const setup = setupDemo(dir, { port, periodMs: 10_000, windowPeriods: 6, budgets: false });
const b = await start('steering-server.mjs', [setup.configPath], PROBE);
const sim = new HopSimulator({ policy: setup.policy, roomId: setup.roomId, hops: setup.hops, base: b.url, clock: monotonicClock(), history: 7 });
await sim.start();
const ROUNDS = Number(process.env.R ?? 6);
for (let round = 1; round <= ROUNDS; round++) {
  await loadRun(b.url, { duration: 10, connections: 32 });
  await new Promise((r) => setTimeout(r, Number(process.env.IDLE ?? 10000)));
  await trace(b.child, 'trace-start');
  const r = await loadRun(b.url, { duration: 10, connections: 128 });
  const t = await trace(b.child, 'trace-stop');
  const ws = waits(t);
  const p = percentiles(ws, 'wall');
  // Gaps between turns
  const gaps = [];
  for (let i = 3; i < t.turns.length; i += 3) {
    const dw = t.turns[i] - t.turns[i - 3];
    if (dw > 50) gaps.push({ at: +(t.turns[i - 3] - t.turns[0]).toFixed(0), wall: +dw.toFixed(1), cpu: +(t.turns[i + 1] - t.turns[i - 2]).toFixed(1), runq: +(t.turns[i + 2] - t.turns[i - 1]).toFixed(1) });
  }
  gaps.sort((x, y) => y.wall - x.wall);
  const items = [...t.work, ...t.gcs, ...t.commits.map((c) => ({ ...c, name: 'group commit' }))];
  const over = (g) => {
    const s = t.turns[0] + g.at, e = s + g.wall;
    return items.filter((i) => i.end > s && i.start < e).map((i) => `${i.name} ${(i.end - i.start).toFixed(1)}`).slice(0, 6).join(', ');
  };
  console.log(`round ${round}: ${Math.round(r.rps)} req/s load ${load()}; wall p50 ${p.p50.toFixed(1)} p99 ${p.p99.toFixed(1)} p99.9 ${p.p999.toFixed(1)}; gaps>50ms: ${gaps.length}`);
  for (const g of gaps.slice(0, 4)) console.log(`   gap at ${g.at} ms: wall ${g.wall} cpu ${g.cpu} runq ${g.runq}; overlapping: ${over(g)}`);
  const longWork = items.filter((i) => i.end - i.start > 40).map((i) => `${i.name} ${(i.end - i.start).toFixed(0)}ms@${(i.start - t.turns[0]).toFixed(0)}`);
  const mt = await (await fetch(`${b.url}/metrics`)).text();
  console.log('   energy account took', /wai_steering_energy_account_duration_seconds (\S+)/.exec(mt)?.[1]);
  console.log(`   work > 40 ms: ${longWork.join(', ') || 'none'}`);
}
await sim.stop(); await stop(b);
