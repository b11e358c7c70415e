import { formatInstantExact } from '@wai-steering/config-text';
import type { RunningServer, ServerConfig } from '@wai-steering/server';
import type { Command, Context } from '../internal/command.js';
import { UserError } from '../internal/errors.js';

function issuesOf(e: unknown): readonly string[] | undefined {
  if (!(e instanceof Error) || e.name !== 'ConfigError') return undefined;
  const issues = (e as { issues?: unknown }).issues;
  return Array.isArray(issues) ? (issues as string[]) : [e.message];
}

/** `--workers`: a whole number from 1 to 256, or `auto`. */
function parseWorkers(value: string | undefined): number | 'auto' {
  if (value === undefined) return 1;
  if (value === 'auto') return 'auto';
  if (/^[0-9]+$/.test(value) && Number(value) >= 1 && Number(value) <= 256) return Number(value);
  throw new UserError(
    `--workers: expected a number of workers from 1 to 256, or "auto" (got "${value}")`,
  );
}

/** Every problem of the config, on one line (`; ` between them). */
function configProblem(path: string, issues: readonly string[]): UserError {
  const all = issues.length === 0 ? 'does not read' : issues.join('; ');
  return new UserError(`server config ${path}: ${all}`);
}

/**
 * The checks before the start (`doctor/preflight.ts`): every problem of the materials and the
 * policy's URIs refuses it, on one line; keys readable by others and hops the key log does not
 * list are warned of.
 */
