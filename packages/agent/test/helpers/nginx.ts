/**
 * nginx from Debian's package, started by the test on a free loopback port with its own prefix
 * and config in a temporary directory (`-p`, `-c`, `-g 'daemon off;'`; the package's default
 * site is never used), logging with the log format this package ships.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, tempDir } from './room.js';

export const LOG_FORMAT = fileURLToPath(
  new URL('../../nginx/wai-steering-log.conf', import.meta.url),
);

export function nginxBinary(): string {
  for (const p of ['/usr/sbin/nginx', '/usr/bin/nginx']) if (existsSync(p)) return p;
  throw new Error('nginx is not installed: run packages/agent/scripts/setup.sh (as root)');
}

export interface RunningNginx {
  readonly url: string;
  readonly root: string;
  readonly log: string;
  /** Renames the log and has nginx reopen it (USR1), as logrotate does; resolves when reopened. */
  rotate(to: string): Promise<void>;
  stop(): Promise<void>;
}

export async function startNginx(): Promise<RunningNginx> {
  const prefix = tempDir('wai-nginx-');
  // Workers run as an unprivileged user when the master is root: let them read the files.
  chmodSync(prefix, 0o755);
  const root = join(prefix, 'www');
  mkdirSync(root, { recursive: true });
  for (const d of ['logs', 'tmp']) mkdirSync(join(prefix, d), { recursive: true });
  const port = await freePort();
  const log = join(prefix, 'logs', 'access.log');
  const conf = join(prefix, 'nginx.conf');
  const asRoot = process.getuid?.() === 0;
  writeFileSync(
    conf,
    `${asRoot ? 'user nobody nogroup;\n' : ''}worker_processes 1;
error_log ${join(prefix, 'logs', 'error.log')} warn;
pid ${join(prefix, 'nginx.pid')};
events { worker_connections 64; }
http {
  include ${LOG_FORMAT};
  access_log ${log} wai_steering;
  client_body_temp_path ${join(prefix, 'tmp', 'body')};
  proxy_temp_path ${join(prefix, 'tmp', 'proxy')};
  fastcgi_temp_path ${join(prefix, 'tmp', 'fastcgi')};
  uwsgi_temp_path ${join(prefix, 'tmp', 'uwsgi')};
  scgi_temp_path ${join(prefix, 'tmp', 'scgi')};
  types { video/iso.segment m4s; application/vnd.apple.mpegurl m3u8; }
  server {
    listen 127.0.0.1:${port};
    root ${root};
  }
}
`,
  );
  const child: ChildProcess = spawn(
    nginxBinary(),
    ['-p', prefix, '-c', conf, '-g', 'daemon off;'],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => {
    stderr += c.toString();
  });
  const url = `http://127.0.0.1:${port}`;
  const until = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`nginx exited: ${stderr}`);
    try {
      await fetch(`${url}/`);
      break;
    } catch {
      if (Date.now() > until) throw new Error(`nginx did not start: ${stderr}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  const masterPid = () => Number(readFileSync(join(prefix, 'nginx.pid'), 'utf8').trim());
  return {
    url,
    root,
    log,
    async rotate(to) {
      const { renameSync } = await import('node:fs');
      renameSync(log, to);
      process.kill(masterPid(), 'SIGUSR1');
      const end = Date.now() + 10_000;
      while (!existsSync(log)) {
        if (Date.now() > end) throw new Error('nginx did not reopen its log');
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    async stop() {
      if (child.exitCode !== null) return;
      const done = new Promise((r) => child.once('exit', r));
      child.kill('SIGQUIT');
      const t = setTimeout(() => child.kill('SIGKILL'), 5000);
      await done;
      clearTimeout(t);
    },
  };
}
