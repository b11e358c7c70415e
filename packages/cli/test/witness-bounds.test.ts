// `wai-steer log witness` against peers it does not know, in a process of its own: 10 000
// add-checkpoint posts of unknown origins (30 KB each) leave its memory flat (its resident set
// read from /proc, after a warm-up and at the end); bodies being read are bounded (past 64 at
// once, 503 with Retry-After); the temporary state files a killed witness left are removed when
// it starts.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import {
  ed25519Signer,
  formatAddCheckpoint,
  formatVerifierKey,
  SIGNATURE_TYPE,
  signCheckpoint,
  verifierKey,
} from '@wai-steering/tlog';
import { nodeBackend } from '@wai-steering/wire/node';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, tempDir } from './helpers.js';
import { BIN } from './paths.js';

const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
});

/** A witness's config in `dir`, for one log of a key of its own. */
async function witnessConfig(dir: string): Promise<string> {
  await cli(['keygen', '--out', 'witness.jwk'], dir);
  const logKey = new Uint8Array(32).fill(3);
  const vkey = formatVerifierKey(
    verifierKey('known.example/log', SIGNATURE_TYPE.ed25519, nodeBackend.publicKey(logKey)),
  );
  const config = join(dir, 'witness.yaml');
  writeFileSync(
    config,
    [
      'listen: { host: 127.0.0.1, port: 0 }',
      'key: witness.jwk',
      'name: witness.test/w1',
      'state: state.json',
      'logs:',
      '  - origin: known.example/log',
      `    vkey: ${vkey}`,
      '',
    ].join('\n'),
  );
  return config;
}

/** Starts `wai-steer log witness` as a process of its own; its URL, pid and stderr. */
async function startWitness(dir: string, config: string) {
  const child = spawn(process.execPath, [BIN, 'log', 'witness', '--config', config], {
    cwd: dir,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.push(child);
  let err = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.on('data', (c: Buffer) => {
      err += c.toString();
      const m = / at (http:\S+) /.exec(err);
      if (m !== null) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`the witness exited ${code}: ${err}`)));
  });
  return { child, url, pid: child.pid!, err: () => err };
}

/** A field of /proc/<pid>/status in bytes (VmRSS, VmHWM). */
function procKb(pid: number, field: string): number {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(
    readFileSync(`/proc/${pid}/status`, 'utf8'),
  );
  return Number(m![1]) * 1024;
}

