// `pnpm bench:stall`: what a steering server's slowest requests waited for, in rounds shaped as
// `pnpm bench:server`'s ((b) from 32 connections, then 128, with the other servers' rounds as
// idle gaps between), with the light probe preloaded (`stall-probe.cjs`: it does not keep the
// event loop awake, so the server runs as it does unprobed). Each load prints wrk's own
// percentiles beside the server's view: the requests whose client waited past 100 ms (from the
// previous answer on the connection to its own), and what overlapped them: the event loop blocked
// (a late timer), a garbage collection, a group commit or other traced work that long. A stall
// that wrk sees and the server does not is outside the server (the machine, the loader); the time
// the host stole from the machine is printed beside it.
//
// BENCH_STALL_ROUNDS (default 6), BENCH_STALL_GAP (s idle between loads, default 20),
// Each round then loads (a), the minimal signing server, from 128 connections: the machine's own
// pauses show there too. BENCH_STALL_OTHERS=1 runs the bench's other servers beside them, idle
// ((b′), two workers).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { setupDemo } from '../dist/testkit.js';
import { fixed } from './goals.mjs';
import {
  DURATION,
  freePort,
  here,
  hopsFor,
  LOADER,
  load,
  loadRun,
  machine,
  start,
  stop,
  storeDir,
  WARMUP,
} from './load.mjs';

const ROUNDS = Number(process.env.BENCH_STALL_ROUNDS ?? 6);
const GAP = Number(process.env.BENCH_STALL_GAP ?? 20);
const OTHERS = process.env.BENCH_STALL_OTHERS === '1';
/** A wait this long (ms) counts as a stall. */
const STALL = 100;
const probe = ['--require', join(here, 'stall-probe.cjs')];

const ask = (child, cmd, key) =>
  new Promise((resolve) => {
    const on = (m) => {
      if (m?.[key] === undefined) return;
      child.off('message', on);
      resolve(m[key]);
    };
    child.on('message', on);
    child.send({ cmd });
  });

/**
 * The machine's time stolen by its host (the `steal` of `/proc/stat`, ms, every CPU), sampled
 * every 100 ms: its total over a load, and the most in one sample (a virtual machine paused).
 */
const steal = (() => {
  const read = () =>
    Number(readFileSync('/proc/stat', 'latin1').split('\n')[0].split(/\s+/)[8]) * 10;
  let last = read();
  let most = 0;
  let total = 0;
  setInterval(() => {
    const now = read();
    most = Math.max(most, now - last);
    total += now - last;
    last = now;
  }, 100).unref();
  return {
    /** The figures since the last call. */
    take() {
      const r = { total, most };
      total = 0;
      most = 0;
      return r;
    },
  };
})();

const dir = mkdtempSync(join(storeDir(), 'wai-stall-'));
const servers = [];
const sims = [];
/** A steering server (one worker, or `workers` in processes of their own) on a demo room. */
async function steering(at, { execArgv = [], workers = 1 } = {}) {
  const setup = setupDemo(at, {
    port: await freePort(),
    periodMs: 10_000,
    windowPeriods: 6,
    budgets: false,
  });
  let server;
  if (workers === 1) server = await start('steering-server.mjs', [setup.configPath], execArgv);
  else {
    await stop(await start('instance-server.mjs', [setup.configPath, '1']));
    server = await start('instance-server.mjs', [setup.configPath, String(workers)], execArgv);
  }
  servers.push(server);
  const sim = hopsFor(setup, server.url);
  await sim.start();
  sims.push(sim);
  return server;
}

/** What overlapped the stalls: each kind of slow event, how many, its longest, the stalls it overlapped. */
function overlaps(stalls, events) {
  const by = new Map();
  for (const e of events) {
    const name = e.kind === 'work' || e.kind === 'gc' ? `${e.kind} ${e.name}` : e.kind;
    by.set(name, [...(by.get(name) ?? []), e]);
  }
  return [...by]
    .map(([name, es]) => [
      name,
      {
        n: es.length,
        longest: Math.max(...es.map((e) => e.end - e.start)),
        hit: stalls.filter((st) => es.some((e) => e.start < st.end && e.end > st.start)).length,
      },
    ])
    .sort((x, y) => y[1].longest - x[1].longest);
}

