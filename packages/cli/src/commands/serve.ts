import type { RunningServer, ServerConfig } from '@wai-steering/server';
import { readPolicy } from '@wai-steering/wire';
import type { Command } from '../internal/command.js';
import { UserError } from '../internal/errors.js';
import { readBytes } from '../internal/files.js';
import { uriMismatches } from '../internal/uris.js';

function issuesOf(e: unknown): readonly string[] | undefined {
  if (!(e instanceof Error) || e.name !== 'ConfigError') return undefined;
  const issues = (e as { issues?: unknown }).issues;
  return Array.isArray(issues) ? (issues as string[]) : [e.message];
}

/** Every problem of the config, on one line (`; ` between them). */
function configProblem(path: string, issues: readonly string[]): UserError {
  const all = issues.length === 0 ? 'does not read' : issues.join('; ');
  return new UserError(`server config ${path}: ${all}`);
}

/** Refuses a policy whose URIs do not reach the server (`uriMismatches`). */
function checkUris(path: string, config: ServerConfig): void {
  const read = readPolicy(readBytes(config.policy, 'policy'));
  if (!read.ok) return; // the server's own check names what is wrong with the file
  const mismatches = uriMismatches(read.value, config.listen, config.publicUrl);
  if (mismatches.length > 0) {
    throw new UserError(
      `server config ${path}: ${mismatches.join('; ')}: players and verifiers would ask elsewhere (compile the policy again with the URIs of this server, or set public_url to the URL a proxy serves it at)`,
    );
  }
}

export const serve: Command = {
  name: ['serve'],
  summary: 'Start the steering server (@wai-steering/server) from its config.',
  options: {
    config: {
      type: 'string',
      arg: 'FILE',
      description: "the server's config (YAML or JSON)",
      required: true,
    },
  },
  description: `
Loads the server's config and starts the steering server: it answers steering requests with
signed decisions and their manifests, serves each decision at its URI, and ingests per-hop
records. It prints where it listens on stderr and runs until SIGINT or SIGTERM, then closes
cleanly (answers what is queued, writes the store). SIGHUP reads the key log file again (after
the origin published a new head); a head that does not verify is refused with a warning and the
one in use stays.

The config's fields are in the repository's docs/server.md ("Configuration"), the commands
of an operator in its docs/cli.md; a config that does not read is one line on stderr naming every problem.
Before it listens it checks that the policy's server_uri, reload_uri and decision_uri are this
server's (its listen address, or public_url when a proxy serves it elsewhere), and refuses to
start when they are not, naming each.`,
  async run(ctx) {
    const path = ctx.path(ctx.string('config'));
    // Loaded only here: the server brings its native store, which no other command needs.
    const { readConfigFile, startServer } = await import('@wai-steering/server');
    let running: RunningServer;
    try {
      const read = readConfigFile(path);
      for (const warning of read.warnings) ctx.warn(`server config ${path}: ${warning}`);
      checkUris(path, read.config);
      running = await startServer(read.config);
    } catch (e) {
      const issues = issuesOf(e);
      if (issues !== undefined) throw configProblem(path, issues);
      throw e;
    }
    for (const warning of running.warnings) ctx.warn(warning);
    ctx.io.stderr.write(
      `wai-steer: serving at ${running.url} (SIGHUP reads the key log again; SIGINT or SIGTERM stops)\n`,
    );
    // SIGHUP: the origin published a new key log head (a key added or revoked). A head that does
    // not verify is refused with a warning, and the one in use stays.
    const reload = (): void => {
      running.reloadKeyLog().then(
        () => {
          ctx.io.stderr.write('wai-steer: key log read again\n');
        },
        (e: unknown) => {
          const issues = issuesOf(e);
          ctx.warn(`the key log was not reloaded: ${issues?.[0] ?? (e as Error).message}`);
        },
      );
    };
    if (ctx.io.onStop !== undefined) process.on('SIGHUP', reload);
    await new Promise<void>((resolve) => {
      const stop = async (): Promise<void> => {
        process.off('SIGHUP', reload);
        await running.close();
        resolve();
      };
      if (ctx.io.onStop === undefined) running.http.once('close', () => resolve());
      else ctx.io.onStop(stop);
    });
    return 0;
  },
};
