// The archive on disk against hostile files: a FIFO, devices behind links, a loop of links, frames
// that declare more than the file holds, a million empty frames, two hundred thousand decisions
// refused. Each is audited in a process of its own (its peak memory its own measure): refused
// with one line naming the file, or read in bounded memory, the refusals streamed to the JSON.
import { execFile, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { readDecision, toHex, unwrap } from '@wai-steering/wire';
import { afterEach, describe, expect, it } from 'vitest';
import { auditArchive } from '../../src/node.js';
import { makeWorld, SimServer, sessionOf, T0, tempDir, writeArchive } from '../helpers/world.js';

const run = promisify(execFile);
const CHILD = join(import.meta.dirname, '..', 'helpers', 'audit-child.ts');
/** A generous ceiling for the peak resident memory of a child (Node alone takes about 50 MB). */
const MB = 2 ** 20;

interface ChildResult {
  ok: boolean;
  error?: string;
  decisions?: number;
  refused?: number;
  heldRefused?: number;
  refusedInJson?: number;
  jsonBytes?: number;
  rssPeak: number;
}

/** Audits `dir` in a child process; waits for it (at most ten minutes, whatever the machine). */
async function audit(dir: string, room: string, jobs = 1): Promise<ChildResult> {
  const { stdout } = await run(
    process.execPath,
    ['--import', 'tsx', CHILD, dir, room, String(jobs)],
    {
      timeout: 600_000,
      maxBuffer: 1 << 20,
    },
  );
  const r = JSON.parse(stdout.trim().split('\n').at(-1)!) as ChildResult;
  if (process.env.AUDIT_MEMORY_LOG !== undefined) {
    process.stderr.write(
      `peak ${(r.rssPeak / MB).toFixed(0)} MiB: ${r.error ?? `${r.decisions} decisions`}\n`,
    );
  }
  return r;
}

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

describe('hostile archives', () => {
  const world = makeWorld(6);
  const sim = new SimServer(world);
  for (let i = 0; i < 8; i++) sim.decide(T0 + BigInt(i) * 300_000n, sessionOf(i));
  const room = toHex(world.roomId);

  /** A good archive, with one of its files then replaced by `replace`. */
  async function archive(replace: (dir: string) => void): Promise<string> {
    const { dir, remove } = tempDir();
    cleanups.push(remove);
    await writeArchive(
      dir,
      world,
      sim.made.map((m) => m.bytes),
    );
    replace(dir);
    return dir;
  }

  const swap = (dir: string, name: string, put: (path: string) => void) => {
    rmSync(join(dir, name));
    put(join(dir, name));
  };

  it('refuses a FIFO as decisions.bin at once, without waiting on it', async () => {
    const dir = await archive((d) =>
      swap(d, 'decisions.bin', (p) => {
        expect(spawnSync('mkfifo', [p]).status).toBe(0);
      }),
    );
    const r = await audit(dir, room);
    expect(r.ok).toBe(false);
    expect(r.error).toMatch(
      /decisions\.bin: a FIFO, not a regular file; .*put the file itself there/,
    );
    expect(r.rssPeak).toBeLessThan(200 * MB);
  });

  it('refuses a link to /dev/zero as decisions.bin, and to /dev/urandom as records.bin', async () => {
    const zero = await archive((d) => swap(d, 'decisions.bin', (p) => symlinkSync('/dev/zero', p)));
    const r = await audit(zero, room);
    expect(r.error).toMatch(/decisions\.bin: a character device, not a regular file/);
    expect(r.rssPeak).toBeLessThan(200 * MB);
    const urandom = await archive((d) =>
      swap(d, 'records.bin', (p) => symlinkSync('/dev/urandom', p)),
    );
    const u = await audit(urandom, room);
    expect(u.error).toMatch(/records\.bin: a character device, not a regular file/);
    expect(u.rssPeak).toBeLessThan(200 * MB);
  });

  it('refuses a loop of symbolic links, naming the file', async () => {
    const dir = await archive((d) =>
      swap(d, 'decisions.bin', (p) => {
        symlinkSync(join(d, 'loop-b'), p);
        symlinkSync(p, join(d, 'loop-b'));
      }),
    );
    const r = await audit(dir, room);
    expect(r.error).toMatch(/decisions\.bin: a loop of symbolic links; put the file itself there/);
  });

  it('refuses random bytes as records.bin at its first frame, and a frame longer than the file', async () => {
    const random = await archive((d) => writeFileSync(join(d, 'records.bin'), randomBytes(8 * MB)));
    const r = await audit(random, room);
    expect(r.error).toMatch(
      /records\.bin: frame 0 \(at byte 0\) (declares \d+ bytes, (over|but the file holds)|does not read)/,
    );
    expect(r.rssPeak).toBeLessThan(200 * MB);
    // 16 MiB declared, 10 bytes there: refused before anything of the frame is allocated.
    const long = await archive((d) =>
      writeFileSync(
        join(d, 'policies.bin'),
        Buffer.from([0, 0, 0, 1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]),
      ),
    );
    const l = await audit(long, room);
    expect(l.error).toMatch(
      /policies\.bin: frame 0 \(at byte 0\) declares 16777216 bytes, but the file holds 10 after it$/,
    );
  });

  it('refuses a million empty frames (4 MB of zeros) at the first', async () => {
    for (const name of ['decisions.bin', 'records.bin']) {
      const dir = await archive((d) => writeFileSync(join(d, name), new Uint8Array(4 * MB)));
      const r = await audit(dir, room);
      expect(r.error).toContain(`${name}: frame 0 (at byte 0) holds 0 bytes (no record is empty)`);
      expect(r.rssPeak).toBeLessThan(200 * MB);
    }
  });

  it('reads 200 000 decisions refused, streaming their refusals to the JSON', {
    timeout: 1_200_000,
  }, async () => {
    const n = 200_000;
    const dir = await archive((d) => {
      // Copies of one decision whose `ttl` is 0: each reads, and breaks a rule of §7.2
      // (`decision_invalid`), refused without a signature to verify.
      const one = sim.made[0]!.bytes.slice();
      const m = unwrap(readDecision(one)).priority.length;
      // `ttl` (u32) is before the reason, the priority's count and entries, and `sig`.
      new DataView(one.buffer).setUint32(one.length - 64 - m - 1 - 1 - 4, 0, true);
      const frame = 4 + one.length;
      const file = new Uint8Array(frame * n);
      const view = new DataView(file.buffer);
      for (let i = 0; i < n; i++) {
        view.setUint32(frame * i, one.length, true);
        file.set(one, frame * i + 4);
      }
      writeFileSync(join(d, 'decisions.bin'), file);
    });
    for (const jobs of [1, 2]) {
      const r = await audit(dir, room, jobs);
      expect(r).toMatchObject({ ok: true, decisions: n, refused: n, heldRefused: 500 });
      expect(r.refusedInJson).toBe(n);
      // About 120 bytes of JSON each: 24 MB written, not held.
      expect(r.jsonBytes).toBeGreaterThan(20 * MB);
      expect(r.rssPeak).toBeLessThan(250 * MB);
    }
  });

  it('gives in its JSON every refusal the audit holds in memory when there are few', async () => {
    const { dir, remove } = tempDir();
    cleanups.push(remove);
    const bytes = sim.made.map((m) => m.bytes.slice());
    bytes[3]![bytes[3]!.length - 1]! ^= 1;
    await writeArchive(dir, world, bytes);
    const a = await auditArchive(dir, { roomId: world.roomId });
    let json = '';
    await a.writeJson((c: string) => {
      json += c;
    });
    a.dispose();
    expect(JSON.parse(json)).toEqual(a.result);
    expect(json).toBe(JSON.stringify(a.result));
    expect(a.result.refused.length).toBe(1);
  });
});
