#!/usr/bin/env node
// `pnpm wai-steer …` (and `pnpm demo`) in this repository: builds the CLI and the packages it imports when a source
// changed (turbo's cache makes an up-to-date build take about half a second), then runs it in the
// directory pnpm was invoked from (pnpm runs a root script in the root; INIT_CWD is where the user
// was). Turbo's output is shown only when the build fails, so stdout and stderr are the command's.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const turbo = createRequire(`${root}package.json`).resolve('turbo/bin/turbo');
const build = spawnSync(
  process.execPath,
  [turbo, 'run', 'build', '--filter=@wai-steering/cli...', '--output-logs=errors-only'],
  {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1' },
  },
);
if (build.status !== 0) {
  process.stderr.write(build.stdout ?? '');
  process.stderr.write(build.stderr ?? '');
  process.stderr.write('wai-steer: building the CLI failed (see above); run `pnpm build`\n');
  process.exit(2);
}
if (process.env.INIT_CWD !== undefined) process.chdir(process.env.INIT_CWD);
// pnpm passes a `--` typed before a script's arguments (`pnpm demo -- --help`) through to it;
// here it only separates pnpm's arguments from the command's, so the first one goes.
const separator = process.argv.indexOf('--', 2);
if (separator !== -1) process.argv.splice(separator, 1);
await import('../dist/main.js');
