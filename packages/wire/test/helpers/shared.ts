import { existsSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The absolute path of the `shared` directory (specs and public vectors): beside the repository
 * root, which is the directory holding `pnpm-workspace.yaml` (in CI the clone has `../shared/`
 * beside it). When that is not found, the environment variable `WAI_SHARED_DIR`.
 */
export function sharedDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'pnpm-workspace.yaml'))) {
      const shared = resolve(dir, '..', 'shared');
      if (existsSync(shared) && statSync(shared).isDirectory()) return shared;
      break;
    }
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  const env = process.env.WAI_SHARED_DIR;
  if (env !== undefined && env !== '') return resolve(env);
  throw new Error(
    'sharedDir: no `shared` directory beside the repository root; set WAI_SHARED_DIR',
  );
}

/** The absolute path of a file under `shared/vectors/`. */
export function vectorPath(...parts: string[]): string {
  return join(sharedDir(), 'vectors', ...parts);
}
