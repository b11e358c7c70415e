#!/usr/bin/env node
// Checks the layer order of the packages: a package imports only the packages before it, and
// the portable packages import no `node:` module and use no Node global.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const ORDER = [
  'wire',
  'tlog',
  'evidence',
  'rule',
  'manifest',
  'config-text',
  'verifier',
  'energy',
  'auditor',
  'console',
  'agent',
  'server',
  'cli',
];
// The cli may start the server; the server never imports the cli.
const PEERS = {};
const PORTABLE = new Set([
  'wire',
  'tlog',
  'evidence',
  'rule',
  'manifest',
  'verifier',
  'energy',
  'config-text',
  'auditor',
  'console',
]);
// Files of a portable package that are Node-only entries by design.
const NODE_ENTRIES = new Set([
  'packages/wire/src/node.ts',
  'packages/auditor/src/node.ts',
  'packages/auditor/src/worker.ts',
]);
// Folders of a portable package that hold the modules of its Node-only entry.
const NODE_DIRS = ['packages/auditor/src/node/'];
/** Whether a file of a portable package is Node-only by design. */
function nodeOnly(rel) {
  return NODE_ENTRIES.has(rel) || NODE_DIRS.some((d) => rel.startsWith(d));
}

const problems = [];

// The private packages of the layers: never a dependency of a published one.
const PRIVATE = new Set(
  ORDER.filter((p) => {
    try {
      return JSON.parse(readFileSync(join(root, 'packages', p, 'package.json'), 'utf8')).private;
    } catch {
      return false;
    }
  }),
);

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
      if (PORTABLE.has(pkg) && !nodeOnly(rel)) {
        if (spec.startsWith('node:'))
          problems.push(`${rel}: imports ${spec} in a portable package`);
        if (['fs', 'path', 'crypto', 'os', 'http', 'url', 'buffer', 'process'].includes(spec)) {
          problems.push(`${rel}: imports Node's ${spec} in a portable package`);
        }
      }
    }
    if (PORTABLE.has(pkg) && !nodeOnly(rel)) {
      for (const global of ['Buffer', 'process', '__dirname', '__filename', 'require']) {
        const re = new RegExp(`(^|[^.\\w$'"])${global}\\b(?!['"])`, 'm');
        if (re.test(src)) problems.push(`${rel}: uses the Node global ${global}`);
      }
    }
  }
  // The manifest's dependencies must agree with the order too; a private package (config-text)
  // is bundled by a public one that uses it, and listed under devDependencies only.
  try {
    const manifest = JSON.parse(readFileSync(join(root, 'packages', pkg, 'package.json'), 'utf8'));
    for (const dep of Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies })) {
      const scoped = /^@wai-steering\/(.+)$/.exec(dep);
      if (scoped && !allowed.has(scoped[1])) {
        problems.push(`packages/${pkg}/package.json: ${pkg} may not depend on ${dep}`);
      }
      if (scoped && !manifest.private && PRIVATE.has(scoped[1])) {
        problems.push(
          `packages/${pkg}/package.json: ${dep} is private: bundle it, and list it under devDependencies`,
        );
      }
    }
  } catch {
    // a package that does not exist yet
  }
}

// The benchmarks (`packages/*/bench/`) and the conformance corpus (`conformance/`): each file
// imports only its own package (relatively, inside it), the packages its `package.json` declares
// (a bench: its package's dependencies, and the shared bench harness), and Node's modules.
function importsOf(file) {
  const src = stripComments(readFileSync(file, 'utf8'));
  return [
    ...src.matchAll(/\b(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]/g),
    ...src.matchAll(/\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g),
    ...src.matchAll(/\bimport\s+['"]([^'"]+)['"]/g),
  ].map((m) => m[1]);
}

function checkDeclared({ dir, packageDir, allowedScoped, allowedOther, what }) {
  for (const file of walk(dir)) {
    const rel = relative(root, file);
    for (const spec of importsOf(file)) {
      if (spec.startsWith('node:')) continue;
      if (spec.startsWith('.')) {
        const target = relative(packageDir, join(dirname(file), spec));
        if (target.startsWith('..')) problems.push(`${rel}: reaches outside its package (${spec})`);
        continue;
      }
      const name = spec.startsWith('@')
        ? spec.split('/').slice(0, 2).join('/')
        : spec.split('/')[0];
      const scoped = /^@wai-steering\//.test(name);
      if (scoped ? !allowedScoped.has(name) : !allowedOther.has(name)) {
        problems.push(`${rel}: ${what} may not import ${spec}`);
      }
    }
  }
}

for (const pkg of ORDER) {
  const packageDir = join(root, 'packages', pkg);
  let manifest;
  try {
    manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'));
  } catch {
    continue;
  }
  const deps = Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies });
  const dev = Object.keys({ ...manifest.devDependencies });
  checkDeclared({
    dir: join(packageDir, 'bench'),
    packageDir,
    // Its own package by name (a subpath export), its dependencies, and the harness.
    allowedScoped: new Set([
      manifest.name,
      ...deps.filter((d) => d.startsWith('@wai-steering/')),
      '@wai-steering/bench',
    ]),
    allowedOther: new Set([...deps, ...dev].filter((d) => !d.startsWith('@wai-steering/'))),
    what: `a bench of ${pkg}`,
  });
}

{
  const packageDir = join(root, 'conformance');
  const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'));
  const declared = Object.keys({ ...manifest.dependencies, ...manifest.devDependencies });
  const rootManifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const tools = Object.keys(rootManifest.devDependencies ?? {});
  // The corpus is the verifier's: it sits after it, and never imports the server or the cli.
  const after = new Set(ORDER.slice(0, ORDER.indexOf('verifier') + 1));
  for (const d of declared) {
    const scoped = /^@wai-steering\/(.+)$/.exec(d);
    if (scoped && !after.has(scoped[1])) {
      problems.push(`conformance/package.json: the corpus may not depend on ${d}`);
    }
  }
  for (const sub of ['src', 'test']) {
    checkDeclared({
      dir: join(packageDir, sub),
      packageDir,
      allowedScoped: new Set(declared.filter((d) => d.startsWith('@wai-steering/'))),
      allowedOther: new Set([...declared, ...tools].filter((d) => !d.startsWith('@wai-steering/'))),
      what: 'the conformance corpus',
    });
  }
}

if (problems.length > 0) {
  console.error(`layer check: ${problems.length} problem(s)`);
  for (const p of problems) console.error(`  ${p}`);
  process.exit(1);
}
console.log(
  'layer check: the layer order holds, the portable packages are free of Node, and the benches and the corpus import only what they declare',
);
