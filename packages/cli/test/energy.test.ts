// The energy account end to end on the demo server (its hops on the documented power model):
// `archive export` carries every record of the span's hops and the server's signed statement;
// `wai-steer audit` recomputes the account and agrees with an honest statement, finds one whose
// saving was raised by 1 µJ and re-signed, and refuses one whose signature is broken;
// `wai-steer energy` states the same account from the archive and from the server, and
// `wai-steer energy verify` checks a statement.
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeFrames } from '@wai-steering/auditor';
import { accountFromJson, type EnergyAccountJson, signStatement } from '@wai-steering/energy';
import { ed25519Signer } from '@wai-steering/tlog';
import { digestOf, readDecision, readHopRecord, toHex, unwrap } from '@wai-steering/wire';
import { nodeBackend } from '@wai-steering/wire/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningDemo, runDemo } from '../src/internal/demo.js';
import { cli, expectUserError, freePort, tempDir } from './helpers.js';

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** `sessions` players asking `rounds` times each, reloading as a player does. */
async function load(steeringUrl: string, sessions: number, rounds: number): Promise<void> {
  await Promise.all(
    Array.from({ length: sessions }, async (_, n) => {
      let url = `${steeringUrl}?_HLS_throughput=${3_000_000 + n * 150_000}`;
      for (let r = 0; r < rounds; r++) {
        const res = await fetch(url);
        expect(res.status).toBe(200);
        const m = (await res.json()) as { 'RELOAD-URI': string; 'PATHWAY-PRIORITY': string[] };
        url = `${m['RELOAD-URI']}&_HLS_pathway="${m['PATHWAY-PRIORITY'][0]}"`;
        await sleep(50 + ((n * 37 + r * 11) % 100));
      }
    }),
  );
}

/** The account line of a statement (its canonical JSON). */
function statedLine(dir: string): string {
  return readFileSync(join(dir, 'energy-statement'), 'utf8').split('\n')[1]!;
}

