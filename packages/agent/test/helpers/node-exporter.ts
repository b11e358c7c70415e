/**
 * Prometheus node_exporter from Debian's package (`prometheus-node-exporter`), started by the
 * test on a free loopback port with only its textfile collector, reading a temporary directory.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, tempDir } from './room.js';

export function nodeExporterBinary(): string {
  for (const p of ['/usr/bin/prometheus-node-exporter', '/usr/sbin/prometheus-node-exporter']) {
    if (existsSync(p)) return p;
  }
  throw new Error(
    'prometheus-node-exporter is not installed: run packages/agent/scripts/setup.sh (as root)',
  );
}

export interface RunningNodeExporter {
  /** Its `/metrics`. */
  readonly url: string;
  /** Writes the textfile collector's file (atomically, as the collector's docs ask). */
  write(text: string): void;
  stop(): Promise<void>;
}

export async function startNodeExporter(): Promise<RunningNodeExporter> {
  const dir = tempDir('wai-textfile-');
  const port = await freePort();
  const child: ChildProcess = spawn(
    nodeExporterBinary(),
    [
      `--web.listen-address=127.0.0.1:${port}`,
      '--collector.disable-defaults',
      '--collector.textfile',
      `--collector.textfile.directory=${dir}`,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => {
    stderr = (stderr + c.toString()).slice(-4000);
  });
  const url = `http://127.0.0.1:${port}/metrics`;
  const until = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`node_exporter exited: ${stderr}`);
    try {
      if ((await fetch(url)).status === 200) break;
    } catch {
      // not yet listening
    }
    if (Date.now() > until) throw new Error(`node_exporter did not start: ${stderr}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url,
    write(text) {
      const tmp = join(dir, '.energy.prom.tmp');
      writeFileSync(tmp, text);
      renameSync(tmp, join(dir, 'energy.prom'));
    },
    async stop() {
      if (child.exitCode !== null) return;
      const done = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await done;
    },
  };
}
