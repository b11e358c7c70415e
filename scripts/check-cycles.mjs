#!/usr/bin/env node
// Checks that no module of the repository imports itself through others: the relative imports
// (`import`, `import type`, `export … from`, `import()`) of every TypeScript and JavaScript file
// of the workspace's packages form no cycle. A cycle makes the order of evaluation depend on
// which module is loaded first, and hides which of two modules is built on the other.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const SKIP = new Set(['node_modules', 'dist', 'coverage', '.turbo']);

function walk(dir, out = []) {
  let names = [];
  try {
    names = readdirSync(dir);
  } catch {
    return out;
  }
  for (const name of names) {
    if (SKIP.has(name) || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path, out);
    else if (/\.(ts|mts|tsx|js|mjs)$/.test(name) && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

function stripComments(src) {
  return src.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');
}

/** The file a relative specifier names (`./x.js` is `./x.ts` in the sources), if any. */
function target(from, spec) {
  const base = resolve(dirname(from), spec);
  const stem = base.replace(/\.(js|mjs|ts|mts)$/, '');
  for (const c of [base, `${stem}.ts`, `${stem}.mts`, `${stem}.tsx`, `${stem}.js`, `${stem}.mjs`]) {
    if (existsSync(c) && statSync(c).isFile()) return c;
  }
  for (const c of ['index.ts', 'index.js']) {
    const p = join(base, c);
    if (existsSync(p)) return p;
  }
  return undefined;
}

const dirs = ['packages', 'conformance', 'players', 'deploy', 'tools'].map((d) => join(root, d));
const files = dirs.flatMap((d) => walk(d));
const edges = new Map();
for (const file of files) {
  const src = stripComments(readFileSync(file, 'utf8'));
  const specs = [
    ...src.matchAll(/\b(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]/g),
    ...src.matchAll(/\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g),
    ...src.matchAll(/\bimport\s+['"]([^'"]+)['"]/g),
  ].map((m) => m[1]);
  const to = new Set();
  for (const spec of specs) {
    if (!spec.startsWith('.')) continue;
    const t = target(file, spec);
    if (t !== undefined && t !== file) to.add(t);
  }
  edges.set(file, [...to]);
}

// Tarjan's strongly connected components, iteratively: each of more than one file is a cycle.
const index = new Map();
const low = new Map();
const onStack = new Set();
const stack = [];
const cycles = [];
let next = 0;
for (const start of edges.keys()) {
  if (index.has(start)) continue;
  const work = [[start, 0]];
  index.set(start, next);
  low.set(start, next++);
  stack.push(start);
  onStack.add(start);
  while (work.length > 0) {
    const frame = work[work.length - 1];
    const [v, i] = frame;
    const out = edges.get(v) ?? [];
    if (i < out.length) {
      frame[1]++;
      const w = out[i];
      if (!edges.has(w)) continue;
      if (!index.has(w)) {
        index.set(w, next);
        low.set(w, next++);
        stack.push(w);
        onStack.add(w);
        work.push([w, 0]);
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v), index.get(w)));
      }
      continue;
    }
    work.pop();
    if (work.length > 0) {
      const u = work[work.length - 1][0];
      low.set(u, Math.min(low.get(u), low.get(v)));
    }
    if (low.get(v) === index.get(v)) {
      const scc = [];
      let w;
      do {
        w = stack.pop();
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1) cycles.push(scc.map((f) => relative(root, f)).sort());
    }
  }
}

if (cycles.length > 0) {
  console.error(`import cycles: ${cycles.length}`);
  for (const c of cycles) console.error(`  ${c.join(' ⇄ ')}`);
  process.exit(1);
}
console.log(`import cycles: none among ${files.length} files`);