async function checkBeforeStart(ctx: Context, path: string, config: ServerConfig): Promise<void> {
  const { preflight } = await import('../internal/doctor/preflight.js');
  const { problem, warnings } = preflight(path, config);
  if (problem !== undefined) throw new UserError(`server config ${path}: ${problem}`);
  for (const w of warnings) ctx.warn(w);
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
    init: {
      type: 'boolean',
      description: 'create the store when store.path does not exist (as store.create: true)',
    },
    'trust-clock': {
      type: 'boolean',
      description:
        'start even when the clock is before, or far after, the newest decision in the store',
    },
    workers: {
      type: 'string',
      arg: 'N|auto',
      description: 'worker processes sharing the socket, the store and the loads (default 1)',
    },
  },
  description: `
Loads the server's config and starts the steering server: it answers steering requests with
signed decisions and their manifests, serves each decision at its URI, and ingests per-hop
records. It prints where it listens, and its console's URL, on stderr and runs until SIGINT or
SIGTERM, then closes cleanly (answers what is queued, writes the store). SIGHUP reads the key log file and the policy
file again (after the origin published a new head, or the operator signed a new policy): a new
policy is put in force with the sessions and their loads kept; a head that does not verify, or
does not follow the head in use (its seq greater and its prev the digest of the head in use), or
a policy that does not verify, is refused with a warning and the one in use stays. A store that
does not exist is an error unless --init (or store.create) says to create it; a clock before, or
far after, the newest decision in the store refuses the start unless --trust-clock says it is
right.

The config's fields are in the repository's docs/server.md ("Configuration"), the commands
of an operator in its docs/cli.md; a config that does not read is one line on stderr naming every problem.
Before it listens it checks the room, the key log, the policy and the steering key, and that
the policy's server_uri, reload_uri and decision_uri are this server's (its listen address, or
public_url when a proxy serves it elsewhere), and refuses to start naming every problem at once.
It warns of a key file others can read and of a hop the key log does not list. wai-steer doctor
checks all this and more without starting anything.

--workers N runs N worker processes (auto: one per core) sharing the listening socket, the
store (SQLite in WAL mode, or PostgreSQL) and the loads; a worker that dies is started again.`,
  async run(ctx) {
    const path = ctx.path(ctx.string('config'));
    const workers = parseWorkers(ctx.optional('workers'));
    // Loaded only here: the server brings its native store, which no other command needs.
    const { openConfiguredStore, readConfigFile, startServer, runWorkers } = await import(
      '@wai-steering/server'
    );
    const cluster = (await import('node:cluster')).default;
    if (workers !== 1 && cluster.isPrimary) {
      let config: ReturnType<typeof readConfigFile>['config'];
      try {
        const read = readConfigFile(path);
        for (const warning of read.warnings) ctx.warn(`server config ${path}: ${warning}`);
        config = read.config;
        if (config.store.path === ':memory:') {
          throw new UserError(
            `server config ${path}: store.path: ":memory:" cannot be shared by --workers; name a file or a PostgreSQL store.url`,
          );
        }
        await checkBeforeStart(ctx, path, config);
        // The store is created (when asked) and checked once, before the workers open it.
        await (await openConfiguredStore(config, { init: ctx.flag('init') })).close();
      } catch (e) {
        const issues = issuesOf(e);
        if (issues !== undefined) throw configProblem(path, issues);
        throw e;
      }
      const pool = await runWorkers({
        workers,
        heartbeatMs: config.instances?.heartbeat ?? 250,
        dropAfterMs: config.instances?.dropAfter ?? 1000,
        log: (line) => ctx.io.stderr.write(`${line}\n`),
      });
      const consoleAt = config.console.enabled ? `, the console at ${pool.url}/console/` : '';
      ctx.io.stderr.write(
        `wai-steer: serving at ${pool.url} with ${pool.pids().length} workers${consoleAt} (SIGHUP reads the key log and the policy again; SIGINT or SIGTERM stops)\n`,
      );
      // SIGHUP: each worker reads the key log file and the policy file again.
      const forward = (): void => {
        for (const pid of pool.pids()) process.kill(pid, 'SIGHUP');
      };
      if (ctx.io.onStop !== undefined) process.on('SIGHUP', forward);
      await new Promise<void>((resolve) => {
        const stop = async (): Promise<void> => {
          process.off('SIGHUP', forward);
          await pool.close();
          resolve();
        };
        if (ctx.io.onStop === undefined) resolve();
        else ctx.io.onStop(stop);
      });
      return 0;
    }
    let running: RunningServer;
    try {
      const read = readConfigFile(path);
      // The primary of --workers told the config's warnings and checked its URIs already.
      if (!cluster.isWorker) {
        for (const warning of read.warnings) ctx.warn(`server config ${path}: ${warning}`);
        await checkBeforeStart(ctx, path, read.config);
      }
      running = await startServer(read.config, {
        init: ctx.flag('init'),
        trustClock: ctx.flag('trust-clock'),
        ...(cluster.isWorker ? { worker: process } : {}),
      });
    } catch (e) {
      const issues = issuesOf(e);
      if (issues !== undefined) throw configProblem(path, issues);
      throw e;
    }
    // Of the workers of `--workers N`, the first tells the warnings; the primary where it serves.
    if (!cluster.isWorker || cluster.worker?.id === 1) {
      for (const warning of running.warnings) ctx.warn(warning);
    }
    if (!cluster.isWorker) {
      const consoleAt = running.consoleUrl === null ? '' : `, the console at ${running.consoleUrl}`;
      ctx.io.stderr.write(
        `wai-steer: serving at ${running.url}${consoleAt} (SIGHUP reads the key log and the policy again; SIGINT or SIGTERM stops)\n`,
      );
    }
    // SIGHUP: the origin published a new key log head (a key added or revoked), or the operator
    // signed a new policy. One that does not verify is refused with a warning, and the one in
    // use stays.
    const reload = (): void => {
      running.reload().then(
        (r) => {
          // On a shared store the operator's rotation is in force a lead ahead, for every instance.
          const from =
            r.from !== null && BigInt(r.from) > running.engine.now()
              ? `${r.policy} from ${formatInstantExact(BigInt(r.from))}`
              : undefined;
          const policy = from ?? `${r.changed ? 'now' : 'still'} ${r.policy}`;
          ctx.io.stderr.write(
            `wai-steer: key log read again: ${r.keyLog ? 'a new head is in use' : 'the head in use is unchanged'}; policy ${policy}\n`,
          );
        },
        (e: unknown) => {
          const issues = issuesOf(e);
          ctx.warn(
            `the key log or the policy was not reloaded: ${issues?.[0] ?? (e as Error).message}`,
          );
        },
      );
    };
    if (ctx.io.onStop !== undefined) process.on('SIGHUP', reload);
    await new Promise<void>((resolve) => {
      const stop = async (): Promise<void> => {
        process.off('SIGHUP', reload);
        await running.close();
        // A worker of `--workers N`: its channel to the primary would keep it alive.
        if (cluster.isWorker) process.disconnect?.();
        resolve();
      };
      if (ctx.io.onStop === undefined) running.http.once('close', () => resolve());
      else ctx.io.onStop(stop);
    });
    return 0;
  },
};
