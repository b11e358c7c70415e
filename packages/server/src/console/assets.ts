/**
 * The console's static pages and assets (`@wai-steering/console`'s `dist/`), read into memory
 * once: a few files, a few hundred kilobytes. Names under `assets/` carry a content hash (the
 * build's), so they are served as immutable; the HTML pages are `no-cache`.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, extname, join, relative, sep } from 'node:path';

/** One file of the console. */
export interface ConsoleFile {
  readonly bytes: Uint8Array;
  readonly type: string;
}

/** The console's files by their path relative to `dist/` (`index.html`, `assets/…`). */
export type ConsoleAssets = ReadonlyMap<string, ConsoleFile>;

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

function walk(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...walk(path));
    else out.push(path);
  }
  return out;
}

/** Reads the files of a built console directory; an empty map when it has none. */
export function readConsoleAssets(dir: string): ConsoleAssets {
  const files = new Map<string, ConsoleFile>();
  let paths: string[];
  try {
    paths = walk(dir);
  } catch {
    return files;
  }
  for (const path of paths) {
    const name = relative(dir, path).split(sep).join('/');
    files.set(name, {
      bytes: new Uint8Array(readFileSync(path)),
      type: TYPES[extname(path)] ?? 'application/octet-stream',
    });
  }
  return files;
}

/** The directory of the built console of `@wai-steering/console`, or `undefined` without one. */
export function consoleDistDir(): string | undefined {
  try {
    const require = createRequire(import.meta.url);
    return join(dirname(require.resolve('@wai-steering/console/package.json')), 'dist');
  } catch {
    return undefined;
  }
}
