// What a traced server recorded (`trace-probe.cjs`), read: each request's wait as its client saw
// it, on the wall's clock and on the server's CPU's, and for the slowest what it waited behind.
//
// A client of a closed loop (wrk) sends its next request on a connection as soon as it has the
// answer to the last, so a request's wait is, to within the client's own turnaround, the time
// from the previous answer on its connection to its own. On the wall's clock that counts every
// moment the server's event loop waited for a core while another process or thread had it (on a
// shared machine, most of the wait). Less those moments (the main thread's time runnable but not
// running, from the kernel's schedstat), it is what the request would wait on a machine with a
// core free for the server: the event loop's work meanwhile (the other connections' requests and
// everything else it did) and its waits off the CPU (a write or fsync blocking, a lock). The
// CPU's clock alone (the main thread's time on a CPU) leaves those waits out too.

/** The `p`-th percentile of `xs` (nearest rank). */
export function percentile(xs, p) {
  if (xs.length === 0) return Number.NaN;
  const s = Float64Array.from(xs).sort();
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
}

/** Asks a traced server to start, or stop and hand over, its trace. */
export function trace(child, cmd) {
  return new Promise((resolve) => {
    const on = (m) => {
      if (m?.trace === undefined) return;
      child.off('message', on);
      resolve(m.trace);
    };
    child.on('message', on);
    child.send({ cmd });
  });
}

/**
 * A clock of the main thread from the turns' marks (wall, CPU, wait for a CPU; ms): at wall time
 * `w`, field `k` (1 the CPU's, 2 the wait for one), interpolated between the marks around `w`.
 */
function threadClock(turns, k) {
  const n = turns.length / 3;
  return (w) => {
    let lo = 0;
    let hi = n - 1;
    if (n === 0) return Number.NaN;
    if (w <= turns[0]) return turns[k];
    if (w >= turns[3 * hi]) return turns[3 * hi + k];
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (turns[3 * mid] <= w) lo = mid;
      else hi = mid;
    }
    const w0 = turns[3 * lo];
    const w1 = turns[3 * hi];
    const c0 = turns[3 * lo + k];
    const c1 = turns[3 * hi + k];
    return c0 + ((c1 - c0) * (w - w0)) / (w1 - w0 || 1);
  };
}

/**
 * Each request's wait (from the previous answer on its connection to its own): on the wall's
 * clock (`wall`), less the main thread's waits for a core (`own`), and on its CPU's clock
 * (`cpu`); the first request of each connection has none.
 */
export function waits(t) {
  const cpuAt = threadClock(t.turns, 1);
  const runqAt = threadClock(t.turns, 2);
  const byGone = [...t.http].sort((x, y) => x.gone - y.gone);
  const last = new Map();
  const out = [];
  for (const r of byGone) {
    const prev = last.get(r.socket);
    last.set(r.socket, r.gone);
    if (prev === undefined) continue;
    const wall = r.gone - prev;
    out.push({
      from: prev,
      to: r.gone,
      wall,
      own: wall - (runqAt(r.gone) - runqAt(prev)),
      cpu: cpuAt(r.gone) - cpuAt(prev),
    });
  }
  return out;
}

/** p50, p99 and p99.9 of a list of waits, ms, on one clock. */
export function percentiles(ws, clock) {
  const xs = ws.map((w) => w[clock]);
  return { p50: percentile(xs, 50), p99: percentile(xs, 99), p999: percentile(xs, 99.9) };
}

/**
 * The work the server did besides requests (`src/trace.ts`: the log's integration, the keys'
 * merge, the sweep, group commits, a WAL checkpoint on its thread; the garbage collector), and,
 * for the requests whose wait on the `clock` is at or past its 99th percentile against all
 * requests, how often each overlapped their wait and for how long (wall ms, within the wait).
 */
export function slowest(t, ws, clock = 'own') {
  const items = [...t.work, ...t.gcs, ...t.commits.map((c) => ({ ...c, name: 'group commit' }))];
  items.sort((x, y) => x.start - y.start);
  const names = [...new Set(items.map((i) => i.name))].sort();
  const p99 = percentile(
    ws.map((w) => w[clock]),
    99,
  );
  const overlap = (sample) => {
    const count = Object.fromEntries(names.map((n) => [n, 0]));
    const ms = Object.fromEntries(names.map((n) => [n, 0]));
    for (const w of sample) {
      const seen = new Set();
      for (const i of items) {
        if (i.start >= w.to) break;
        if (i.end <= w.from) continue;
        ms[i.name] += Math.min(w.to, i.end) - Math.max(w.from, i.start);
        seen.add(i.name);
      }
      for (const n of seen) count[n]++;
    }
    return Object.fromEntries(
      names.map((n) => [n, { share: count[n] / sample.length, ms: ms[n] / sample.length }]),
    );
  };
  const slow = ws.filter((w) => w[clock] >= p99);
  // Every 16th request stands for all (the overlap is a scan per request).
  const all = ws.filter((_, i) => i % 16 === 0);
  const kinds = {};
  for (const i of items) {
    kinds[i.name] ??= { n: 0, wall: [], cpu: [] };
    const k = kinds[i.name];
    k.n++;
    k.wall.push(i.end - i.start);
    if (i.cpu !== undefined) k.cpu.push(i.cpu);
  }
  return { p99, slow: overlap(slow), all: overlap(all), kinds };
}

/** The stages of the steering server's slowest requests (`wai-steering:request`), medians, ms. */
export function stagesOfSlowest(t) {
  const inside = t.stages.map((s) => s.gone - s.parsed);
  const p99 = percentile(inside, 99);
  const slow = t.stages.filter((s) => s.gone - s.parsed >= p99);
  const med = (f) => percentile(slow.map(f), 50);
  return {
    p99,
    decide: med((s) => s.handled - s.parsed),
    commit: med((s) => s.answered - s.handled),
    write: med((s) => s.gone - s.answered),
  };
}
