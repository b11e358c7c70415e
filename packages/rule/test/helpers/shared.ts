import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The shared folder of specs and public vectors: `WAI_SHARED_DIR` when set, else `../shared`
 * beside the repository root (the first folder above this file holding `pnpm-workspace.yaml`).
 */
export function sharedDir(): string {
  const fromEnv = process.env.WAI_SHARED_DIR;
  if (fromEnv !== undefined && fromEnv !== '') return resolve(fromEnv);
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'pnpm-workspace.yaml'))) return resolve(dir, '..', 'shared');
    const parent = dirname(dir);
    if (parent === dir) {
      throw new Error('no pnpm-workspace.yaml above the tests: set WAI_SHARED_DIR');
    }
    dir = parent;
  }
}

/** A folder of the shared vectors, which must exist (a missing suite is a failure, not a skip). */
export function vectorsDir(name: string): string {
  const dir = join(sharedDir(), 'vectors', name);
  if (!existsSync(dir)) {
    throw new Error(`public vectors not found at ${dir}: set WAI_SHARED_DIR to the shared folder`);
  }
  return dir;
}
