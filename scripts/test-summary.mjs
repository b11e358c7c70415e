#!/usr/bin/env node
// Adds up the `test-results.json` each package's test run writes, and prints one closing line:
// "Tests: N passed, M failed". Exits non-zero when a test failed or no test ran, or a run failed
// outside its tests (a hook such as `beforeAll` that threw: its tests count as skipped). Each
// failed test is named under its package, with the first lines of its failure, so that the end
// of a long log says what failed.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const dirs = [
  ...readdirSync(join(root, 'packages')).map((p) => join(root, 'packages', p)),
  join(root, 'conformance'),
  join(root, 'players'),
  join(root, 'deploy'),
  ...readdirSync(join(root, 'tools')).map((p) => join(root, 'tools', p)),
];
let passed = 0;
let failed = 0;
let skipped = 0;
const failedRuns = [];
for (const dir of dirs) {
  const file = join(dir, 'test-results.json');
  if (!existsSync(file)) continue;
  const r = JSON.parse(readFileSync(file, 'utf8'));
  passed += r.numPassedTests ?? 0;
  failed += r.numFailedTests ?? 0;
  skipped += (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
  const outside = r.success === false && (r.numFailedTests ?? 0) === 0;
  if (outside) failedRuns.push(dir.slice(root.length));
  console.log(
    `  ${dir.slice(root.length)}: ${r.numPassedTests} passed, ${r.numFailedTests} failed${outside ? `; the run failed outside its tests (${r.numFailedTestSuites} suite(s))` : ''}`,
  );
  for (const suite of r.testResults ?? []) {
    const file = String(suite.name ?? '').slice(dir.length + 1);
    const failures = (suite.assertionResults ?? []).filter((a) => a.status === 'failed');
    if (failures.length === 0 && suite.status === 'failed' && suite.message) {
      console.log(`    failed: ${file}: ${excerpt(suite.message)}`);
    }
    for (const a of failures) {
      console.log(`    failed: ${file} > ${a.fullName}`);
      for (const m of a.failureMessages ?? []) console.log(`      ${excerpt(m)}`);
    }
  }
}
/** The first lines of a failure message, its colours removed, at most 600 characters. */
function excerpt(message) {
  const text = String(message).replace(/\u001b\[[0-9;]*m/g, '');
  const lines = text.split('\n').slice(0, 6).join('\n      ');
  return lines.length > 600 ? `${lines.slice(0, 600)}…` : lines;
}

console.log(
  `Tests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}${failedRuns.length > 0 ? `; failed outside a test: ${failedRuns.join(', ')}` : ''}`,
);
process.exit(failed > 0 || passed === 0 || failedRuns.length > 0 ? 1 : 0);
