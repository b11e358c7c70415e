// Where a steering request's CPU goes, stage by stage: a V8 CPU profile of the server under load
// (`node --cpu-prof`), its samples taken within the measured window, each attributed to the stage
// of the innermost frame of the project's own code on its stack (mapped back to `src/` through
// the build's source maps) or of Node's HTTP machinery, then scaled to the main thread's CPU time
// in that window (read from /proc), divided by the requests answered. The other threads of the
// process (SQLite's checkpointer, the garbage collector's helpers, libuv's pool) are one row.
//
// The profile's clock is the system's monotonic clock in µs, as `process.hrtime` is in ns: the
// window is given in that clock.
import { existsSync, readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The stages, in the order of a request; each with how its frames are told. */
export const STAGES = [
  ['http', 'HTTP parse and answer (node:http, the connection queue, routing, the response)'],
  ['report', 'target and report (§4: the query, the session read, CMCD)'],
  ['sessions', 'sessions and budgets (session MAC, the session table, loads, budgets)'],
  ['assembly', 'assembly (§5 evidence cache, §6 draw and rule, §7.1 fields)'],
  ['encode', 'encode (the WSD1 bytes, the manifest text)'],
  ['digest', 'digest (§7.3, SHA-256 of the decision)'],
  ['signature', 'signature (Ed25519: node:crypto in (a), libsodium in (b) where it loads)'],
  ['commit', 'commit (the group commit, the store)'],
  ['metrics', 'metrics (counters, histogram)'],
  ['log', "log (the integrator's runs: hashes, tiles, checkpoint, its transaction)"],
  ['engine', "the engine's own steps (decide, awaiting the commit)"],
  ['loop', 'event loop (promises, timers, other)'],
  ['gc', 'garbage collection (main thread)'],
];

/** The stage of a source file of the project (a path under packages/, as the source map names it). */
function stageOfSource(source) {
  const s = source.replace(/\\/g, '/');
  const m =
    /packages\/([^/]+)\/src\/(.*)$/.exec(s) ??
    /(?:^|\/)(server|rule|evidence|manifest|wire|tlog)\/src\/(.*)$/.exec(s);
  if (m === null) {
    if (s.includes('better-sqlite3') || s.includes('/pg/') || s.includes('pg-protocol'))
      return 'commit';
    return undefined;
  }
  const [, pkg, file] = m;
  if (pkg === 'server') {
    if (file === 'http.ts' || file === 'app.ts' || file.startsWith('routes/')) {
      return 'http';
    }
    if (file === 'sessions.ts' || file.startsWith('guard/') || file === 'instances/loads.ts') {
      return 'sessions';
    }
    if (file === 'ed25519.ts') return 'signature';
    if (file === 'encode.ts' || file === 'engine/signer.ts') return 'encode';
    if (file === 'engine/commit.ts' || file.startsWith('store/')) return 'commit';
    if (file === 'metrics.ts' || file === 'engine/gauges.ts') return 'metrics';
    if (file.startsWith('log/')) return 'log';
    if (file === 'engine/in-force.ts') return 'assembly';
    if (file.startsWith('engine/') || file.startsWith('instances/')) return 'engine';
    return 'engine';
  }
  if (pkg === 'rule') {
    if (file === 'report.ts' || file === 'request.ts' || file === 'structured-field.ts') {
      return 'report';
    }
    return 'assembly';
  }
  if (pkg === 'evidence') return 'assembly';
  if (pkg === 'manifest') return 'encode';
  if (pkg === 'tlog') return 'log';
  // wire is a library: its caller's stage is the sample's.
  return undefined;
}

const HTTP_NODE = /^node:(_http_|net|internal\/(streams|stream_base_commons|http|net))/;

/** Reads a profile and attributes its samples in [fromUs, toUs] to stages. */
export function stagesOf(profilePath, fromUs, toUs, detail) {
  const p = JSON.parse(readFileSync(profilePath, 'utf8'));
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const maps = new Map();
  const mapOf = (url) => {
    if (maps.has(url)) return maps.get(url);
    let map;
    try {
      const path = fileURLToPath(url);
      if (existsSync(`${path}.map`)) {
        const payload = JSON.parse(readFileSync(`${path}.map`, 'utf8'));
        map = { map: new SourceMap(payload), dir: dirname(path) };
      }
    } catch {
      map = undefined;
    }
    maps.set(url, map);
    return map;
  };
  /** A frame's own stage, or undefined when it is not the project's (or SQLite's). */
  const frameStage = new Map();
  const stageOfFrame = (n) => {
    if (frameStage.has(n.id)) return frameStage.get(n.id);
    const { url, lineNumber, columnNumber } = n.callFrame;
    let stage;
    if (url.startsWith('file:')) {
      const m = mapOf(url);
      if (m !== undefined) {
        const e = m.map.findEntry(lineNumber, columnNumber);
        if (e?.originalSource !== undefined) {
          const source = e.originalSource.startsWith('file:')
            ? fileURLToPath(e.originalSource)
            : resolve(m.dir, e.originalSource);
          stage = stageOfSource(source);
        }
      } else stage = stageOfSource(fileURLToPath(url));
    }
    frameStage.set(n.id, stage);
    return stage;
  };
  /** The stage of a sample's stack. */
  const sampleStage = new Map();
  const stageOf = (leafId) => {
    if (sampleStage.has(leafId)) return sampleStage.get(leafId);
    const leaf = byId.get(leafId);
    const leafName = leaf.callFrame.functionName;
    let stage;
    if (leafName === '(garbage collector)') stage = 'gc';
    else if (leafName === '(idle)') stage = 'idle';
    else {
      let signing = false;
      let hashing = false;
      let httpNode = false;
      for (let id = leafId; id !== undefined; id = parent.get(id)) {
        const n = byId.get(id);
        const { functionName, url } = n.callFrame;
        if (url === 'node:internal/crypto/sig' || url.includes('/sodium-native/')) signing = true;
        if (url === 'node:internal/crypto/hash') hashing = true;
        if (HTTP_NODE.test(url) || functionName === 'writev' || functionName === 'writeUtf8String')
          httpNode = true;
        const own = stageOfFrame(n);
        if (own === undefined) continue;
        if (signing) stage = 'signature';
        else if (hashing && own === 'encode') stage = 'digest';
        else stage = own;
        // The store's work for the log's integrator (its transaction, run from `log/`) is the
        // log's, not the group commit's.
        if (stage === 'commit' || stage === 'signature') {
          for (let up = parent.get(id); up !== undefined; up = parent.get(up)) {
            if (stageOfFrame(byId.get(up)) === 'log') {
              stage = 'log';
              break;
            }
          }
        }
        break;
      }
      if (stage === undefined) stage = signing ? 'signature' : httpNode ? 'http' : 'loop';
    }
    sampleStage.set(leafId, stage);
    return stage;
  };
  const counts = Object.fromEntries(STAGES.map(([k]) => [k, 0]));
  let t = p.startTime;
  let busy = 0;
  for (let i = 0; i < p.samples.length; i++) {
    t += p.timeDeltas[i];
    if (t < fromUs || t > toUs) continue;
    const stage = stageOf(p.samples[i]);
    if (stage === 'idle') continue;
    counts[stage]++;
    busy++;
    if (detail !== undefined) {
      const leaf = byId.get(p.samples[i]).callFrame;
      const k = `${stage} ${leaf.functionName} ${leaf.url.replace(/.*\/packages\//, '')}:${leaf.lineNumber}`;
      detail.set(k, (detail.get(k) ?? 0) + 1);
    }
  }
  return { counts, busy };
}

/** CPU seconds (user + system) of a process's main thread and of the whole process, from /proc. */
export function threadCpu(pid) {
  const read = (path) => {
    try {
      const f = readFileSync(path, 'utf8').split(') ')[1].split(' ');
      return (Number(f[11]) + Number(f[12])) / 100;
    } catch {
      return Number.NaN;
    }
  };
  return { main: read(`/proc/${pid}/task/${pid}/stat`), all: read(`/proc/${pid}/stat`) };
}

/**
 * The table: each stage's µs per request, from the shares of the busy samples of the main thread
 * and its CPU time per request, and the other threads' CPU time per request. The CPU times are
 * those of a run without the profiler when given (`mainUs`, `allUs`: the profiler's own threads
 * and its sampling cost would count otherwise), else of the profiled run.
 */
export function stageTable({ counts, busy }, { mainCpuS, allCpuS, requests, mainUs: m, allUs: a }) {
  const mainUs = m ?? (mainCpuS / requests) * 1e6;
  const allUs = a ?? (allCpuS / requests) * 1e6;
  const rows = STAGES.map(([k, label]) => ({
    key: k,
    label,
    us: busy === 0 ? 0 : (counts[k] / busy) * mainUs,
    share: busy === 0 ? 0 : counts[k] / busy,
  }));
  rows.push({
    key: 'threads',
    label: 'other threads (SQLite checkpointer, GC helpers, libuv pool)',
    us: allUs - mainUs,
    share: Number.NaN,
  });
  return { rows, mainUs, allUs };
}