try {
  console.log(
    `pnpm bench:stall, ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, load from ${LOADER}, ${DURATION} s a load, ${GAP} s apart; one worker${OTHERS ? ', the bench’s other servers idle beside it' : ''}; load average ${load()}`,
  );
  console.log(`the machine: ${machine().line}`);
  const b = await steering(dir, { execArgv: probe });
  // (a), the minimal signing server, loaded from 128 connections after (b) in each round: the
  // machine's own pauses show in its p99.9 too.
  const a = await start('baseline-server.mjs');
  servers.push(a);
  if (OTHERS) {
    await steering(join(dir, 'openssl'), {
      execArgv: ['--require', join(here, 'no-libsodium.cjs')],
    });
    await steering(join(dir, 'workers'), { workers: 2 });
  }
  await loadRun(b.url, { duration: WARMUP, connections: 128 });
  await ask(b.child, 'stall-stop', 'stall');
  await loadRun(a.url, { duration: WARMUP, connections: 128, steering: false });
  for (let round = 1; round <= ROUNDS; round++) {
    for (const connections of [32, 128]) {
      await sleep(GAP * 1000);
      await ask(b.child, 'stall-stop', 'stall');
      steal.take();
      const r = await loadRun(b.url, { duration: DURATION, connections });
      const s = await ask(b.child, 'stall-stop', 'stall');
      const stolen = steal.take();
      const waits = s.slow.filter((e) => e.kind === 'request');
      const stalls = waits.filter((e) => e.end - e.start >= STALL);
      const longest = waits.reduce((m, e) => Math.max(m, e.end - e.start), 0);
      const events = s.slow.filter((e) => e.kind !== 'request' && e.kind !== 'stages');
      const stages = s.slow.filter((e) => e.kind === 'stages' && e.end - e.start >= STALL);
      console.log(
        `round ${round}, ${connections} connections: ${Math.round(r.rps)} req/s; wrk p99 ${fixed(r.latencyMs.p99, 1)}, p99.9 ${fixed(r.latencyMs.p999, 1)}, max ${fixed(r.latencyMs.max, 1)} ms; the server: ${s.requests} answered, ${waits.length} waits past 20 ms, ${stalls.length} past ${STALL} ms (longest ${fixed(longest, 1)} ms); stolen by the host ${stolen.total} ms, at most ${stolen.most} ms in 100 ms; load average ${load()}`,
      );
      if (stages.length > 0) {
        // Of the stalled steering requests: parse to handled (decided), to answered (committed), to gone.
        const part = (k0, k1) =>
          fixed(Math.max(...stages.map((e) => (e[k1] ?? e.end) - (e[k0] ?? e.start))), 1);
        console.log(
          `  stalled steering requests, longest parts: decided ${part('start', 'handled')}, committed ${part('handled', 'answered')}, written ${part('answered', 'written')}, gone ${part('written', 'end')} ms`,
        );
      }
      for (const [name, o] of overlaps(stalls, events).slice(0, 8)) {
        console.log(
          `  ${name}: ${o.n} past 20 ms, the longest ${fixed(o.longest, 1)} ms; overlapping ${o.hit} of the ${stalls.length} stalls`,
        );
      }
      // The stalls that nothing slow in the server overlapped, on the probe's clock.
      const bare = stalls.filter((st) => !events.some((e) => e.start < st.end && e.end > st.start));
      if (bare.length > 0) {
        console.log(
          `  ${bare.length} stalls overlapped nothing slow in the server (the first at ${fixed(bare[0].start / 1000, 2)} s, ${fixed(bare[0].end - bare[0].start, 1)} ms)`,
        );
      }
    }
    await sleep(GAP * 1000);
    steal.take();
    const ra = await loadRun(a.url, { duration: DURATION, connections: 128, steering: false });
    const stolen = steal.take();
    console.log(
      `round ${round}, (a) from 128 connections: ${Math.round(ra.rps)} req/s; wrk p99 ${fixed(ra.latencyMs.p99, 1)}, p99.9 ${fixed(ra.latencyMs.p999, 1)}, max ${fixed(ra.latencyMs.max, 1)} ms; stolen by the host ${stolen.total} ms, at most ${stolen.most} ms in 100 ms`,
    );
  }
} finally {
  for (const sim of sims) await sim.stop?.();
  for (const s of servers) await stop(s).catch(() => {});
  rmSync(dir, { recursive: true, force: true });
}
