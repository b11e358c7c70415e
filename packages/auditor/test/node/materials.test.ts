// The materials read from an archive on disk: each file within its limit, what a file says
// wrong named in one line with the file, the framed files checked at once and read as used.
import { spawnSync } from 'node:child_process';
import { rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ArchiveError, type ArchiveMeta } from '../../src/archive.js';
import { encodeFrames, MAX_DECISION, MAX_HOP_RECORD } from '../../src/frames.js';
import { decisionFrames, MAX_META_BYTES, readArchiveMaterials } from '../../src/node/materials.js';
import { ArchiveWriter } from '../../src/node/writer.js';
import { refusal } from '../helpers/refusal.js';
import { makeWorld, tempDir } from '../helpers/world.js';

const META: ArchiveMeta = { room: 'cd'.repeat(32), grace_s: 3 };
const world = makeWorld(1);

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

/** A small archive of the decisions given. */
async function archive(decisions: Uint8Array[] = []): Promise<string> {
  const t = tempDir();
  cleanups.push(t.remove);
  const w = await ArchiveWriter.create(t.dir, {
    meta: META,
    room: Uint8Array.of(1, 2),
    keyLog: null,
    policies: [world.policy],
    records: world.records.slice(0, 2),
  });
  for (const d of decisions) await w.add(d);
  await w.close();
  return t.dir;
}

describe('readArchiveMaterials', () => {
  it('reads the materials, the key log and checkpoint absent, the frames as iterated', async () => {
    const d = await archive();
    const m = readArchiveMaterials(d);
    expect({ ...m, policies: [...m.policies], records: [...m.records] }).toEqual({
      meta: META,
      room: Uint8Array.of(1, 2),
      keyLog: null,
      checkpoint: null,
      policies: [world.policy],
      records: world.records.slice(0, 2),
    });
  });

  it('refuses what is not a directory, and a directory without archive.json', async () => {
    const d = await archive();
    expect(refusal(() => readArchiveMaterials(join(d, 'room.wrd')))).toEqual(
      `${join(d, 'room.wrd')}: not a directory`,
    );
    expect(refusal(() => readArchiveMaterials(join(d, 'none')))).toEqual(
      `${join(d, 'none')}: not a directory`,
    );
    rmSync(join(d, 'archive.json'));
    expect(refusal(() => readArchiveMaterials(d))).toEqual(
      `${join(d, 'archive.json')}: cannot read (ENOENT)`,
    );
  });

  it('names archive.json when it does not read or is over its limit', async () => {
    const d = await archive();
    writeFileSync(join(d, 'archive.json'), '{"room": 1}');
    expect(refusal(() => readArchiveMaterials(d))).toEqual(
      `${join(d, 'archive.json')}: archive.json: "room" is not 64 hexadecimal digits`,
    );
    // A name given twice: refused, where JSON.parse would take the last value.
    writeFileSync(
      join(d, 'archive.json'),
      `{"room": "${META.room}", "grace_s": 3, "grace_s": 3000}`,
    );
    expect(refusal(() => readArchiveMaterials(d))).toEqual(
      `${join(d, 'archive.json')}: archive.json: the name "grace_s" is given twice in one object`,
    );
    writeFileSync(join(d, 'archive.json'), ' '.repeat(MAX_META_BYTES + 1));
    expect(refusal(() => readArchiveMaterials(d))).toEqual(
      `${join(d, 'archive.json')}: ${MAX_META_BYTES + 1} bytes, over the ${MAX_META_BYTES} it may hold`,
    );
  });

  it('refuses a log named without a checkpoint, a checkpoint not UTF-8, and entries that are not a file', async () => {
    const d = await archive();
    writeFileSync(join(d, 'archive.json'), JSON.stringify({ ...META, log: { origin: 'o' } }));
    expect(refusal(() => readArchiveMaterials(d))).toEqual(
      `${join(d, 'archive.json')}: names the log o, but the archive has no checkpoint`,
    );
    writeFileSync(join(d, 'checkpoint'), Uint8Array.of(0xff, 0xfe));
    expect(refusal(() => readArchiveMaterials(d))).toEqual(
      `${join(d, 'checkpoint')}: not UTF-8 text`,
    );
    writeFileSync(join(d, 'checkpoint'), 'o\n1\n');
    expect(refusal(() => readArchiveMaterials(d))).toEqual(
      `${join(d, 'log-entries.bin')}: cannot read (ENOENT)`,
    );
    writeFileSync(join(d, 'log-entries.bin'), new Uint8Array(40));
    expect(readArchiveMaterials(d).checkpoint).toEqual('o\n1\n');
  });

  it('checks the framed files at once: a FIFO as records.bin is refused before any is read', async () => {
    const d = await archive();
    rmSync(join(d, 'records.bin'));
    expect(spawnSync('mkfifo', [join(d, 'records.bin')]).status).toEqual(0);
    expect(refusal(() => readArchiveMaterials(d))).toMatch(/records\.bin: a FIFO, not a regular/);
  });
});