describe('the energy account of the demo server, exported and audited', () => {
  let demo: RunningDemo;
  let dir: string;
  let roomId: string;
  let base: string;
  /** An instant after the first load: a mid-log export starts there. */
  let middle: bigint;

  beforeAll(async () => {
    dir = tempDir();
    // Each period the hops have settled (told once every hop's agent has sent its record).
    let posted = 0;
    let lastEnd = 0n;
    demo = await runDemo({
      dir: join(dir, 'demo'),
      port: await freePort(),
      periodMs: 200,
      onPeriod: (end) => {
        posted++;
        if (end > lastEnd) lastEnd = end;
      },
    });
    roomId = toHex(demo.setup.roomId);
    base = demo.server.url;
    const engine = demo.server.engine;
    // Players from the start (their decisions need no fresh evidence for the account).
    await load(demo.steeringUrl, 8, 6);
    middle = engine.now();
    await load(demo.steeringUrl, 8, 6);
    // Enough periods for the marginal view (30 usable), and 10 periods past TTL + grace after
    // `middle` (a mid-log export's account starts there): waited for as the hops post them
    // (however late a busy machine makes them), not for a time.
    const P = demo.setup.policy.period_us;
    const F = ((middle + 20_000_000n + P - 1n) / P) * P;
    // Every hop's record of the period [F + 9P, F + 10P) at the server.
    const hops = demo.setup.hops.length;
    const held = async () => {
      const res = await fetch(`${base}/records?from=${F + 9n * P}&to=${F + 10n * P}`);
      return ((await res.json()) as { records: string[] }).records.length;
    };
    const enough = async () => posted >= 45 && lastEnd >= F + 10n * P && (await held()) >= hops;
    for (let i = 0; i < 6000 && !(await enough()); i++) await sleep(100);
    expect(await enough()).toBe(true);
  }, 900_000);
  afterAll(async () => {
    await demo?.close();
  });

  it('exports every record of the span’s hops (one no decision names among them) and the server’s statement', {
    timeout: 300_000,
  }, async () => {
    const out = join(dir, 'archive');
    const r = await cli(
      ['archive', 'export', '--url', base, '--room-id', roomId, '--out', out],
      dir,
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/the energy statement of .* as the server serves it\n$/);
    const named = new Set<string>();
    for (const d of decodeFrames(new Uint8Array(readFileSync(join(out, 'decisions.bin'))))) {
      for (const p of unwrap(readDecision(d)).pathways)
        for (const e of p.evidence) named.add(toHex(e));
    }
    const held = decodeFrames(new Uint8Array(readFileSync(join(out, 'records.bin')))).map((b) =>
      unwrap(readHopRecord(b)),
    );
    const digests = new Set(held.map((x) => toHex(digestOf(x, nodeBackend))));
    // (On a busy machine the hops' records may reach no decision's window: then none is named.)
    for (const d of named) expect(digests.has(d), d).toBe(true);
    // Records no decision names: those of periods no window of a decision reached.
    expect([...digests].filter((d) => !named.has(d)).length).toBeGreaterThan(0);
    // Every record the server holds over the span is there, up to where every hop had reported
    // when it was exported (the account's end).
    const span = JSON.parse(readFileSync(join(out, 'archive.json'), 'utf8')).span;
    const reported = BigInt((JSON.parse(statedLine(out)) as EnergyAccountJson).to);
    let after = '0';
    let listed = 0;
    for (;;) {
      const page = (await (
        await fetch(`${base}/records?from=${span.from}&to=${span.to}&after=${after}`)
      ).json()) as { records: string[]; next: string | null };
      for (const b of page.records) {
        const rec = unwrap(readHopRecord(new Uint8Array(Buffer.from(b, 'base64'))));
        if (rec.end <= reported) {
          expect(digests.has(toHex(digestOf(rec, nodeBackend)))).toBe(true);
          listed++;
        }
      }
      if (page.next === null) break;
      after = page.next;
    }
    expect(listed).toBeGreaterThan(named.size);
  });

  it('audits clean, its statement agreeing; energy states the same account from the archive, the statement and the server', {
    timeout: 300_000,
  }, async () => {
    const out = join(dir, 'archive');
    const r = await cli(['audit', '--archive', out, '--room-id', roomId, '--json'], dir);
    expect(r.code, r.stdout).toBe(0);
    const result = JSON.parse(r.stdout);
    expect(result.findings).toBe(0);
    expect(result.energy_statement).toBe('agrees');
    expect(result.energy_why).toBeNull();
    const line = statedLine(out);
    expect(result.energy).toEqual(JSON.parse(line));
    // Both views stated: the marginal saving is not null, the sessions placed counted.
    expect(result.energy.saved_marginal_uj).not.toBeNull();
    expect(result.energy.pathways[0].sessions_placed).not.toBe('0');
    const own = await cli(['energy', '--archive', out, '--json'], dir);
    expect(own.code, own.stderr).toBe(0);
    expect(own.stdout).toBe(`${line}\n`);
    expect(own.stderr).toMatch(/^wai-steer: the archive's span of whole periods: /);
    const verified = await cli(
      [
        'energy',
        'verify',
        join(out, 'energy-statement'),
        '--room-id',
        roomId,
        '--archive',
        out,
        '--json',
      ],
      dir,
    );
    expect(verified.code, verified.stderr).toBe(0);
    expect(verified.stdout).toBe(`${line}\n`);
    const a = JSON.parse(line) as EnergyAccountJson;
    const served = await cli(
      ['energy', '--url', base, '--room-id', roomId, '--from', a.from, '--to', a.to, '--json'],
      dir,
    );
    expect(served.code, served.stderr).toBe(0);
    expect(served.stdout).toBe(`${line}\n`);
    // The table: each pathway, the savings with their sign, the method.
    const table = await cli(['energy', '--archive', out], dir);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^pathway +periods +unusable +energy +delivery +average/m);
    // Energy in Wh and its multiples, in J below a mWh (a saving near zero is).
    const E = '(?:J|[mkMG]?Wh)';
    expect(table.stdout).toMatch(
      new RegExp(`^cdn-a +\\d+ +\\d+ +[\\d.]+ ${E} +[\\d.]+ [kMG]?B +[\\d.]+ Wh/GB `, 'm'),
    );
    expect(table.stdout).toMatch(/^cdn-b-east +0 +\d+ .* too_few_periods /m);
    expect(table.stdout).toMatch(new RegExp(`^saved, average view: +[+-]?[\\d.]+ ${E}$`, 'm'));
    expect(table.stdout).toMatch(
      new RegExp(`^saved, marginal view: [+-]?[\\d.]+ ${E}, 95 % interval \\[`, 'm'),
    );
    expect(table.stdout).toMatch(/^method: /m);
    const summary = await cli(['audit', '--archive', out, '--room-id', roomId], dir);
    expect(summary.stdout).toContain("statement: the server's statement agrees");
  });

  it('finds a statement whose marginal saving was raised by 1 µJ and re-signed by the steering key', {
    timeout: 300_000,
  }, async () => {
    const out = join(dir, 'raised');
    cpSync(join(dir, 'archive'), out, { recursive: true });
    const stated = accountFromJson(JSON.parse(statedLine(out)));
    const origin = JSON.parse(readFileSync(join(out, 'archive.json'), 'utf8')).log.origin;
    const raised = { ...stated, saved_marginal_uj: stated.saved_marginal_uj! + 1n };
    const signer = ed25519Signer(origin, demo.setup.steering.secretKey, nodeBackend);
    writeFileSync(join(out, 'energy-statement'), signStatement(raised, signer));
    // Its signature is good: only its content differs.
    const v = await cli(
      ['energy', 'verify', join(out, 'energy-statement'), '--room-id', roomId, '--url', base],
      dir,
    );
    expect(v.code, v.stderr).toBe(0);
    expect(v.stdout).toMatch(/^statement: signature verified/);
    const r = await cli(['audit', '--archive', out, '--room-id', roomId, '--json'], dir);
    expect(r.code).toBe(1);
    const result = JSON.parse(r.stdout);
    expect(result.energy_statement).toEqual({ differs: ['/saved_marginal_uj'] });
    expect(result.findings).toBe(1);
    const text = await cli(['audit', '--archive', out, '--room-id', roomId], dir);
    expect(text.stdout).toContain("the server's statement DIFFERS at /saved_marginal_uj");
  });

  it('refuses a statement whose signature is broken: the audit exits 2, energy verify 1', async () => {
    const out = join(dir, 'broken');
    cpSync(join(dir, 'archive'), out, { recursive: true });
    const note = readFileSync(join(out, 'energy-statement'), 'utf8');
    const at = note.lastIndexOf('\n') - 3;
    writeFileSync(
      join(out, 'energy-statement'),
      note.slice(0, at) + (note[at] === 'A' ? 'B' : 'A') + note.slice(at + 1),
    );
    const audit = await cli(['audit', '--archive', out, '--room-id', roomId], dir);
    expectUserError(
      audit,
      /energy-statement: a signature by a key of the room does not verify .*\(bad_signature\)/,
    );
    const file = join(out, 'energy-statement');
    const v = await cli(['energy', 'verify', file, '--room-id', roomId, '--archive', out], dir);
    expectUserError(v, /a signature by a key of the room does not verify \(bad_signature\)\n$/, 1);
  });

  it('signs the statement here over --config; a mid-log span agrees too (sessions placed before it replayed)', {
    timeout: 300_000,
  }, async () => {
    const out = join(dir, 'from-store');
    const r = await cli(
      ['archive', 'export', '--config', demo.setup.configPath, '--out', out],
      dir,
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/the energy statement of .* signed here with the steering key\n$/);
    const a = JSON.parse(
      (await cli(['audit', '--archive', out, '--room-id', roomId, '--json'], dir)).stdout,
    );
    expect([a.findings, a.energy_statement]).toEqual([0, 'agrees']);
    // From the middle of the log, over HTTP: the server's statement counts the sessions placed
    // before the account's span, as the audit does from the archive.
    const mid = join(dir, 'middle');
    const m = await cli(
      [
        'archive',
        'export',
        '--url',
        base,
        '--room-id',
        roomId,
        '--out',
        mid,
        '--from',
        String(middle),
      ],
      dir,
    );
    expect(m.code, m.stderr).toBe(0);
    expect(m.stderr).toMatch(/the energy statement of .* as the server serves it\n$/);
    const audited = JSON.parse(
      (await cli(['audit', '--archive', mid, '--room-id', roomId, '--json'], dir)).stdout,
    );
    expect(audited.energy_statement, m.stderr).toBe('agrees');
    expect(BigInt(audited.energy.from)).toBeGreaterThanOrEqual(middle + 20_000_000n);
  });

  it('says what is wrong in one line', async () => {
    const out = join(dir, 'archive');
    const a = JSON.parse(statedLine(out)) as EnergyAccountJson;
    expectUserError(
      await cli(
        ['energy', '--archive', out, '--from', String(BigInt(a.from) + 1n), '--to', a.to],
        dir,
      ),
      /is not a multiple of the policy's period of 200000 µs: a span is whole periods/,
    );
    expectUserError(
      await cli(['energy', '--url', base, '--room-id', 'ab'.repeat(32)], dir),
      /does not serve the room abab/,
    );
    expectUserError(
      await cli(['energy', '--room-id', roomId], dir),
      /give --url SERVER or --archive DIR/,
    );
    expectUserError(await cli(['energy', '--url', base], dir), /--url needs --room-id/);
    expectUserError(
      await cli(['energy', '--archive', out, '--room-id', 'ab'.repeat(32)], dir),
      /is of the room .*, not --room-id abab/,
    );
    writeFileSync(join(dir, 'junk'), 'not a note\n');
    expectUserError(
      await cli(
        ['energy', 'verify', join(dir, 'junk'), '--room-id', roomId, '--archive', out],
        dir,
      ),
      /not a statement of the energy account/,
    );
    expectUserError(
      await cli(['energy', 'verify', join(out, 'energy-statement')], dir),
      /give --room-id HEX with --url SERVER or --archive DIR/,
    );
  });
});
