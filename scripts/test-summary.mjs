#!/usr/bin/env node
// Adds up the `test-results.json` each package's test run writes (vitest's JSON report), and
// prints one closing line: "Tests: N passed, M failed, K skipped". Each failed test is named under
// its package, with the first lines of its failure, so that the end of a long log says what
// failed.
//
// A suite (a test file) that failed outside its tests — its setup threw (`beforeAll`), it did not
// load (an import that throws), its teardown threw — failed: vitest marks the tests it did not
// run as skipped, and they count here as failed, never as skipped (one, for a file that did not
// load and so has none). A package with a test command that wrote no results (its run did not
// start, or crashed before writing) failed too. The exit status is non-zero when anything failed
// or no test passed.
//
//   node scripts/test-summary.mjs [root]   (the repository's root by default)
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(process.argv[2] ?? fileURLToPath(new URL('..', import.meta.url)));

/** The workspace's packages: `pnpm-workspace.yaml`'s `packages:` entries (`dir` or `dir/*`). */
function workspaceDirs() {
  const yaml = readFileSync(join(root, 'pnpm-workspace.yaml'), 'utf8');
  const entries = [];
  let inPackages = false;
  for (const line of yaml.split('\n')) {
    if (/^\S/.test(line)) inPackages = /^packages:\s*$/.test(line);
    const m = inPackages ? /^\s+-\s+['"]?([^'"#\s]+)['"]?/.exec(line) : null;
    if (m !== null) entries.push(m[1]);
  }
  const dirs = [];
  for (const e of entries) {
    if (e.endsWith('/*')) {
      const parent = join(root, e.slice(0, -2));
      if (!existsSync(parent)) continue;
      for (const d of readdirSync(parent, { withFileTypes: true }).sort((a, b) =>
        a.name.localeCompare(b.name),
      )) {
        if (d.isDirectory()) dirs.push(join(parent, d.name));
      }
    } else {
      dirs.push(join(root, e));
    }
  }
  return dirs.filter((d) => existsSync(join(d, 'package.json')));
}

/** Whether the test command runs the package's tests (`test`; `test:players` for the players). */
function hasTests(dir) {
  const scripts = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).scripts ?? {};
  return typeof scripts.test === 'string' || typeof scripts['test:players'] === 'string';
}

/** The first lines of a failure message, its colours removed, at most 600 characters. */
function excerpt(message) {
  const text = String(message).replace(/\u001b\[[0-9;]*m/g, '');
  const lines = text.split('\n').slice(0, 6).join('\n      ');
  return lines.length > 600 ? `${lines.slice(0, 600)}…` : lines;
}

let passed = 0;
let failed = 0;
let skipped = 0;
/** What failed outside a test: `<package>: <file>` or `<package>: no results`. */
const outside = [];
for (const dir of workspaceDirs()) {
  if (!hasTests(dir)) continue;
  const name = dir.slice(root.length + 1);
  const file = join(dir, 'test-results.json');
  if (!existsSync(file)) {
    failed += 1;
    outside.push(`${name}: no results`);
    console.log(`  ${name}: no test-results.json: its tests did not run, or their run crashed`);
    continue;
  }
  let r;
  try {
    r = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    failed += 1;
    outside.push(`${name}: results unreadable`);
    console.log(`  ${name}: test-results.json does not read: ${error.message}`);
    continue;
  }
  let p = 0;
  let f = 0;
  let s = 0;
  const lines = [];
  for (const suite of r.testResults ?? []) {
    const path = String(suite.name ?? '').slice(dir.length + 1);
    const tests = suite.assertionResults ?? [];
    const count = (status) => tests.filter((a) => a.status === status).length;
    const failures = tests.filter((a) => a.status === 'failed');
    p += count('passed');
    f += failures.length;
    for (const a of failures) {
      lines.push(`    failed: ${path} > ${a.fullName}`);
      for (const m of a.failureMessages ?? []) lines.push(`      ${excerpt(m)}`);
    }
    const notRun = tests.length - count('passed') - failures.length;
    if (suite.status === 'failed' && failures.length === 0) {
      // Failed outside its tests: the ones it did not run failed with it (one at least).
      f += Math.max(1, notRun);
      outside.push(`${name}: ${path}`);
      lines.push(
        `    failed outside its tests: ${path} (${tests.length === 0 ? 'it did not load' : `${notRun} of its ${tests.length} tests not run`}): ${excerpt(suite.message ?? 'no message')}`,
      );
    } else {
      s += notRun;
    }
  }
  // A run that failed with no suite to blame (vitest's own error, an unhandled rejection).
  if (r.success === false && f === 0) {
    f += 1;
    outside.push(`${name}: the run`);
    lines.push('    failed: the run failed outside any test file (see its log)');
  }
  passed += p;
  failed += f;
  skipped += s;
  console.log(`  ${name}: ${p} passed, ${f} failed${s > 0 ? `, ${s} skipped` : ''}`);
  for (const l of lines) console.log(l);
}

console.log(
  `Tests: ${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}${outside.length > 0 ? `; failed outside a test: ${outside.join(', ')}` : ''}`,
);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
