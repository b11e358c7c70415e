import { fileURLToPath } from 'node:url';

/** The absolute path of a file of the vendored public vectors (`test/vectors/`, see its README). */
export function vectorPath(...parts: string[]): string {
  return fileURLToPath(new URL(['../vectors', ...parts].join('/'), import.meta.url));
}
