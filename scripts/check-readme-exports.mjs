#!/usr/bin/env node
// Checks that each public package's README names every export of its entry points (each name in
// backticks somewhere in the README), so that a reader of the README sees the whole surface. The
// entries are the package's `exports` (its `./internal` subpath, not public API, excepted).
//
// `node scripts/check-readme-exports.mjs [PACKAGE…]` checks the packages named (by name,
// `@wai-steering/wire`, or folder, `wire`), every public package without any; the packages of
// `PENDING` are passed over unless named.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;

/**
 * Public packages whose README is being rewritten, passed over by `pnpm lint` until it names its
 * exports; take a package out of the list once its README does.
 */
const PENDING = [];

const named = process.argv.slice(2);
/** Whether a package is checked in this run. */
function wanted(dir, name) {
  if (named.length > 0) return named.includes(name) || named.includes(dir);
  return !PENDING.includes(name);
}

/** The names an entry file exports: `export { a, type B } from …`, `export const|function|class …`. */
function exportsOf(file) {
  const src = readFileSync(file, 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/\/\/.*$/gm, '');
  const names = new Set();
  for (const m of src.matchAll(/export\s+(?:type\s+)?\{([^}]*)\}/g)) {
    for (const part of m[1].split(',')) {
      const name = part
        .trim()
        .replace(/^type\s+/, '')
        .split(/\s+as\s+/)
        .pop()
        ?.trim();
      if (name) names.add(name);
    }
  }
  for (const m of src.matchAll(
    /export\s+(?:declare\s+)?(?:async\s+)?(?:const|let|function\*?|class|interface|type|enum)\s+([A-Za-z_$][\w$]*)/g,
  )) {
    names.add(m[1]);
  }
  if (/export\s+\*/.test(src)) throw new Error(`${file}: \`export *\` hides what is exported`);
  return names;
}

const problems = [];
let checked = 0;
for (const dir of readdirSync(join(root, 'packages'))) {
  const pkgDir = join(root, 'packages', dir);
  const manifestPath = join(pkgDir, 'package.json');
  if (!existsSync(manifestPath)) continue;
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
  if (manifest.private === true || !wanted(dir, manifest.name)) continue;
  const readmePath = join(pkgDir, 'README.md');
  if (!existsSync(readmePath)) {
    problems.push(`packages/${dir}: no README.md`);
    continue;
  }
  const readme = readFileSync(readmePath, 'utf8');
  const inReadme = new Set(
    [...readme.matchAll(/`([^`\n]+)`/g)].flatMap((m) => m[1].match(/[A-Za-z_$][\w$]*/g) ?? []),
  );
  for (const [subpath, target] of Object.entries(manifest.exports ?? {})) {
    if (subpath === './package.json' || subpath === './internal') continue;
    const types = typeof target === 'string' ? target : target.types;
    if (typeof types !== 'string') continue;
    const source = join(pkgDir, types.replace(/^\.\/dist\//, 'src/').replace(/\.d\.ts$/, '.ts'));
    if (!existsSync(source)) continue;
    for (const name of exportsOf(source)) {
      checked++;
      if (!inReadme.has(name)) {
        problems.push(
          `packages/${dir}/README.md: does not name \`${name}\` (${manifest.name}${subpath === '.' ? '' : subpath.slice(1)})`,
        );
      }
    }
  }
}

if (problems.length > 0) {
  console.error(`README exports: ${problems.length} problem(s)`);
  for (const p of problems) console.error(`  ${p}`);
  process.exit(1);
}
const pending =
  named.length === 0 && PENDING.length > 0 ? ` (passed over: ${PENDING.join(', ')})` : '';
console.log(`README exports: every README checked names each of its ${checked} exports${pending}`);
