// The pool of worker threads (the built `dist/worker.js`): each batch's verdicts, in the order
// asked, are what this thread's verifier gives; a worker that cannot read the archive says why.
import { toHex } from '@wai-steering/wire';
import { nodeBackend } from '@wai-steering/wire/node';
import { afterEach, describe, expect, it } from 'vitest';
import { ArchiveError } from '../../../src/archive.js';
import { VerifyPool } from '../../../src/node/internal/pool.js';
import { readArchiveMaterials } from '../../../src/node/materials.js';
import { DecisionVerifier } from '../../../src/verdict.js';
import { makeWorld, SimServer, sessionOf, T0, tempDir, writeArchive } from '../../helpers/world.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

describe('VerifyPool', () => {
  const world = makeWorld(6);
  const sim = new SimServer(world);
  for (let i = 0; i < 40; i++) sim.decide(T0 + BigInt(i) * 100_000n, sessionOf(i));

  it("gives each batch this thread's verdicts, in the order asked, tampered ones refused", async () => {
    const { dir, remove } = tempDir();
    cleanups.push(remove);
    await writeArchive(
      dir,
      world,
      sim.made.map((m) => m.bytes),
    );
    const decisions = sim.made.map((m) => m.bytes.slice());
    decisions[5]![decisions[5]!.length - 1]! ^= 1;
    decisions[33] = Uint8Array.of(1, 2, 3);
    const local = new DecisionVerifier({
      ...readArchiveMaterials(dir),
      roomId: world.roomId,
      backend: nodeBackend,
    });
    const expected = decisions.map((d) => local.verify(d));
    expect(expected.filter((v) => !v.accepted).length).toEqual(2);
    const pool = new VerifyPool(2, dir, toHex(world.roomId));
    cleanups.push(() => pool.close());
    const batches = [decisions.slice(0, 7), decisions.slice(7, 30), decisions.slice(30)];
    const got = await Promise.all(batches.map((b) => pool.verify(b)));
    expect(got.flat()).toEqual(expected);
  });

  it("answers a batch with the worker's error when it cannot read the archive", async () => {
    const { dir, remove } = tempDir();
    cleanups.push(remove);
    const pool = new VerifyPool(1, dir, toHex(world.roomId));
    cleanups.push(() => pool.close());
    const answer = pool.verify([sim.made[0]!.bytes]);
    await expect(answer).rejects.toThrow(ArchiveError);
    await expect(answer).rejects.toThrow(/archive\.json: cannot read \(ENOENT\)/);
  });
});
