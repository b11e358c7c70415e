// The archive's frames read strictly, in bounded memory, against the hostile files of a review:
// a sparse file of 128 KB on disk declaring 30 frames of 16 MiB, and a million one-byte frames,
// in each file of frames. Each is audited in a process
// of its own whose peak resident memory is its own measure (`getrusage`'s maximum RSS): refused
// with one line naming the file and the frame, under 256 MiB. And a decision's frame given twice:
// a finding, its copy audited once.
import { execFile } from 'node:child_process';
import { closeSync, openSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { readDecision, toHex } from '@wai-steering/wire';
import { afterEach, describe, expect, it } from 'vitest';
import { auditDecisions } from '../../src/audit.js';
import { MAX_DECISION } from '../../src/frames.js';
import { auditArchive } from '../../src/node.js';
import { makeWorld, SimServer, sessionOf, T0, tempDir, writeArchive } from '../helpers/world.js';

const run = promisify(execFile);
const CHILD = join(import.meta.dirname, '..', 'helpers', 'audit-child.ts');
const MiB = 2 ** 20;
/** The bound the issue sets for every hostile archive. */
const BOUND = 256 * MiB;

interface ChildResult {
  ok: boolean;
  error?: string;
  decisions?: number;
  refused?: number;
  findings?: number;
  rssPeak: number;
}

/** Audits `dir` in a child process; waits for it. */
async function audit(dir: string, room: string, jobs = 1): Promise<ChildResult> {
  const { stdout } = await run(
    process.execPath,
    ['--import', 'tsx', CHILD, dir, room, String(jobs)],
    { timeout: 300_000, maxBuffer: 1 << 20 },
  );
  const r = JSON.parse(stdout.trim().split('\n').at(-1)!) as ChildResult;
  if (process.env.AUDIT_MEMORY_LOG !== undefined) {
    process.stderr.write(
      `peak ${(r.rssPeak / MiB).toFixed(0)} MiB: ${r.error ?? `${r.decisions} decisions`}\n`,
    );
  }
  return r;
}

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

/** 30 frames declaring 16 MiB each, the file as long as they say, only their lengths written. */
function sparseFrames(path: string): void {
  const fd = openSync(path, 'w');
  try {
    const head = Buffer.alloc(4);
    head.writeUInt32LE(16 * MiB);
    const frame = 4 + 16 * MiB;
    for (let i = 0; i < 30; i++) writeSync(fd, head, 0, 4, i * frame);
    writeSync(fd, Buffer.alloc(1), 0, 1, 30 * frame - 1);
  } finally {
    closeSync(fd);
  }
}

/** A million frames of one byte each. */
function oneByteFrames(path: string): void {
  const n = 1_000_000;
  const file = new Uint8Array(5 * n);
  for (let i = 0; i < n; i++) {
    file[5 * i] = 1;
    file[5 * i + 4] = i & 0xff;
  }
  writeFileSync(path, file);
}

/**
 * The largest decision that reads (§7.1): 255 pathways of 255 evidence digests each, 255
 * priority entries; its `ttl` is 0, so it breaks a rule of §7.2 (it reads, and is refused).
 */
function largestDecision(): Uint8Array {
  const b = new Uint8Array(MAX_DECISION);
  const v = new DataView(b.buffer);
  b.set([0x57, 0x53, 0x44, 0x31, 1]); // WSD1, version 1
  let o = 5 + 96 + 8 + 16 + 4 + 1 + 18; // to the pathway count
  b[o++] = 255;
  for (let i = 0; i < 255; i++) {
    o += 4 + 1 + 1 + 1 + 32; // load, limits, status, class, J, D
    b[o++] = 255;
    o += 255 * 32;
  }
  v.setUint32(o, 0, true); // ttl 0
  o += 4;
  b[o++] = 1; // reason
  b[o++] = 255;
  o += 255;
  expect(o + 64).toEqual(MAX_DECISION);
  return b;
}

describe('frames read strictly, in bounded memory', () => {
  const world = makeWorld(6);
  const sim = new SimServer(world);
  for (let i = 0; i < 8; i++) sim.decide(T0 + BigInt(i) * 300_000n, sessionOf(i));
  const room = toHex(world.roomId);

  async function archive(name: string, put: (path: string) => void): Promise<string> {
    const { dir, remove } = tempDir();
    cleanups.push(remove);
    await writeArchive(
      dir,
      world,
      sim.made.map((m) => m.bytes),
    );
    rmSync(join(dir, name));
    put(join(dir, name));
    return dir;
  }

  it('the largest decision reads, and refused: one byte more does not read', () => {
    const d = largestDecision();
    const read = readDecision(d);
    expect(read.ok).toBe(false);
    expect(!read.ok && read.refusal.reason).toEqual('decision_invalid');
    const more = new Uint8Array(MAX_DECISION + 1);
    more.set(d);
    expect(
      !readDecision(more).ok &&
        (readDecision(more) as { refusal: { reason: string } }).refusal.reason,
    ).toEqual('malformed');
  });

  for (const name of ['policies.bin', 'records.bin', 'decisions.bin']) {
    it(`refuses 30 frames of 16 MiB in a sparse ${name} at its first, under 256 MiB`, {
      timeout: 600_000,
    }, async () => {
      const dir = await archive(name, sparseFrames);
      // Sparse indeed: 480 MiB long, a few blocks on disk.
      const st = statSync(join(dir, name));
      expect(st.size).toBeGreaterThan(480 * MiB);
      expect(st.blocks * 512).toBeLessThan(1 * MiB);
      for (const jobs of name === 'decisions.bin' ? [1, 2] : [1]) {
        const r = await audit(dir, room, jobs);
        expect(r.ok).toBe(false);
        // policies.bin may hold a frame of 16 MiB: it is read, and does not read as a policy.
        expect(r.error).toMatch(
          name === 'policies.bin'
            ? /policies\.bin: frame 0 \(at byte 0\) does not read as a policy \(WSP1\): malformed/
            : new RegExp(
                `${name.replace('.', '\\.')}: frame 0 \\(at byte 0\\) declares 16777216 bytes, over the \\d+ a frame of this file may hold$`,
              ),
        );
        expect(r.error).not.toContain('\n');
        expect(r.rssPeak).toBeLessThan(BOUND);
      }
    });

    it(`refuses a million one-byte frames as ${name} at the first, under 256 MiB`, {
      timeout: 600_000,
    }, async () => {
      const dir = await archive(name, oneByteFrames);
      const record = { 'policies.bin': 'a policy', 'records.bin': 'a per-hop record' }[
        name as 'policies.bin'
      ];
      for (const jobs of name === 'decisions.bin' ? [1, 2] : [1]) {
        const r = await audit(dir, room, jobs);
        expect(r.ok).toBe(false);
        expect(r.error).toMatch(
          new RegExp(
            `${name.replace('.', '\\.')}: frame 0 \\(at byte 0\\) does not read as ${record ?? 'a decision'} \\(W...\\): truncated`,
          ),
        );
        expect(r.rssPeak).toBeLessThan(BOUND);
      }
    });
  }
});

describe('a decision frame given twice', () => {
  const world = makeWorld(6);
  const sim = new SimServer(world);
  for (let i = 0; i < 8; i++) sim.decide(T0 + BigInt(i) * 300_000n, sessionOf(i));
  const bytes = sim.made.map((m) => m.bytes);
  const materials = {
    room: world.room,
    keyLog: world.keyLog,
    policies: [world.policy],
    records: world.records,
  };
  const options = { roomId: world.roomId, graceS: 10, loadTolerance: 0 };

  it('is a finding, its copy audited once: the rest is the audit without it', () => {
    const clean = auditDecisions(materials, bytes, options).result;
    expect(clean.findings).toEqual(0);
    const twice = [...bytes.slice(0, 4), bytes[3]!, ...bytes.slice(4)];
    const r = auditDecisions(materials, twice, options).result;
    expect(r.duplicated).toEqual([
      { digest: sim.made[3]!.digest, t: sim.made[3]!.t.toString(), frame: 4, first: 3 },
    ]);
    expect(r.findings).toEqual(1);
    expect(r.decisions).toEqual(bytes.length + 1);
    expect({ ...r, duplicated: [], findings: 0, decisions: bytes.length }).toEqual(clean);
  });

  it('three copies are two findings; a copy with another signature is no copy (it is refused)', () => {
    const r = auditDecisions(
      materials,
      [bytes[0]!, bytes[0]!, bytes[0]!, ...bytes.slice(1)],
      options,
    ).result;
    expect(r.duplicated.map((d) => [d.frame, d.first])).toEqual([
      [1, 0],
      [2, 0],
    ]);
    const other = bytes[0]!.slice();
    other[other.length - 1]! ^= 1;
    const s = auditDecisions(materials, [bytes[0]!, other, ...bytes.slice(1)], options).result;
    expect(s.duplicated).toEqual([]);
    expect(s.refused.map((x) => x.reason)).toEqual(['bad_signature']);
  });

  it('is listed in the JSON of an archive, after the log, with one job and with two', async () => {
    const { dir, remove } = tempDir();
    cleanups.push(remove);
    await writeArchive(dir, world, [...bytes.slice(0, 6), bytes[5]!, bytes[5]!, ...bytes.slice(6)]);
    for (const jobs of [1, 2]) {
      const a = await auditArchive(dir, { roomId: world.roomId, jobs, loadTolerance: 0 });
      let json = '';
      await a.writeJson((c: string) => {
        json += c;
      });
      a.dispose();
      const parsed = JSON.parse(json) as Record<string, unknown>;
      expect(Object.keys(parsed).slice(-4)).toEqual(['log', 'duplicated', 'energy', 'energy_why']);
      expect(parsed.duplicated).toEqual([
        { digest: sim.made[5]!.digest, t: sim.made[5]!.t.toString(), frame: 6, first: 5 },
        { digest: sim.made[5]!.digest, t: sim.made[5]!.t.toString(), frame: 7, first: 5 },
      ]);
      expect(a.duplicated).toEqual(2);
      expect(a.result.findings).toEqual(2);
      expect(a.result.accepted).toEqual(bytes.length);
    }
  });
});
