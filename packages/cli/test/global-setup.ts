// Builds the bin once, apart from `dist/` (which a concurrent `build` may be rewriting), so that
// the child-process tests run the same bundle `wai-steer` is: `src/main.ts` with its shebang.
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { BIN_DIR, PACKAGE_DIR } from './paths.js';

export default function setup(): void {
  const tsup = join(dirname(createRequire(import.meta.url).resolve('tsup')), 'cli-default.js');
  execFileSync(process.execPath, [tsup, '--no-dts', '--out-dir', BIN_DIR], {
    cwd: PACKAGE_DIR,
    stdio: 'pipe',
  });
}
