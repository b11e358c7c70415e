// The energy account in the audit: recomputed from every record and decision of the archive (in
// period order, streamed; or sorted, when records.bin is not), its statement verified against the
// room's keys and held to it to the unit (a finding when it differs; an input error when it does
// not verify), and `energy: null` with the reason when there is no account.
import { accountJson, energyAccount, signStatement, writeAccount } from '@wai-steering/energy';
import { ed25519Signer } from '@wai-steering/tlog';
import {
  digestOf,
  readDecision,
  readHopRecord,
  readPolicy,
  toHex,
  unwrap,
} from '@wai-steering/wire';
import { nodeBackend } from '@wai-steering/wire/node';
import { afterEach, describe, expect, it } from 'vitest';
import { auditJson } from '../../src/audit.js';
import { archiveSpan } from '../../src/energy.js';
import { renderHtml } from '../../src/html.js';
import { ArchiveWriter, archiveAccount, auditArchive } from '../../src/node.js';
import {
  keys,
  type Made,
  makeWorld,
  P,
  SimServer,
  sessionOf,
  T0,
  tempDir,
  W,
  type World,
} from '../helpers/world.js';

const ORIGIN = 'steer.example/log';
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function decide(world: World, n: number): Made[] {
  const server = new SimServer(world);
  for (let i = 0; i < n; i++) server.decide(T0 + BigInt(i) * 700_000n, sessionOf(i % 5));
  return server.made;
}

/** The world's records in period order (records.bin as `archive export` writes it). */
function inPeriodOrder(world: World): Uint8Array[] {
  const start = (b: Uint8Array) => unwrap(readHopRecord(b)).start;
  return [...world.records].sort((a, b) =>
    start(a) < start(b) ? -1 : start(a) > start(b) ? 1 : 0,
  );
}

async function archive(
  world: World,
  made: readonly Made[],
  o: { records?: readonly Uint8Array[]; statement?: string } = {},
): Promise<string> {
  const { dir, remove } = tempDir();
  cleanups.push(remove);
  const w = await ArchiveWriter.create(dir, {
    meta: {
      room: toHex(world.roomId),
      grace_s: 10,
    },
    room: world.room,
    keyLog: world.keyLog,
    policies: [world.policy],
    records: o.records ?? world.records,
  });
  for (const m of made) await w.add(m.bytes, m.t);
  await w.close();
  if (o.statement !== undefined) w.writeEnergyStatement(o.statement);
  return dir;
}

/** The account as the energy package computes it from everything at once (the reference). */
function reference(world: World, made: readonly Made[], from: bigint, to: bigint) {
  return energyAccount({
    policies: [{ at: made[0]!.t, policy: unwrap(readPolicy(world.policy)) }],
    from,
    to,
    graceS: 10,
    records: world.records.map((b) => {
      const record = unwrap(readHopRecord(b));
      return { record, digest: digestOf(record) };
    }),
    decisions: made.map((m) => unwrap(readDecision(m.bytes))),
  });
}

describe('the energy account of an archive', () => {
  const world = makeWorld(40);
  const made = decide(world, 30);
  // The archive's span of whole periods: its records' extent (no span in archive.json), its
  // records covering [T0 − W, T0 + 40 s).
  const from = T0 - W;
  const to = T0 + 40_000_000n;

  it('is the account of every record and decision, streamed or sorted, over the whole periods held', async () => {
    const expected = accountJson(reference(world, made, from, to));
    expect(expected.pathways.map((p) => p.periods)).toEqual([23, 23, 23]);
    const sorted = await archiveAccount(await archive(world, made));
    const streamed = await archiveAccount(
      await archive(world, made, { records: inPeriodOrder(world) }),
    );
    for (const [a, how] of [
      [sorted, false],
      [streamed, true],
    ] as const) {
      expect(a.ok).toBe(true);
      if (!a.ok) continue;
      expect(a.streamed).toBe(how);
      expect(a.defaulted).toEqual({ from: true, to: true });
      expect(accountJson(a.account)).toEqual(expected);
    }
    // Sessions were placed: the decisions count.
    expect(expected.pathways.some((p) => p.sessions_placed !== '0')).toBe(true);
  });

  it('takes the span given, and says why there is none', async () => {
    const dir = await archive(world, made, { records: inPeriodOrder(world) });
    const a = await archiveAccount(dir, { from: T0, to: T0 + 10n * P });
    expect(a.ok && accountJson(a.account)).toEqual(
      accountJson(reference(world, made, T0, T0 + 10n * P)),
    );
    const odd = await archiveAccount(dir, { from: T0 + 1n, to: T0 + 10n * P });
    expect(odd).toMatchObject({ ok: false, problem: 'not_aligned' });
    const none = await archiveAccount(await archive(world, []));
    expect(none).toMatchObject({ ok: false, problem: 'no_policy' });
  });
});

