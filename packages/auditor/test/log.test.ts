// The decision log an archive carries: the checkpoint held to the room, the entries to the
// checkpoint's root, and the decisions to the entries (withheld, unlogged).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  ed25519Signer,
  encodeEntry,
  formatTlogProof,
  leafHash,
  rootOf,
  signCheckpoint,
} from '@wai-steering/tlog';
import { openRoom } from '@wai-steering/verifier';
import { toHex, unwrap } from '@wai-steering/wire';
import { nodeBackend } from '@wai-steering/wire/node';
import { afterEach, describe, expect, it } from 'vitest';
import { auditJson } from '../src/audit.js';
import { renderHtml } from '../src/html.js';
import { ArchiveLog, openRoomCheckpoint, roomLogKeys, verifyDecisionProof } from '../src/log.js';
import { ArchiveWriter, auditArchive } from '../src/node.js';
import {
  keys,
  type Made,
  makeWorld,
  pub,
  SimServer,
  sessionOf,
  T0,
  tempDir,
  type World,
} from './helpers/world.js';

const ORIGIN = 'steer.example/log';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function decide(world: World, n: number): Made[] {
  const server = new SimServer(world);
  for (let i = 0; i < n; i++) server.decide(T0 + BigInt(i) * 250_000n, sessionOf(i % 7));
  return server.made;
}

function entriesOf(made: readonly Made[]): Uint8Array[] {
  return made.map((m) => encodeEntry({ t: m.t, digest: Buffer.from(m.digest, 'hex') }));
}

function checkpointOf(entries: readonly Uint8Array[], key = keys.steer, origin = ORIGIN): string {
  const root = rootOf(
    entries.map((e) => leafHash(e, nodeBackend)),
    nodeBackend,
  );
  return signCheckpoint({ origin, size: BigInt(entries.length), root, extensions: [] }, [
    ed25519Signer(origin, key, nodeBackend),
  ]);
}

/** An archive of `decisions` carrying `checkpoint` and `entries` (or no log). */
async function archive(
  world: World,
  decisions: readonly Made[],
  log?: { checkpoint: string; entries: readonly Uint8Array[]; span?: [bigint, bigint] },
): Promise<string> {
  const { dir, remove } = tempDir();
  cleanups.push(remove);
  const meta = {
    room: toHex(world.roomId),
    grace_s: 10,
    ...(log === undefined ? {} : { log: { origin: ORIGIN } }),
    ...(log?.span === undefined
      ? {}
      : { span: { from: log.span[0].toString(), to: log.span[1].toString() } }),
  };
  const w = await ArchiveWriter.create(dir, {
    meta,
    room: world.room,
    keyLog: world.keyLog,
    policies: [world.policy],
    records: world.records,
  });
  for (const d of decisions) await w.add(d.bytes, d.t);
  if (log !== undefined) await w.writeLog(log.checkpoint, [Buffer.concat(log.entries)]);
  await w.close();
  return dir;
}

async function auditOf(dir: string, world: World) {
  const a = await auditArchive(dir, { roomId: world.roomId, loadTolerance: 0 });
  a.dispose();
  return a.result;
}

describe('roomLogKeys', () => {
  it('are the authority and the live/steer keys not revoked, under the origin', () => {
    const world = makeWorld(4);
    const ctx = unwrap(openRoom(world.room, world.keyLog));
    const keysOf = roomLogKeys(ctx, ORIGIN, nodeBackend).map((k) => toHex(k.publicKey));
    expect(keysOf.sort()).toEqual([toHex(pub(keys.authority)), toHex(pub(keys.steer))].sort());
  });

  it('are none for an origin that cannot be a key name', () => {
    const world = makeWorld(4);
    const ctx = unwrap(openRoom(world.room, world.keyLog));
    expect(roomLogKeys(ctx, 'a b', nodeBackend)).toEqual([]);
  });
});

