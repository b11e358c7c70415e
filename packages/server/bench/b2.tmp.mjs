import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { monotonicClock } from '../dist/index.js';
import { HopSimulator, setupDemo } from '../dist/testkit.js';
import { freePort, loadRun, start, stop, storeDir, load } from './load.mjs';
const dir = mkdtempSync(join(storeDir(), 'wai-b2-'));
const W = process.env.W ?? '2';
const room = setupDemo(join(dir, 'workers'), { port: await freePort(), periodMs: 10_000, windowPeriods: 6, budgets: false });
await stop(await start('instance-server.mjs', [room.configPath, '1']));
const t0 = Date.now();
const b2 = await start('instance-server.mjs', [room.configPath, W]);
const sim = new HopSimulator({ policy: room.policy, roomId: room.roomId, hops: room.hops, base: b2.url, clock: monotonicClock(), history: 7 });
await sim.start();
const windows = Number(process.env.WIN ?? 12);
for (let i = 0; i < windows; i++) {
  const s = (Date.now() - t0) / 1000;
  const r = await loadRun(b2.url, { duration: 5, connections: 128 });
  console.log(`${s.toFixed(0)}-${((Date.now() - t0) / 1000).toFixed(0)} s: ${Math.round(r.rps)} req/s p50 ${r.latencyMs.p50.toFixed(1)} p99 ${r.latencyMs.p99.toFixed(1)} p99.9 ${r.latencyMs.p999.toFixed(1)} load ${load()}`);
}
await sim.stop(); await stop(b2);