describe('the audit of the energy account', () => {
  const world = makeWorld(40);
  const made = decide(world, 30);
  const honest = reference(world, made, T0 - W, T0 + 40_000_000n);
  const signer = ed25519Signer(ORIGIN, keys.steer, nodeBackend);

  it('adds the account recomputed, and the statement agrees', async () => {
    const dir = await archive(world, made, { statement: signStatement(honest, signer) });
    const a = await auditArchive(dir, { roomId: world.roomId });
    a.dispose();
    expect(a.result.energy).toEqual(JSON.parse(writeAccount(honest)));
    expect(a.result.energy_why).toBeNull();
    expect(a.result.energy_statement).toBe('agrees');
    expect(a.result.findings).toBe(0);
    const json = auditJson(a.result);
    expect(
      json.endsWith(
        `,"energy":${writeAccount(honest)},"energy_why":null,"energy_statement":"agrees"}`,
      ),
    ).toBe(true);
    const html = renderHtml(a.result, a.series);
    expect(html).toContain('<h2>Energy account</h2>');
    expect(html).toContain('statement agrees');
    expect(html).not.toContain('<script');
  });

  it('finds a statement whose saving was raised by 1 µJ, re-signed: one finding, where it differs', async () => {
    const raised = { ...honest, saved_average_uj: honest.saved_average_uj! + 1n };
    const dir = await archive(world, made, { statement: signStatement(raised, signer) });
    const a = await auditArchive(dir, { roomId: world.roomId });
    a.dispose();
    expect(a.result.energy_statement).toEqual({ differs: ['/saved_average_uj'] });
    expect(a.result.findings).toBe(1);
    expect(renderHtml(a.result, a.series)).toContain('<code>/saved_average_uj</code>');
  });

  it('recomputes over the statement’s span', async () => {
    const part = reference(world, made, T0, T0 + 10n * P);
    const dir = await archive(world, made, { statement: signStatement(part, signer) });
    const a = await auditArchive(dir, { roomId: world.roomId });
    a.dispose();
    expect(a.result.energy).toEqual(JSON.parse(writeAccount(part)));
    expect(a.result.energy_statement).toBe('agrees');
  });

  it('refuses, as an input error, a statement whose signature does not verify or whose key is not the room’s', async () => {
    const note = signStatement(honest, signer);
    // The last signature byte's base64 digit changed: the signature no longer verifies.
    const at = note.lastIndexOf('\n') - 3;
    const broken = note.slice(0, at) + (note[at] === 'A' ? 'B' : 'A') + note.slice(at + 1);
    const bad = await archive(world, made, { statement: broken });
    await expect(auditArchive(bad, { roomId: world.roomId })).rejects.toThrow(
      /energy-statement: a signature by a key of the room does not verify under its key names \(bad_signature\)/,
    );
    const other = signStatement(honest, ed25519Signer(ORIGIN, keys.hops[0]!, nodeBackend));
    const stranger = await archive(world, made, { statement: other });
    await expect(auditArchive(stranger, { roomId: world.roomId })).rejects.toThrow(/unverified/);
    const garbage = await archive(world, made, { statement: 'not a note' });
    await expect(auditArchive(garbage, { roomId: world.roomId })).rejects.toThrow(
      /not a statement of the energy account/,
    );
  });

  it('says energy null, and why, when there is no account; a statement then differs as a whole', async () => {
    const dir = await archive(world, [], { statement: signStatement(honest, signer) });
    const a = await auditArchive(dir, { roomId: world.roomId });
    a.dispose();
    expect(a.result.energy).toBeNull();
    expect(a.result.energy_why).toMatch(/no decision of the archive names a policy/);
    expect(a.result.energy_statement).toEqual({ differs: [''] });
    expect(a.result.findings).toBe(1);
  });
});

describe('archiveSpan', () => {
  const base = {
    span: { from: 0n, to: (1n << 64n) - 1n },
    periodUs: 1_000_000n,
    lagUs: 500_000n,
    ttlS: 10,
    graceS: 5,
    first: 3_200_000n,
    last: 60_700_000n,
  };

  it('is the whole periods of the records within the span', () => {
    expect(archiveSpan(base)).toEqual({ from: 4_000_000n, to: 60_000_000n });
  });

  it('leaves out TTL + grace after a span that starts after 0, and the lag before its end', () => {
    expect(archiveSpan({ ...base, span: { from: 2_000_000n, to: 50_300_000n } })).toEqual({
      from: 17_000_000n,
      to: 49_000_000n,
    });
  });

  it('says why when no whole period is left', () => {
    expect(archiveSpan({ ...base, first: 3_200_000n, last: 3_900_000n })).toMatchObject({
      why: expect.stringMatching(/no whole period/),
    });
  });
});