describe('decisionFrames', () => {
  it('streams the decisions in order, telling the bytes read', async () => {
    const decisions = Array.from({ length: 300 }, (_, i) => new Uint8Array(5000).fill(i & 0xff));
    const d = await archive(decisions);
    const told: [number, number][] = [];
    const got: Uint8Array[] = [];
    for await (const f of decisionFrames(d, (read, size) => told.push([read, size]))) {
      got.push(f.slice());
    }
    expect(got).toEqual(decisions);
    const size = encodeFrames(decisions).length;
    expect(told.at(-1)).toEqual([size, size]);
    expect(told.length).toEqual(Math.ceil(size / 2 ** 20));
  });

  it('refuses a frame that does not read, and a device, naming decisions.bin', async () => {
    const d = await archive();
    writeFileSync(join(d, 'decisions.bin'), Uint8Array.of(3, 0, 0, 0, 1));
    await expect(decisionFrames(d).next()).rejects.toThrow(
      new ArchiveError(
        `${join(d, 'decisions.bin')}: frame 0 (at byte 0) declares 3 bytes, but the file holds 1 after it`,
      ),
    );
    rmSync(join(d, 'decisions.bin'));
    symlinkSync('/dev/zero', join(d, 'decisions.bin'));
    await expect(decisionFrames(d).next()).rejects.toThrow(/decisions\.bin: a character device/);
  });

  it('refuses a frame over the largest decision before reading it', async () => {
    const d = await archive();
    const head = new Uint8Array(8);
    new DataView(head.buffer).setUint32(0, MAX_DECISION + 1, true);
    writeFileSync(join(d, 'decisions.bin'), head);
    await expect(decisionFrames(d).next()).rejects.toThrow(
      `${join(d, 'decisions.bin')}: frame 0 (at byte 0) declares ${MAX_DECISION + 1} bytes, over the ${MAX_DECISION} a frame of this file may hold`,
    );
  });
});

describe('the policies and records, read strictly', () => {
  /** A frame of `bytes` after the frames of `before`. */
  const withFrame = (before: Uint8Array[], bytes: Uint8Array) => encodeFrames([...before, bytes]);

  it("refuses a frame that is not its file's record, naming the file, the frame and its byte", async () => {
    const d = await archive();
    const r0 = world.records[0]!;
    // A policy where a record should be, then one byte, then a record cut short.
    const cases: [string, Uint8Array, RegExp][] = [
      [
        'records.bin',
        withFrame([r0], world.policy),
        /frame 1 \(at byte \d+\) does not read as a per-hop record \(WMH1\): malformed, WMH1, field magic/,
      ],
      [
        'records.bin',
        withFrame([r0, r0], Uint8Array.of(7)),
        /frame 2 \(at byte \d+\) does not read as a per-hop record \(WMH1\): truncated/,
      ],
      [
        'records.bin',
        withFrame([], r0.subarray(0, r0.length - 1)),
        /frame 0 \(at byte 0\) does not read as a per-hop record \(WMH1\): truncated, WMH1, field sig/,
      ],
      [
        'policies.bin',
        withFrame([world.policy], r0),
        /frame 1 \(at byte \d+\) does not read as a policy \(WSP1\): malformed, WSP1, field magic/,
      ],
    ];
    for (const [name, bytes, re] of cases) {
      writeFileSync(join(d, name), bytes);
      const m = readArchiveMaterials(d);
      const message = refusal(() => [...m.policies, ...m.records]);
      expect(message.startsWith(`${join(d, name)}: `)).toBe(true);
      expect(message).toMatch(re);
      expect(message).not.toContain('\n');
    }
    // The offset named is the frame's.
    writeFileSync(join(d, 'records.bin'), withFrame([r0], Uint8Array.of(7)));
    expect(refusal(() => [...readArchiveMaterials(d).records])).toContain(
      `frame 1 (at byte ${4 + r0.length})`,
    );
  });

  it('reads a record that breaks its rules or its signature: the audit refuses it, not the reader', async () => {
    const d = await archive();
    const bad = world.records[0]!.slice();
    bad[bad.length - 1]! ^= 1;
    writeFileSync(join(d, 'records.bin'), encodeFrames([bad]));
    expect([...readArchiveMaterials(d).records]).toEqual([bad]);
  });

  it('refuses a record frame over the largest record before reading it', async () => {
    const d = await archive();
    const head = new Uint8Array(4 + MAX_HOP_RECORD + 1);
    new DataView(head.buffer).setUint32(0, MAX_HOP_RECORD + 1, true);
    writeFileSync(join(d, 'records.bin'), head);
    expect(refusal(() => [...readArchiveMaterials(d).records])).toEqual(
      `${join(d, 'records.bin')}: frame 0 (at byte 0) declares ${MAX_HOP_RECORD + 1} bytes, over the ${MAX_HOP_RECORD} a frame of this file may hold`,
    );
  });
});
