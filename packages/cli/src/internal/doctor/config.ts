/**
 * The server's config, read as `serve` reads it (`readConfigFile` of the server): every problem
 * of the file, each a finding with its fix; the old spellings it still reads, each a warning.
 */
import { ConfigError, readConfigFile, type ServerConfig } from '@wai-steering/server';
import type { Report } from './report.js';

/** The config of `path`, or `undefined` when it does not read (its problems reported). */
export function checkConfig(path: string, report: Report): ServerConfig | undefined {
  let read: ReturnType<typeof readConfigFile>;
  try {
    read = readConfigFile(path);
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    for (const issue of e.issues) {
      report.problem(
        'config',
        `${path}: ${issue}`,
        `edit ${path} (its fields: docs/server.md, "Configuration"); nothing else is checked until it reads`,
      );
    }
    return undefined;
  }
  for (const warning of read.warnings) {
    report.warning('config', `${path}: ${warning}`, 'rename the field as the line says');
  }
  const c = read.config;
  const store = c.store.url !== undefined ? 'PostgreSQL' : `SQLite ${c.store.path}`;
  report.ok(
    'config',
    `${path} reads (listen ${c.listen.host}:${c.listen.port}${c.publicUrl ? `, public_url ${c.publicUrl}` : ''}; store on ${store})`,
  );
  return c;
}
