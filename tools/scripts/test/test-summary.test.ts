// scripts/test-summary.mjs, the test command's closing line, on the results of real vitest runs:
// a throwaway workspace whose packages run fixture suites (test/fixtures/) with vitest's JSON
// reporter, as every package of this repository does. A suite whose setup failed, or which did
// not load, fails the run and counts as failed, never as skipped; so does a package whose tests
// wrote no results.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const here = dirname(fileURLToPath(import.meta.url));
const SUMMARY = join(here, '..', '..', '..', 'scripts', 'test-summary.mjs');
const VITEST = join(
  dirname(createRequire(import.meta.url).resolve('vitest/package.json')),
  'vitest.mjs',
);

/** The environment of a child run: none of this run's own vitest variables. */
function childEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (!/^(VITEST|VITE_|TEST$|NODE_OPTIONS$)/.test(k)) env[k] = v;
  }
  return env;
}

let root: string;

/** A package of the throwaway workspace running `fixtures` with vitest, or not run at all. */
function pkg(name: string, fixtures: readonly string[] | null): void {
  const dir = join(root, 'packages', name);
  mkdirSync(join(dir, 'test'), { recursive: true });
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name, private: true, type: 'module', scripts: { test: 'vitest run' } }),
  );
  writeFileSync(
    join(dir, 'vitest.config.mjs'),
    "export default { test: { include: ['test/**/*.test.mjs'], reporters: [['json', { outputFile: 'test-results.json' }]] } };\n",
  );
  if (fixtures === null) return;
  for (const f of fixtures) {
    copyFileSync(join(here, 'fixtures', `${f}.mjs`), join(dir, 'test', `${f}.test.mjs`));
  }
  // The real reporter's output, as the test command's runs write it.
  const run = spawnSync(process.execPath, [VITEST, 'run'], {
    cwd: dir,
    env: childEnv(),
    encoding: 'utf8',
  });
  if (run.error !== undefined) throw run.error;
}

/** Runs the summary on a workspace of only `packages`. */
function summary(...packages: string[]): { code: number | null; stdout: string; line: string } {
  writeFileSync(
    join(root, 'pnpm-workspace.yaml'),
    `packages:\n${packages.map((p) => `  - packages/${p}\n`).join('')}\nallowBuilds:\n  esbuild: true\n`,
  );
  const r = spawnSync(process.execPath, [SUMMARY, root], { encoding: 'utf8' });
  const line = r.stdout.split('\n').find((l) => l.startsWith('Tests: ')) ?? '';
  return { code: r.status, stdout: r.stdout, line };
}

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'wai-test-summary-'));
  pkg('passing', ['passes']);
  pkg('failing', ['passes', 'fails']);
  pkg('setup', ['passes', 'setup-fails']);
  pkg('load', ['passes', 'load-fails']);
  pkg('crashed', null);
  // Four runs of vitest, one after another: longer than a test's own time on a busy machine.
}, 600_000);

afterAll(() => {
  if (root !== undefined) rmSync(root, { recursive: true, force: true });
});

describe('the closing line', () => {
  it('passes a run whose tests passed, the skipped ones counted as skipped', () => {
    const r = summary('passing');
    expect(r.line, r.stdout).toBe('Tests: 1 passed, 0 failed, 1 skipped');
    expect(r.code).toBe(0);
  });

  it('fails a run with a failed test, naming it', () => {
    const r = summary('passing', 'failing');
    expect(r.line, r.stdout).toBe('Tests: 3 passed, 1 failed, 2 skipped');
    expect(r.stdout).toContain('failed: test/fails.test.mjs > fails');
    expect(r.code).toBe(1);
  });

  it('fails a run with a suite whose setup failed: its tests failed, not skipped', () => {
    const r = summary('passing', 'setup');
    // Vitest itself calls the two tests it did not run "skipped".
    expect(r.line, r.stdout).toBe(
      'Tests: 2 passed, 2 failed, 2 skipped; failed outside a test: packages/setup: test/setup-fails.test.mjs',
    );
    expect(r.stdout).toContain('2 of its 2 tests not run');
    expect(r.stdout).toContain('the setup failed: the server did not start');
    expect(r.code).toBe(1);
  });

  it('fails a run with a suite that did not load', () => {
    const r = summary('load');
    expect(r.line, r.stdout).toBe(
      'Tests: 1 passed, 1 failed, 1 skipped; failed outside a test: packages/load: test/load-fails.test.mjs',
    );
    expect(r.stdout).toContain('it did not load');
    expect(r.code).toBe(1);
  });

  it('fails a run in which a package with tests wrote no results', () => {
    const r = summary('passing', 'crashed');
    expect(r.line, r.stdout).toBe(
      'Tests: 1 passed, 1 failed, 1 skipped; failed outside a test: packages/crashed: no results',
    );
    expect(r.code).toBe(1);
  });

  it('fails a run in which no test passed', () => {
    const r = summary();
    expect(r.line).toBe('Tests: 0 passed, 0 failed');
    expect(r.code).toBe(1);
  });
});