/** A POST of `body` on a connection of its own: the status and Retry-After. */
function post(url: string, body: string): Promise<{ status: number; retryAfter?: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}/add-checkpoint`,
      { method: 'POST', agent: false, headers: { 'content-length': Buffer.byteLength(body) } },
      (res) => {
        res.resume();
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            ...(res.headers['retry-after'] === undefined
              ? {}
              : { retryAfter: String(res.headers['retry-after']) }),
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** An add-checkpoint body for a log of origin `origin` (signed by a key the witness does not know). */
function bodyFor(origin: string): string {
  const key = new Uint8Array(32).fill(5);
  const cp = signCheckpoint({ origin, size: 1n, root: new Uint8Array(32), extensions: [] }, [
    ed25519Signer(origin, key),
  ]);
  return formatAddCheckpoint({ oldSize: 0n, proof: [], checkpoint: cp });
}

const MiB = 2 ** 20;

describe('log witness, against peers it does not know', () => {
  it('keeps its memory flat under 10 000 posts of unknown origins of 30 KB', {
    timeout: 900_000,
  }, async () => {
    const dir = tempDir();
    const w = await startWitness(dir, await witnessConfig(dir));
    // 30 KB origins, each another; 16 posts at a time.
    const origin = (i: number) => `${randomBytes(15_000).toString('hex')}.${i}/log`;
    let next = 0;
    const statuses = new Map<number, number>();
    const run = async (until: number): Promise<void> => {
      const lane = async (): Promise<void> => {
        while (next < until) {
          const i = next++;
          const r = await post(w.url, bodyFor(origin(i)));
          statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
        }
      };
      await Promise.all(Array.from({ length: 16 }, lane));
    };
    await run(1_000);
    const warm = procKb(w.pid, 'VmRSS');
    const warmPeak = procKb(w.pid, 'VmHWM');
    for (let k = 2; k <= 10; k++) {
      await run(k * 1000);
      if (process.env.WITNESS_MEMORY_LOG !== undefined)
        process.stderr.write(
          `witness: ${k * 1000} ${(procKb(w.pid, 'VmRSS') / MiB).toFixed(1)} MiB peak ${(procKb(w.pid, 'VmHWM') / MiB).toFixed(1)}\n`,
        );
    }
    const end = procKb(w.pid, 'VmRSS');
    const endPeak = procKb(w.pid, 'VmHWM');
    if (process.env.WITNESS_MEMORY_LOG !== undefined) {
      process.stderr.write(
        `witness: after 1 000 posts ${(warm / MiB).toFixed(1)} MiB (peak ${(warmPeak / MiB).toFixed(1)}), after 10 000 ${(end / MiB).toFixed(1)} MiB (peak ${(endPeak / MiB).toFixed(1)})\n`,
      );
    }
    expect([...statuses]).toEqual([[404, 10_000]]);
    // Flat: within 10 % of what it held after the warm-up, its peak too.
    expect(end).toBeLessThanOrEqual(warm * 1.1);
    expect(endPeak).toBeLessThanOrEqual(warmPeak * 1.1);
    // Nothing of theirs logged, nothing written.
    expect(w.err()).not.toContain('.0/log');
    expect(existsSync(join(dir, 'state.json'))).toBe(false);
    w.child.kill('SIGTERM');
  });

  it('reads at most 64 bodies at once: the next is 503 with Retry-After, until they go', {
    timeout: 300_000,
  }, async () => {
    const dir = tempDir();
    const w = await startWitness(dir, await witnessConfig(dir));
    const probe = bodyFor('elsewhere.example/log');
    const { hostname, port } = new URL(w.url);
    // 64 posts that declare 1 000 bytes and send 10: each holds a body being read.
    const held: Socket[] = [];
    for (let i = 0; i < 64; i++) {
      const s = connect(Number(port), hostname);
      s.on('error', () => {});
      await new Promise<void>((r) => s.once('connect', () => r()));
      s.write(
        `POST /add-checkpoint HTTP/1.1\r\nhost: x\r\ncontent-length: 1000\r\n\r\nold 0\n\n12`,
      );
      held.push(s);
    }
    // Once the witness has read their heads (a probe tells: it is answered 503 then), the next
    // post is refused before its body is read.
    let busy: { status: number; retryAfter?: string } | undefined;
    for (let i = 0; i < 200 && busy === undefined; i++) {
      const r = await post(w.url, probe);
      if (r.status === 503) busy = r;
      else expect(r.status).toBe(404);
    }
    expect(busy).toEqual({ status: 503, retryAfter: '1' });
    // They go: a post is read again.
    for (const s of held) s.destroy();
    let status = 503;
    for (let i = 0; i < 200 && status === 503; i++) status = (await post(w.url, probe)).status;
    expect(status).toBe(404);
    w.child.kill('SIGTERM');
  });

  it('removes the temporary state files a killed witness left, and only those', async () => {
    const dir = tempDir();
    const config = await witnessConfig(dir);
    // A process that has ended, and one that runs (this one): only the first's file is stale.
    const ended = spawn(process.execPath, ['-e', '']);
    const deadPid = await new Promise<number>((r) => ended.once('exit', () => r(ended.pid!)));
    const stale = join(dir, `.state.json.${deadPid}.tmp`);
    const live = join(dir, `.state.json.${process.pid}.tmp`);
    const other = join(dir, '.other.json.1.tmp');
    for (const f of [stale, live, other]) writeFileSync(f, '{"partial": ');
    const w = await startWitness(dir, config);
    expect(existsSync(stale)).toBe(false);
    expect(existsSync(live)).toBe(true);
    expect(existsSync(other)).toBe(true);
    expect(w.err()).toContain(`witness: removed ${stale}, a temporary state file`);
    w.child.kill('SIGTERM');
  });
});
