// Preloaded (`--require`) into a server by the latency bench (`latency.bench.mjs`), (a) or (b):
// records, between the bench's `trace-start` and `trace-stop` messages,
// - each request's start and end (node:http's diagnostics channels) and its connection;
// - each turn of the event loop (a `setImmediate` chain: it keeps the loop from sleeping, so it
//   runs only while recording) with the main thread's time on a CPU and its time waiting for one
//   (runnable, another thread or process on it) so far (`/proc/thread-self/schedstat`, ns): the
//   bench reads a request's wait less the server's waits for a core, as well as the wall's;
// - the steering server's traces (`src/trace.ts`): its stages, group commits and other work;
// - the garbage collector's pauses.
// `trace-stop` answers with all of it.
const dc = require('node:diagnostics_channel');
const { closeSync, openSync, readSync } = require('node:fs');
const { constants, PerformanceObserver, performance } = require('node:perf_hooks');

/** The garbage collections by kind (a scavenge of the young generation, a mark-compact, …). */
const GC_KINDS = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'scavenge',
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'mark-compact',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental marking',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weak callbacks',
};

let on = false;
const http = [];
const stages = [];
const commits = [];
const work = [];
const gcs = [];
/** Turns: wall ms, the main thread's CPU ms and its wait for a CPU ms, interleaved. */
let turns = [];

/** Connections numbered, so that a client's next request on one follows its last answer. */
const ids = new WeakMap();
let nextId = 0;
const idOf = (socket) => {
  let id = ids.get(socket);
  if (id === undefined) {
    id = nextId++;
    ids.set(socket, id);
  }
  return id;
};

const started = new WeakMap();
dc.subscribe('http.server.request.start', ({ request }) => {
  if (on) started.set(request, performance.now());
});
dc.subscribe('http.server.response.finish', ({ request, socket }) => {
  if (!on) return;
  const start = started.get(request);
  if (start !== undefined) http.push({ socket: idOf(socket), start, gone: performance.now() });
});
dc.subscribe('wai-steering:request', (r) => {
  if (on) stages.push({ ...r, socket: idOf(r.socket) });
});
dc.subscribe('wai-steering:commit', (c) => {
  if (on) commits.push(c);
});
dc.subscribe('wai-steering:work', (w) => {
  if (on) work.push(w);
});
new PerformanceObserver((list) => {
  if (!on) return;
  for (const e of list.getEntries()) {
    const kind = GC_KINDS[e.detail?.kind] ?? 'other';
    gcs.push({ name: `gc (${kind})`, start: e.startTime, end: e.startTime + e.duration });
  }
}).observe({ entryTypes: ['gc'] });

let fd;
const buf = Buffer.alloc(96);
/** The main thread's schedstat: ns on a CPU, ns runnable waiting for one, timeslices. */
const mark = () => {
  if (!on) return;
  const n = readSync(fd, buf, 0, buf.length, 0);
  const [cpu, runq] = buf.toString('latin1', 0, n).split(' ');
  turns.push(performance.now(), Number(cpu) / 1e6, Number(runq) / 1e6);
  setImmediate(mark);
};

process.on('message', (m) => {
  if (m?.cmd === 'trace-start') {
    for (const a of [http, stages, commits, work, gcs]) a.length = 0;
    turns = [];
    fd = openSync('/proc/thread-self/schedstat', 'r');
    on = true;
    setImmediate(mark);
    process.send({ trace: 'started' });
  }
  if (m?.cmd === 'trace-stop') {
    on = false;
    closeSync(fd);
    process.send({ trace: { http, stages, commits, work, gcs, turns } });
  }
});
