/**
 * A throwaway PostgreSQL cluster for the tests and the benches: Debian's binaries (`initdb`,
 * `pg_ctl`), a data directory and unix socket in a fresh temporary directory, listening on a
 * free loopback port, stopped and removed by `stop()`. Nothing global is touched (the package's own cluster is not
 * used). `initdb` refuses to run as root: as root, the binaries run as the `postgres` user (the
 * package creates it) on a directory handed to it.
 *
 * Missing binaries are an error, never a skip: `packages/server/scripts/setup.sh` installs them.
 */
import { execFile } from 'node:child_process';
import {
  chownSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

const run = promisify(execFile);

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

function tempDir(prefix: string): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true, maxRetries: 5 }) };
}

/** The directory of the newest PostgreSQL binaries installed (`PG_BIN` overrides). */
export function pgBinDir(): string {
  const env = process.env.PG_BIN;
  if (env !== undefined && existsSync(join(env, 'initdb'))) return env;
  const base = '/usr/lib/postgresql';
  const versions = existsSync(base)
    ? readdirSync(base)
        .filter((v) => existsSync(join(base, v, 'bin', 'pg_ctl')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions.length === 0) {
    throw new Error(
      'PostgreSQL binaries not found under /usr/lib/postgresql: run packages/server/scripts/setup.sh (as root)',
    );
  }
  return join(base, versions[0]!, 'bin');
}

/** A running throwaway cluster. */
export interface PgCluster {
  readonly port: number;
  /** `postgres://steer@127.0.0.1:<port>/steer` */
  readonly url: string;
  /** A fresh database of the cluster; its URL. */
  createDatabase(name: string): Promise<string>;
  /** The server's log so far (for a failing test's message). */
  log(): string;
  /** The postmaster's process id (the bench adds up the cluster's CPU time). */
  readonly pid: number;
  /** The directory of its unix socket (`?host=` of a URL that connects by the socket). */
  readonly socketDir: string;
  /**
   * An outage: the server stopped at once (`pg_ctl stop -m immediate`: every connection cut, no
   * checkpoint), its data kept; {@link PgCluster.resume} starts it again on the same port.
   */
  halt(): Promise<void>;
  /** Starts the cluster again after {@link PgCluster.halt} (recovering from its WAL). */
  resume(): Promise<void>;
  stop(): Promise<void>;
}

const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;

async function pgUser(): Promise<{ uid: number; gid: number }> {
  const { stdout: uid } = await run('id', ['-u', 'postgres']);
  const { stdout: gid } = await run('id', ['-g', 'postgres']);
  return { uid: Number(uid.trim()), gid: Number(gid.trim()) };
}

/** Runs a PostgreSQL binary, as the `postgres` user when this process is root. */
function pgRun(bin: string, args: string[]): Promise<{ stdout: string; stderr: string }> {
  const options = { timeout: 60_000, env: { ...process.env, LC_ALL: 'C' } };
  if (!asRoot) return run(bin, args, options);
  return run('runuser', ['-u', 'postgres', '--', bin, ...args], options);
}

/** Options of {@link startPostgres}. */
export interface PgClusterOptions {
  /**
   * How a connection by the unix socket authenticates: `trust` (the default), or `peer`, as
   * Debian's clusters do (the system user must be the database user it asks for).
   */
  readonly socketAuth?: 'trust' | 'peer';
}

/**
 * Starts a cluster: `initdb` then `pg_ctl start`, trust authentication on loopback (and on its
 * socket, unless `socketAuth` says `peer`).
 */
export async function startPostgres(options: PgClusterOptions = {}): Promise<PgCluster> {
  const bin = pgBinDir();
  const t = tempDir('wai-pg-');
  const data = join(t.dir, 'data');
  const logFile = join(t.dir, 'server.log');
  if (asRoot) {
    const { uid, gid } = await pgUser();
    chownSync(t.dir, uid, gid);
  }
  const port = await freePort();
  try {
    await pgRun(join(bin, 'initdb'), [
      '-D',
      data,
      '-U',
      'steer',
      '--auth-host=trust',
      `--auth-local=${options.socketAuth ?? 'trust'}`,
      '-E',
      'UTF8',
      '--locale=C',
      '--no-sync',
    ]);
    // The test cluster: loopback and its own socket directory only; no fsync (a power loss is
    // not under test; `synchronous_commit` stays on, so a commit is in the WAL when it returns).
    writeFileSync(
      join(t.dir, 'extra.conf'),
      [
        `port = ${port}`,
        "listen_addresses = '127.0.0.1'",
        `unix_socket_directories = '${t.dir}'`,
        'fsync = off',
        'full_page_writes = off',
        'max_connections = 200',
        'shared_buffers = 64MB',
        '',
      ].join('\n'),
    );
    await pgRun('sh', [
      '-c',
      `echo "include '${join(t.dir, 'extra.conf')}'" >> '${join(data, 'postgresql.conf')}'`,
    ]);
    await pgRun(join(bin, 'pg_ctl'), ['-D', data, '-l', logFile, '-w', '-t', '60', 'start']);
  } catch (e) {
    const log = existsSync(logFile) ? readFileSync(logFile, 'utf8') : '';
    t.remove();
    throw new Error(`the test PostgreSQL did not start: ${(e as Error).message}\n${log}`);
  }
  const url = (db: string): string => `postgres://steer@127.0.0.1:${port}/${db}`;
  const connectAdmin = async (): Promise<pg.Client> => {
    const c = new pg.Client({ connectionString: url('postgres') });
    // The cluster is stopped under it (at the end, or by `halt`).
    c.on('error', () => {});
    await c.connect();
    return c;
  };
  let admin = await connectAdmin();
  await admin.query('CREATE DATABASE steer');
  let stopped = false;
  const pid = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const pgCtl = (args: string[]) => pgRun(join(bin, 'pg_ctl'), ['-D', data, ...args]);
  return {
    port,
    pid,
    socketDir: t.dir,
    url: url('steer'),
    async createDatabase(name: string): Promise<string> {
      if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new TypeError('a plain database name');
      await admin.query(`CREATE DATABASE ${name}`);
      return url(name);
    },
    log: () => (existsSync(logFile) ? readFileSync(logFile, 'utf8') : ''),
    async halt(): Promise<void> {
      await pgCtl(['-m', 'immediate', '-w', 'stop']);
      await admin.end().catch(() => {});
    },
    async resume(): Promise<void> {
      await pgCtl(['-l', logFile, '-w', '-t', '60', 'start']);
      admin = await connectAdmin();
    },
    async stop(): Promise<void> {
      if (stopped) return;
      stopped = true;
      await admin.end().catch(() => {});
      await pgRun(join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(
        () => {},
      );
      t.remove();
    },
  };
}
