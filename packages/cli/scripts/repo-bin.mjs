#!/usr/bin/env node
// `pnpm wai-steer …` (and `pnpm demo`) in this repository: builds the CLI and the packages it imports when a source
// changed (turbo's cache makes an up-to-date build take about half a second), then runs it in the
// directory pnpm was invoked from (pnpm runs a root script in the root; INIT_CWD is where the user
// was). Turbo's output is shown only when the build fails, so stdout and stderr are the command's;
// a build that takes longer than a moment (the first one: a minute or two) says so on stderr, so
// that a first `pnpm demo` is not silent while it builds.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const turbo = createRequire(`${root}package.json`).resolve('turbo/bin/turbo');
// How long a build runs before the notice: an up-to-date build (turbo's cache) is done before it.
const NOTICE_MS = Number(process.env.WAI_STEER_BUILD_NOTICE_MS ?? 1500);

/** Runs turbo's build of the CLI and what it imports; its output is kept for a failure. */
function build() {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(
      process.execPath,
      [turbo, 'run', 'build', '--filter=@wai-steering/cli...', '--output-logs=errors-only'],
      {
        cwd: root,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1' },
      },
    );
    const out = [];
    child.stdout.on('data', (b) => out.push(b));
    child.stderr.on('data', (b) => out.push(b));
    let told = false;
    const notice = setTimeout(() => {
      told = true;
      process.stderr.write(
        'wai-steer: building the command line and the packages it uses (the first build of a checkout takes a minute or two; later ones, only what changed)…\n',
      );
    }, NOTICE_MS);
    child.on('close', (status) => {
      clearTimeout(notice);
      if (told && status === 0) {
        const s = Math.round((Date.now() - started) / 1000);
        process.stderr.write(`wai-steer: built in ${s} s\n`);
      }
      resolve({ status, output: Buffer.concat(out) });
    });
    child.on('error', (e) => {
      clearTimeout(notice);
      resolve({ status: 1, output: Buffer.from(`${e.message}\n`) });
    });
  });
}

// A worker process of `serve --workers N` (node:cluster sets NODE_UNIQUE_ID) runs what its
// primary built.
const worker = process.env.NODE_UNIQUE_ID !== undefined;
const built = worker ? { status: 0 } : await build();
if (built.status !== 0) {
  process.stderr.write(built.output);
  process.stderr.write('wai-steer: building the CLI failed (see above); run `pnpm build`\n');
  process.exit(2);
}
if (process.env.INIT_CWD !== undefined) process.chdir(process.env.INIT_CWD);
// pnpm passes a `--` typed before a script's arguments (`pnpm demo -- --help`) through to it;
// here it only separates pnpm's arguments from the command's, so the first one goes.
const separator = process.argv.indexOf('--', 2);
if (separator !== -1) process.argv.splice(separator, 1);
// The commands the CLI prints for the user to run next (the demo's `verify --url` line) are
// written as this checkout runs them: no `wai-steer` is on the PATH here.
process.env.WAI_STEER_AS ??= 'pnpm wai-steer';
await import('../dist/main.js');
