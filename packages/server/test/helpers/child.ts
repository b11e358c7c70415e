import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
// Under node_modules: ignored by git and biome, and `better-sqlite3` resolves from there.
const outDir = join(root, 'node_modules', '.cache', 'server-test');

let built: Promise<string> | undefined;

/** The child processes' scripts (`test/fixtures/`). */
const FIXTURES = ['child-server', 'child-integrator'] as const;

/**
 * Bundles `test/fixtures/child-server.ts` (the server from its sources, the workspace packages
 * from their builds) into `node_modules/.cache/server-test/child-server.js`, once per test process,
 * with the other fixtures beside it (`child-integrator.js`).
 * Test files run in several processes at once, each building it: each builds in a folder of its
 * own and renames the bundle into place, so that a child never starts from a file half written.
 */
export function buildChild(): Promise<string> {
  built ??= (async () => {
    const own = join(outDir, `.build-${process.pid}`);
    mkdirSync(own, { recursive: true });
    const { build } = await import('tsup');
    await build({
      entry: Object.fromEntries(
        FIXTURES.map((f) => [f, join(root, 'test', 'fixtures', `${f}.ts`)]),
      ),
      outDir: own,
      format: ['esm'],
      // Each script whole: no chunk shared between them (they are renamed into place alone).
      splitting: false,
      platform: 'node',
      target: 'node20',
      dts: false,
      config: false,
      silent: true,
      sourcemap: false,
      clean: false,
      external: ['better-sqlite3', 'pg'],
      noExternal: [/^@wai-steering\//],
    });
    for (const f of FIXTURES) renameSync(join(own, `${f}.js`), join(outDir, `${f}.js`));
    rmSync(own, { recursive: true, force: true });
    return join(outDir, 'child-server.js');
  })();
  return built;
}

/** A running child server. */
export interface Child {
  readonly proc: ChildProcess;
  readonly url: string;
  readonly stderr: () => string;
  readonly stdout: () => string;
}

/** Spawns the child server on `config` (with `workers` processes); resolves once it listens. */
export async function spawnChild(config: string, workers = 1): Promise<Child> {
  const script = await buildChild();
  const proc = spawn(process.execPath, [script, config, String(workers)], {
    cwd: root,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let err = '';
  proc.stderr!.on('data', (c) => {
    err += c;
  });
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    // A generous ceiling: a start on a machine whose cores are busy takes seconds.
    const timer = setTimeout(() => reject(new Error(`the child did not start: ${err}`)), 120_000);
    proc.stdout!.on('data', (c) => {
      out += c;
      const m = /READY (\S+)/.exec(out);
      if (m !== null) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the child exited (${code}): ${err}`));
    });
  });
  return { proc, url, stderr: () => err, stdout: () => out };
}

/** Waits for a child to exit. */
export function exited(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => proc.once('exit', () => resolve()));
}