describe('openRoomCheckpoint', () => {
  const world = makeWorld(4);
  const ctx = unwrap(openRoom(world.room, world.keyLog));
  const entries = [encodeEntry({ t: 1n, digest: new Uint8Array(32) })];

  it('opens a checkpoint the steering key signed, naming the signer', () => {
    const r = openRoomCheckpoint(checkpointOf(entries), ctx, { backend: nodeBackend });
    expect(r.ok && toHex(r.value.signer)).toEqual(toHex(pub(keys.steer)));
    expect(r.ok && r.value.checkpoint.size).toEqual(1n);
  });

  it('refuses one a hop signed, one of another origin, and text that is no note', () => {
    const hop = openRoomCheckpoint(checkpointOf(entries, keys.hops[0]!), ctx);
    expect(hop.ok ? '' : hop.message).toMatch(/not signed under its origin by a key that may sign/);
    const other = openRoomCheckpoint(checkpointOf(entries), ctx, { origin: 'other.example/log' });
    expect(other.ok ? '' : other.message).toMatch(/is of the log "steer.example\/log", not/);
    const junk = openRoomCheckpoint('hello\n', ctx);
    expect(junk.ok ? '' : junk.message).toMatch(/does not read/);
  });
});

describe('the audit of an archive carrying the log', () => {
  it('is clean when the log holds exactly the decisions', async () => {
    const world = makeWorld(8);
    const made = decide(world, 24);
    const entries = entriesOf(made);
    const dir = await archive(world, made, { checkpoint: checkpointOf(entries), entries });
    const r = await auditOf(dir, world);
    expect(r.log).toEqual({
      origin: ORIGIN,
      size: 24,
      root: Buffer.from(rootOf(entries.map((e) => leafHash(e, nodeBackend)))).toString('base64'),
      withheld: [],
      unlogged: [],
    });
    expect(r.findings).toEqual(0);
    const json = JSON.parse(auditJson(r)) as Record<string, unknown>;
    expect(Object.keys(json).slice(-4)).toEqual(['log', 'duplicated', 'energy', 'energy_why']);
  });

  it('says a decision the archive lacks is withheld, with its index in the log', async () => {
    const world = makeWorld(8);
    const made = decide(world, 20);
    const entries = entriesOf(made);
    const kept = made.filter((_, i) => i !== 7);
    const dir = await archive(world, kept, { checkpoint: checkpointOf(entries), entries });
    const r = await auditOf(dir, world);
    expect(r.log?.withheld).toEqual([
      { digest: made[7]!.digest, t: made[7]!.t.toString(), index: 7 },
    ]);
    expect(r.log?.unlogged).toEqual([]);
    expect(r.findings).toBeGreaterThanOrEqual(1);
  });

  it('the HTML report lists the withheld decision, and says when the log was not checked', async () => {
    const world = makeWorld(8);
    const made = decide(world, 6);
    const entries = entriesOf(made);
    const dir = await archive(world, made.slice(1), { checkpoint: checkpointOf(entries), entries });
    const a = await auditArchive(dir, { roomId: world.roomId });
    a.dispose();
    const html = renderHtml(a.result, a.series);
    expect(html).toMatch(
      new RegExp(`<h3>Withheld</h3>\\n<table>.*<td>${made[0]!.digest}</td><td>0</td>`),
    );
    expect(html).toContain('<dt>Withheld</dt><dd>1 ');
    const bare = await auditArchive(await archive(world, made), { roomId: world.roomId });
    bare.dispose();
    expect(renderHtml(bare.result, bare.series)).toContain('The archive carries no checkpoint');
  });

  it('withholds only entries of the audited span', async () => {
    const world = makeWorld(8);
    const made = decide(world, 20);
    const entries = entriesOf(made);
    // The archive's span is decisions 5 … 14; the log holds all 20.
    const span: [bigint, bigint] = [made[5]!.t, made[15]!.t];
    const dir = await archive(world, made.slice(5, 15), {
      checkpoint: checkpointOf(entries),
      entries,
      span,
    });
    const r = await auditOf(dir, world);
    expect(r.log?.withheld).toEqual([]);
    expect(r.log?.unlogged).toEqual([]);
  });

  it('says a decision the log lacks is unlogged, in or out of the span', async () => {
    const world = makeWorld(8);
    const made = decide(world, 20);
    const entries = entriesOf(made).filter((_, i) => i !== 3 && i !== 18);
    const span: [bigint, bigint] = [0n, made[15]!.t];
    const dir = await archive(world, made, { checkpoint: checkpointOf(entries), entries, span });
    const r = await auditOf(dir, world);
    expect(r.log?.unlogged).toEqual(
      [3, 18].map((i) => ({ digest: made[i]!.digest, t: made[i]!.t.toString() })),
    );
    expect(r.log?.withheld).toEqual([]);
  });

  it('is an input error when the checkpoint is not signed by a key of the room', async () => {
    const world = makeWorld(8);
    const made = decide(world, 10);
    const entries = entriesOf(made);
    const dir = await archive(world, made, {
      checkpoint: checkpointOf(entries, keys.hops[1]!),
      entries,
    });
    await expect(auditOf(dir, world)).rejects.toThrow(
      /checkpoint: the checkpoint of steer.example\/log is not signed under its origin by a key that may sign the room's decisions$/,
    );
  });

  it('is an input error when the entries do not give the checkpoint root', async () => {
    const world = makeWorld(8);
    const made = decide(world, 10);
    const entries = entriesOf(made);
    const swapped = [entries[1]!, entries[0]!, ...entries.slice(2)];
    const dir = await archive(world, made, { checkpoint: checkpointOf(entries), entries: swapped });
    await expect(auditOf(dir, world)).rejects.toThrow(
      /log-entries.bin: the root of its 10 entries is not the checkpoint's/,
    );
    // One entry short: refused before any is hashed.
    writeFileSync(join(dir, 'log-entries.bin'), Buffer.concat(entries.slice(1)));
    await expect(auditOf(dir, world)).rejects.toThrow(
      /360 bytes, but the checkpoint is of 10 entries/,
    );
  });

  it('is an input error when archive.json names another origin, or a log with no checkpoint', async () => {
    const world = makeWorld(8);
    const made = decide(world, 4);
    const entries = entriesOf(made);
    const dir = await archive(world, made, {
      checkpoint: checkpointOf(entries, keys.steer, 'elsewhere.example/log'),
      entries,
    });
    await expect(auditOf(dir, world)).rejects.toThrow(
      /is of the log "elsewhere.example\/log", not "steer.example\/log"/,
    );
    const meta = JSON.parse(readFileSync(join(dir, 'archive.json'), 'utf8')) as object;
    expect(meta).toMatchObject({ log: { origin: ORIGIN } });
  });

  it('has log null without a checkpoint', async () => {
    const world = makeWorld(8);
    const made = decide(world, 6);
    const dir = await archive(world, made);
    const r = await auditOf(dir, world);
    expect(r.log).toEqual(null);
    expect(auditJson(r)).toContain(',"log":null,"duplicated":[],"energy":');
  });
});

