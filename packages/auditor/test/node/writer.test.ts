// The archive writer: what it writes reads back as it was given (the materials and the decisions,
// in order), the decisions in ascending t, the log in whole entries, and the files it owes.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { ArchiveError, type ArchiveMeta } from '../../src/archive.js';
import { decisionFrames, readArchiveMaterials } from '../../src/node/materials.js';
import { ArchiveWriter } from '../../src/node/writer.js';
import { makeWorld, tempDir } from '../helpers/world.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 25);
const META: ArchiveMeta = { room: 'ab'.repeat(32), grace_s: 10 };

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function dir(): string {
  const t = tempDir();
  cleanups.push(t.remove);
  return t.dir;
}

async function collect(it: AsyncIterable<Uint8Array>): Promise<Uint8Array[]> {
  const out: Uint8Array[] = [];
  for await (const x of it) out.push(x.slice());
  return out;
}

// Records that read (the reader is strict): a world's, and copies whose signature is wrong (a
// record that reads and does not verify is the audit's to refuse, not the reader's).
const world = makeWorld(2);
const flipped = (b: Uint8Array): Uint8Array => {
  const c = b.slice();
  c[c.length - 1]! ^= 1;
  return c;
};
const policies = fc.array(fc.constantFrom(world.policy, flipped(world.policy)), { maxLength: 6 });
const records = fc.array(
  fc.constantFrom(...world.records.slice(0, 8), flipped(world.records[0]!)),
  { maxLength: 6 },
);

describe('ArchiveWriter', () => {
  it('writes what reads back: the meta, room, key log, policies, records and decisions in order', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ minLength: 1, maxLength: 64 }),
        fc.option(fc.uint8Array({ minLength: 1, maxLength: 64 })),
        policies,
        records,
        fc.array(fc.uint8Array({ minLength: 1, maxLength: 3000 }), { maxLength: 800 }),
        async (room, keyLog, policies, recs, decisions) => {
          const d = dir();
          const w = await ArchiveWriter.create(d, { meta: META, room, keyLog, policies });
          for (const x of decisions) await w.add(x);
          w.writeRecords(recs);
          await w.close();
          expect(w.decisions).toEqual(decisions.length);
          const m = readArchiveMaterials(d);
          expect({ ...m, policies: [...m.policies], records: [...m.records] }).toEqual({
            meta: META,
            room,
            keyLog,
            checkpoint: null,
            policies,
            records: recs,
          });
          expect(await collect(decisionFrames(d))).toEqual(decisions);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('refuses a decision below the one before it, in one line', async () => {
    const w = await ArchiveWriter.create(dir(), {
      meta: META,
      room: Uint8Array.of(1),
      keyLog: null,
    });
    await w.add(Uint8Array.of(1), 5n);
    await w.add(Uint8Array.of(2), 5n);
    await w.add(Uint8Array.of(3));
    await expect(w.add(Uint8Array.of(4), 4n)).rejects.toThrow(
      new ArchiveError('a decision at 4 comes after one at 5: not in ascending t'),
    );
    await w.close();
    expect(w.decisions).toEqual(3);
  });

  it('writes empty policies and records when given none, and removes a key log not given', async () => {
    const d = dir();
    writeFileSync(join(d, 'key-log.wkl'), Uint8Array.of(9));
    const w = await ArchiveWriter.create(d, { meta: META, room: Uint8Array.of(1), keyLog: null });
    await w.close();
    expect(existsSync(join(d, 'key-log.wkl'))).toEqual(false);
    expect(readFileSync(join(d, 'policies.bin')).length).toEqual(0);
    expect(readFileSync(join(d, 'records.bin')).length).toEqual(0);
    expect(readFileSync(join(d, 'decisions.bin')).length).toEqual(0);
  });

  it('writes the log in whole entries, refuses a partial one, and removes it', async () => {
    const d = dir();
    const w = await ArchiveWriter.create(d, { meta: META, room: Uint8Array.of(1), keyLog: null });
    const entries = Uint8Array.from({ length: 120 }, (_, i) => i);
    expect(
      await w.writeLog('a checkpoint\n', [entries.subarray(0, 80), entries.subarray(80)]),
    ).toEqual(3);
    expect(readFileSync(join(d, 'checkpoint'), 'utf8')).toEqual('a checkpoint\n');
    expect(new Uint8Array(readFileSync(join(d, 'log-entries.bin')))).toEqual(entries);
    await expect(w.writeLog('a checkpoint\n', [new Uint8Array(41)])).rejects.toThrow(
      new TypeError('writeLog: give whole entries'),
    );
    w.removeLog();
    expect([existsSync(join(d, 'checkpoint')), existsSync(join(d, 'log-entries.bin'))]).toEqual([
      false,
      false,
    ]);
    await w.close();
  });

  it('rewrites archive.json, layout keys first', async () => {
    const d = dir();
    const w = await ArchiveWriter.create(d, { meta: META, room: Uint8Array.of(1), keyLog: null });
    w.writeMeta({ span: { from: '1', to: '2' }, ...META, log: { origin: 'o' } });
    await w.close();
    const text = readFileSync(join(d, 'archive.json'), 'utf8');
    expect(Object.keys(JSON.parse(text))).toEqual(['room', 'grace_s', 'span', 'log']);
  });
});
