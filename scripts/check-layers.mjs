#!/usr/bin/env node
// Checks the layer order of the packages: a package imports only the packages before it, and
// the portable packages import no `node:` module and use no Node global.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const ORDER = ['wire', 'evidence', 'rule', 'manifest', 'verifier', 'console', 'server', 'cli'];
// The cli may start the server; the server never imports the cli.
const PEERS = {};
const PORTABLE = new Set(['wire', 'evidence', 'rule', 'manifest', 'verifier', 'console']);
// Files of a portable package that are Node-only entries by design.
const NODE_ENTRIES = new Set(['packages/wire/src/node.ts']);

const problems = [];

function walk(dir) {
  const out = [];
  let names = [];
  try {
    names = readdirSync(dir);
  } catch {
    return out;
  }
  for (const name of names) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...walk(path));
    else if (/\.(ts|mts|js|mjs)$/.test(name)) out.push(path);
  }
  return out;
}

function stripComments(src) {
  return src.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
}

for (const [i, pkg] of ORDER.entries()) {
  const dir = join(root, 'packages', pkg, 'src');
  const allowed = new Set(ORDER.slice(0, i).filter((p) => !(PEERS[pkg] ?? []).includes(p)));
  for (const file of walk(dir)) {
    const rel = relative(root, file);
    const src = stripComments(readFileSync(file, 'utf8'));
    const specifiers = [
      ...src.matchAll(/\b(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]/g),
      ...src.matchAll(/\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g),
      ...src.matchAll(/\bimport\s+['"]([^'"]+)['"]/g),
    ].map((m) => m[1]);
    for (const spec of specifiers) {
      const scoped = /^@wai-steering\/([^/]+)/.exec(spec);
      if (scoped) {
        const dep = scoped[1];
        if (dep === pkg) problems.push(`${rel}: imports its own package by name (${spec})`);
        else if (!allowed.has(dep)) problems.push(`${rel}: ${pkg} may not import ${spec}`);
      }
      if (PORTABLE.has(pkg) && !NODE_ENTRIES.has(rel)) {
        if (spec.startsWith('node:'))
          problems.push(`${rel}: imports ${spec} in a portable package`);
        if (['fs', 'path', 'crypto', 'os', 'http', 'url', 'buffer', 'process'].includes(spec)) {
          problems.push(`${rel}: imports Node's ${spec} in a portable package`);
        }
      }
    }
    if (PORTABLE.has(pkg) && !NODE_ENTRIES.has(rel)) {
      for (const global of ['Buffer', 'process', '__dirname', '__filename', 'require']) {
        const re = new RegExp(`(^|[^.\\w$'"])${global}\\b(?!['"])`, 'm');
        if (re.test(src)) problems.push(`${rel}: uses the Node global ${global}`);
      }
    }
  }
  // The manifest's dependencies must agree with the order too.
  try {
    const manifest = JSON.parse(readFileSync(join(root, 'packages', pkg, 'package.json'), 'utf8'));
    for (const dep of Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies })) {
      const scoped = /^@wai-steering\/(.+)$/.exec(dep);
      if (scoped && !allowed.has(scoped[1])) {
        problems.push(`packages/${pkg}/package.json: ${pkg} may not depend on ${dep}`);
      }
    }
  } catch {
    // a package that does not exist yet
  }
}

if (problems.length > 0) {
  console.error(`layer check: ${problems.length} problem(s)`);
  for (const p of problems) console.error(`  ${p}`);
  process.exit(1);
}
console.log('layer check: the layer order holds and the portable packages are free of Node');