describe('ArchiveLog', () => {
  it('refuses a result before its entries are checked, and chunks of partial entries', () => {
    const world = makeWorld(4);
    const ctx = unwrap(openRoom(world.room, world.keyLog));
    const log = new ArchiveLog(checkpointOf([]), ctx, { from: 0n, to: 10n });
    expect(() => log.add(new Uint8Array(39))).toThrow(TypeError);
    expect(() => log.result()).toThrow(TypeError);
    log.end();
    expect(log.result().size).toEqual(0);
  });
});

describe('verifyDecisionProof', () => {
  const world = makeWorld(4);
  const ctx = unwrap(openRoom(world.room, world.keyLog));
  const decision = { t: 7n, digest: new Uint8Array(32).fill(3) };
  const entry = encodeEntry(decision);

  it("proves a decision's place against a checkpoint of the room's key", () => {
    const proof = formatTlogProof({ index: 0n, inclusion: [], checkpoint: checkpointOf([entry]) });
    const r = verifyDecisionProof(proof, ctx, decision, nodeBackend);
    expect(r.ok && { ...r.value, signer: toHex(r.value.signer) }).toEqual({
      origin: ORIGIN,
      index: 0n,
      size: 1n,
      signer: toHex(pub(keys.steer)),
    });
  });

  it('refuses the proof of another decision, of another key, or that does not read', () => {
    const proof = formatTlogProof({ index: 0n, inclusion: [], checkpoint: checkpointOf([entry]) });
    const other = verifyDecisionProof(proof, ctx, { ...decision, t: 8n }, nodeBackend);
    expect(other.ok ? '' : other.message).toMatch(/bad_proof/);
    const hop = formatTlogProof({
      index: 0n,
      inclusion: [],
      checkpoint: checkpointOf([entry], keys.hops[0]!),
    });
    const byHop = verifyDecisionProof(hop, ctx, decision, nodeBackend);
    expect(byHop.ok ? '' : byHop.message).toMatch(/not signed under its origin/);
    const junk = verifyDecisionProof('junk', ctx, decision, nodeBackend);
    expect(junk.ok ? '' : junk.message).toMatch(/^it does not read/);
  });
});
