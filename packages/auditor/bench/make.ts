// Writes a benchmark archive: the test world's room, key log, policy and records, and `n`
// decisions of `sessions` sessions asking again every 8 s (within TTL + grace, so each counts
// throughout), each signed over its window's evidence with the loads counted as a server does.

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { selectEvidence, windowAt } from '@wai-steering/evidence';
import { assembleAndSign } from '@wai-steering/rule';
import { ed25519Signer, encodeEntry, leafHash, rootOf, signCheckpoint } from '@wai-steering/tlog';
import { readDecision, toHex, unwrap } from '@wai-steering/wire';
import { nodeBackend } from '@wai-steering/wire/node';
import { ArchiveWriter, decisionFrames } from '../src/node.js';
import { keys, makeWorld, pub, sessionOf, T0 } from '../test/helpers/world.js';

export async function makeArchive(dir: string, n: number, sessions: number): Promise<number> {
  const interval = 8_000_000n;
  const spacing = (interval * 1000n) / BigInt(sessions) / 1000n; // µs between two decisions
  const seconds = Math.ceil(Number((spacing * BigInt(n)) / 1_000_000n)) + 10;
  const world = makeWorld(seconds);
  const writer = await ArchiveWriter.create(dir, {
    meta: { room: toHex(world.roomId), grace_s: 10 },
    room: world.room,
    keyLog: world.keyLog,
    policies: [world.policy],
    records: world.records,
  });
  const loads = [0, 0, 0];
  const placed = new Int8Array(sessions).fill(-1);
  let evidence: ReturnType<typeof selectEvidence> | undefined;
  let windowB = -1n;
  const signer = pub(keys.steer);
  let bytes = 0;
  for (let i = 0; i < n; i++) {
    const t = T0 + BigInt(i) * spacing;
    const s = i % sessions;
    const w = windowAt(world.policyFields, t);
    if (w.b !== windowB) {
      evidence = selectEvidence(world.policyFields, w, world.store);
      windowB = w.b;
    }
    const prev = placed[s]!;
    const signed = assembleAndSign(
      {
        signer,
        policy: world.policyFields,
        policyDigest: world.policyDigest,
        t,
        session: sessionOf(s),
        protocol: 'hls',
        report:
          prev < 0
            ? { pathway: null, throughput: null, buffer: null }
            : { pathway: prev, throughput: 5_000_000n, buffer: 20_000n },
        evidence: evidence!,
        loads,
        backend: nodeBackend,
      },
      keys.steer,
      { check: false },
    );
    const first = signed.fields.priority[0]!;
    if (prev >= 0) loads[prev]!--;
    loads[first]!++;
    placed[s] = first;
    bytes += signed.bytes.length;
    await writer.add(signed.bytes, t);
  }
  await writer.close();
  return bytes / n;
}

/**
 * Adds the decision log to the archive in `dir`: every decision's entry, in the archive's order,
 * a checkpoint of them signed by the steering key under `origin`, and archive.json's `log`.
 */
export async function addLog(dir: string, origin = 'bench.example/log'): Promise<void> {
  const entries: Uint8Array[] = [];
  for await (const f of decisionFrames(dir)) {
    const d = unwrap(readDecision(f));
    entries.push(encodeEntry({ t: d.t, digest: nodeBackend.sha256(d.body) }));
  }
  const root = rootOf(
    entries.map((e) => leafHash(e, nodeBackend)),
    nodeBackend,
  );
  const checkpoint = signCheckpoint(
    { origin, size: BigInt(entries.length), root, extensions: [] },
    [ed25519Signer(origin, keys.steer, nodeBackend)],
  );
  writeFileSync(join(dir, 'checkpoint'), checkpoint);
  writeFileSync(join(dir, 'log-entries.bin'), Buffer.concat(entries));
  const meta = JSON.parse(readFileSync(join(dir, 'archive.json'), 'utf8'));
  writeFileSync(join(dir, 'archive.json'), JSON.stringify({ ...meta, log: { origin } }));
}
