// Preloaded (`--require`) into a server by the stall bench (`stall.bench.mjs`): a light probe that,
// unlike `trace-probe.cjs`, never keeps the event loop awake, so that the server runs as it does
// unprobed. From its start it keeps, in memory, only what is slow (past `WAI_STALL_MS`, 20 ms by
// default):
// - a steering request whose client waited that long: from the previous answer on its connection
//   (a closed loop's client sends its next request then) to its own answer, with its stages when it was a
//   steering request (`src/trace.ts`);
// - the server's traced work and group commits that long;
// - a garbage collection's pause that long;
// - a late timer: a 10-ms interval that fired that late, the event loop blocked meanwhile;
// and counts every request. `stall-stop` answers with all of it and starts again.
const dc = require('node:diagnostics_channel');
const { PerformanceObserver, performance, constants } = require('node:perf_hooks');

const T = Number(process.env.WAI_STALL_MS ?? 20);
const GC_KINDS = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'scavenge',
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'mark-compact',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental marking',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weak callbacks',
};

let slow = [];
let requests = 0;
/** The last answer's time on each connection. */
const lastGone = new WeakMap();
const started = new WeakMap();

dc.subscribe('http.server.request.start', ({ request }) => {
  started.set(request, performance.now());
});
dc.subscribe('http.server.response.finish', ({ request, socket }) => {
  // The load's steering requests only: a hop's posts come when it chooses, not as a closed loop.
  if (!request.url.startsWith('/steer')) return;
  const gone = performance.now();
  requests++;
  const from = lastGone.get(socket) ?? started.get(request) ?? gone;
  lastGone.set(socket, gone);
  if (gone - from >= T) {
    slow.push({ kind: 'request', start: from, end: gone, parsed: started.get(request) });
  }
});
dc.subscribe('wai-steering:request', (r) => {
  if (r.gone - r.parsed >= T) {
    slow.push({
      kind: 'stages',
      start: r.parsed,
      end: r.gone,
      handled: r.handled,
      answered: r.answered,
      written: r.written,
    });
  }
});
dc.subscribe('wai-steering:commit', (c) => {
  if (c.end - c.start >= T) slow.push({ kind: 'commit', start: c.start, end: c.end, size: c.size });
});
dc.subscribe('wai-steering:work', (w) => {
  if (w.end - w.start >= T) slow.push({ kind: 'work', name: w.name, start: w.start, end: w.end });
});
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    if (e.duration >= T) {
      const kind = GC_KINDS[e.detail?.kind] ?? 'other';
      slow.push({ kind: 'gc', name: kind, start: e.startTime, end: e.startTime + e.duration });
    }
  }
}).observe({ entryTypes: ['gc'] });

let due = performance.now() + 10;
setInterval(() => {
  const now = performance.now();
  if (now - due >= T) slow.push({ kind: 'late', start: due, end: now });
  due = now + 10;
}, 10).unref();

process.on('message', (m) => {
  if (m?.cmd === 'stall-stop') {
    process.send({ stall: { slow, requests, now: performance.now() } });
    slow = [];
    requests = 0;
  }
});
