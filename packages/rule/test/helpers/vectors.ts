import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * A folder of the vendored public vectors (`test/vectors/`, see its README), which must exist:
 * a missing suite is a failure, not a skip.
 */
export function vectorsDir(name: string): string {
  const dir = fileURLToPath(new URL(`../vectors/${name}`, import.meta.url));
  if (!existsSync(dir)) throw new Error(`public vectors not found at ${dir}`);
  return dir;
}
