/**
 * HAProxy for the tests: Debian's binary on the repository's own `deploy/haproxy.cfg`, its
 * addresses from the environment (a free loopback port, the two instances'), in the foreground
 * as a child process, stopped by `stop()`. Missing binary: an error naming the setup script.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './setup.js';

const repo = fileURLToPath(new URL('../../../..', import.meta.url));

/** The shipped configuration. */
export const HAPROXY_CFG = join(repo, 'deploy', 'haproxy.cfg');

function haproxyBin(): string {
  for (const p of ['/usr/sbin/haproxy', '/usr/bin/haproxy', '/usr/local/sbin/haproxy']) {
    if (existsSync(p)) return p;
  }
  throw new Error('haproxy not found: run packages/server/scripts/setup.sh (as root)');
}

export interface Haproxy {
  readonly url: string;
  readonly proc: ChildProcess;
  log(): string;
  stop(): Promise<void>;
}

/** Starts HAProxy in front of instances `a` and `b` (`host:port` each). */
export async function startHaproxy(a: string, b: string): Promise<Haproxy> {
  const port = await freePort();
  const proc = spawn(haproxyBin(), ['-db', '-f', HAPROXY_CFG], {
    env: {
      ...process.env,
      WAI_LISTEN: `127.0.0.1:${port}`,
      WAI_INSTANCE_A: a,
      WAI_INSTANCE_B: b,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  proc.stdout!.on('data', (c) => {
    log += c;
  });
  proc.stderr!.on('data', (c) => {
    log += c;
  });
  const url = `http://127.0.0.1:${port}`;
  // Up once it answers through to an instance.
  for (let i = 0; ; i++) {
    if (proc.exitCode !== null) throw new Error(`haproxy exited: ${log}`);
    try {
      const res = await fetch(`${url}/healthz`);
      await res.arrayBuffer();
      if (res.status === 200) break;
    } catch {}
    // Checks every 500 ms, later on a busy machine: a generous ceiling (60 s).
    if (i > 1200) throw new Error(`haproxy did not answer: ${log}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url,
    proc,
    log: () => log,
    stop: () =>
      new Promise<void>((resolve) => {
        if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
        proc.once('exit', () => resolve());
        proc.kill('SIGTERM');
      }),
  };
}
