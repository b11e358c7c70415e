// The auditor on the server's own log: the demo, a load of sessions asking again and again (a
// player's reloads), exported from its store and over HTTP, audits clean; and the command line's
// errors and exit codes.
import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { cpSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeFrames, encodeFrames } from '@wai-steering/auditor';
import { ed25519Signer, leafHash, rootOf, signCheckpoint } from '@wai-steering/tlog';
import { readDecision, STATUS, toHex, unwrap } from '@wai-steering/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningDemo, runDemo } from '../src/internal/demo.js';
import { cli, expectUserError, freePort, tempDir } from './helpers.js';

const PATHWAYS = ['cdn-a', 'cdn-b', 'cdn-b-east'];
const sha256 = (b: Uint8Array) => new Uint8Array(createHash('sha256').update(b).digest());

/** The index of the entry of the decision `digest` (hex) in `log-entries.bin`'s bytes. */
function entryIndex(entries: Buffer, digest: string): number {
  for (let i = 0; i * 40 < entries.length; i++) {
    if (entries.subarray(i * 40 + 8, i * 40 + 40).toString('hex') === digest) return i;
  }
  throw new Error(`no entry of ${digest}`);
}

/** An Ed25519 JWK's secret key. */
function jwkSecret(path: string): Uint8Array {
  return new Uint8Array(Buffer.from(JSON.parse(readFileSync(path, 'utf8')).d, 'base64url'));
}

/** A checkpoint of the entries given (40 bytes each), signed by `key` under `origin`. */
function checkpointOver(entries: Buffer, origin: string, key: Uint8Array): string {
  const leaves: Uint8Array[] = [];
  for (let at = 0; at < entries.length; at += 40)
    leaves.push(leafHash(entries.subarray(at, at + 40)));
  return signCheckpoint(
    { origin, size: BigInt(leaves.length), root: rootOf(leaves), extensions: [] },
    [ed25519Signer(origin, key)],
  );
}

/** `sessions` players, each asking `rounds` times (reloading with its report), some dropping out. */
async function load(steeringUrl: string, sessions: number, rounds: number): Promise<number> {
  let decisions = 0;
  await Promise.all(
    Array.from({ length: sessions }, async (_, n) => {
      let url = `${steeringUrl}?_HLS_throughput=${3_000_000 + n * 100_000}`;
      for (let r = 0; r < rounds; r++) {
        const res = await fetch(url);
        expect(res.status).toBe(200);
        const manifest = (await res.json()) as {
          'RELOAD-URI': string;
          'PATHWAY-PRIORITY': string[];
        };
        decisions++;
        const first = manifest['PATHWAY-PRIORITY'][0]!;
        expect(PATHWAYS).toContain(first);
        url = `${manifest['RELOAD-URI']}&_HLS_pathway="${first}"&_HLS_throughput=${4_000_000 + r * 50_000}`;
        await new Promise((done) => setTimeout(done, 40 + ((n * 37 + r * 11) % 120)));
      }
    }),
  );
  return decisions;
}

describe('the demo server audited', () => {
  let demo: RunningDemo;
  let dir: string;
  let roomId: string;
  let made = 0;

  beforeAll(async () => {
    dir = tempDir();
    // Each period the hops post (a simulated agent's), the run checks whether the window is
    // covered: an event, not a clock. The demo's own period (2 s, its records due 0.5 s after
    // it): a shorter one leaves its records 0.125 s, which a busy machine's hops miss period
    // after period, and the window is then never covered.
    let periodEnded: (() => void) | undefined;
    demo = await runDemo({
      dir: join(dir, 'demo'),
      port: await freePort(),
      onPeriod: () => periodEnded?.(),
    });
    roomId = toHex(demo.setup.roomId);
    // Wait for a window of records (every pathway with a status other than stale), then a load
    // of players.
    const engine = demo.server.engine;
    const covered = () =>
      engine.evidenceAt(engine.now()).pathways.every((p) => p.status !== STATUS.stale);
    const guard = performance.now() + 600_000;
    while (!covered() && performance.now() < guard) {
      await new Promise<void>((resolve) => {
        periodEnded = resolve;
      });
    }
    expect(covered()).toBe(true);
    made = await load(demo.steeringUrl, 24, 12);
    // No deadline of its own but a guard against a hang: the setup waits for the demo to be
    // ready and for its 288 decisions to be made and committed, which a busy machine's two cores
    // take minutes over (seen: more than 120 s with a load average of 20).
  }, 900_000);
  afterAll(async () => {
    await demo?.close();
  });

  it('exported over HTTP: every decision verifies, every load replays, no findings', async () => {
    const out = join(dir, 'over-http');
    const exported = await cli(
      ['archive', 'export', '--url', demo.server.url, '--room-id', roomId, '--out', out],
      dir,
    );
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stderr).toContain(`${made} decisions`);
    const r = await cli(['audit', '--archive', out, '--room-id', roomId, '--json'], dir);
    expect(r.code, r.stdout).toBe(0);
    const result = JSON.parse(r.stdout);
    expect(result.decisions).toBe(made);
    expect(result.accepted).toBe(made);
    expect(result.sessions).toBe(24);
    expect(result.refused).toEqual([]);
    expect(result.loads.checked).toBe(made);
    expect(result.loads.inconsistent).toEqual([]);
    expect(result.findings).toBe(0);
    // The decision log: the checkpoint as served, its entries, every decision in them.
    expect(result.log).toMatchObject({ size: made, withheld: [], unlogged: [] });
    expect(readFileSync(join(out, 'log-entries.bin')).length).toBe(made * 40);
    const meta = JSON.parse(readFileSync(join(out, 'archive.json'), 'utf8'));
    expect(meta.log).toEqual({ origin: result.log.origin });
    expect(
      readFileSync(join(out, 'checkpoint'), 'utf8').startsWith(`${meta.log.origin}\n${made}\n`),
    ).toBe(true);
    // The loads were not all zero: the sessions counted, and stated so.
    const decisions = decodeFrames(new Uint8Array(readFileSync(join(out, 'decisions.bin'))));
    const most = Math.max(
      ...decisions.flatMap((d) => unwrap(readDecision(d)).pathways.map((p) => p.load)),
    );
    expect(most).toBeGreaterThan(5);
    const text = await cli(['audit', '--archive', out, '--room-id', roomId], dir);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('findings: 0');
  });

  it('exported from its store, the server running: the same log, clean, with two jobs', async () => {
    const out = join(dir, 'from-store');
    const exported = await cli(
      ['archive', 'export', '--config', demo.setup.configPath, '--out', out],
      dir,
    );
    expect(exported.code, exported.stderr).toBe(0);
    const one = JSON.parse(
      (await cli(['audit', '--archive', out, '--room-id', roomId, '--json'], dir)).stdout,
    );
    const r = await cli(
      ['audit', '--archive', out, '--room-id', roomId, '--json', '--jobs', '2'],
      dir,
    );
    expect(r.code, r.stderr).toBe(0);
    const two = JSON.parse(r.stdout);
    expect(two).toEqual(one);
    expect(two.decisions).toBe(made);
    expect(two.findings).toBe(0);
  });

  it('exports a span: --from as room clock µs, --to as an RFC 3339 time', async () => {
    const all = decodeFrames(new Uint8Array(readFileSync(join(dir, 'over-http', 'decisions.bin'))));
    const ts = all.map((d) => unwrap(readDecision(d)).t);
    const from = ts[Math.floor(ts.length / 3)]!;
    const toMs = Number(ts[Math.floor((2 * ts.length) / 3)]! / 1000n);
    const to = BigInt(toMs) * 1000n;
    const out = join(dir, 'span');
    const r = await cli(
      [
        'archive',
        'export',
        '--config',
        demo.setup.configPath,
        '--out',
        out,
        '--from',
        String(from),
        '--to',
        new Date(toMs).toISOString(),
      ],
      dir,
    );
    expect(r.code, r.stderr).toBe(0);
    const got = decodeFrames(new Uint8Array(readFileSync(join(out, 'decisions.bin'))));
    expect(got.length).toBe(ts.filter((t) => t >= from && t < to).length);
    expect(got.length).toBeGreaterThan(0);
    const a = await cli(['audit', '--archive', out, '--room-id', roomId, '--json'], dir);
    expect(JSON.parse(a.stdout).decisions).toBe(got.length);
  });

  it('audits a live server by URL, and a strict tolerance still finds nothing', async () => {
    const r = await cli(
      ['audit', '--url', demo.server.url, '--room-id', roomId, '--json', '--load-tolerance', '0'],
      dir,
    );
    expect(r.code, r.stderr).toBe(0);
    const result = JSON.parse(r.stdout);
    expect(result.decisions).toBeGreaterThanOrEqual(made);
    expect(result.findings).toBe(0);
  });

  it('takes --from and --to as every instant (now-1h, now+1m), and prints times for people', async () => {
    const r = await cli(
      ['audit', '--url', demo.server.url, '--room-id', roomId].concat([
        '--from',
        'now-1h',
        '--to',
        'now+1m',
      ]),
      dir,
    );
    expect(r.code, r.stderr).toBe(0);
    // The summary: each policy's span as RFC 3339 times to the millisecond, the grace readable.
    expect(r.stdout).toMatch(
      /^policy [0-9a-f]{64}: \d+ decisions from \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z to \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/m,
    );
    expect(r.stdout).toMatch(/^loads: \d+ decisions checked \(tolerance 2, grace \d+ s\)/m);
    const json = JSON.parse(
      (
        await cli(
          ['audit', '--url', demo.server.url, '--room-id', roomId, '--json', '--from', 'now-1h'],
          dir,
        )
      ).stdout,
    );
    expect(json.decisions).toBeGreaterThanOrEqual(made);
    expect(json.findings).toBe(0);
  });

  it('a tampered copy: exit 1, the decision refused at its place, the HTML report written', async () => {
    const src = join(dir, 'over-http');
    const out = join(dir, 'tampered');
    cpSync(src, out, { recursive: true });
    const path = join(out, 'decisions.bin');
    const file = new Uint8Array(readFileSync(path));
    const first = decodeFrames(file)[0]!;
    file[4 + first.length - 1]! ^= 1; // the first decision's last byte of sig
    writeFileSync(path, file);
    const html = join(dir, 'report.html');
    const r = await cli(
      ['audit', '--archive', out, '--room-id', roomId, '--json', '--html', html],
      dir,
    );
    expect(r.code, r.stderr).toBe(1);
    const result = JSON.parse(r.stdout);
    expect(result.refused).toHaveLength(1);
    expect(result.refused[0]).toMatchObject({ reason: 'bad_signature', where: { at: 'decision' } });
    expect(result.findings).toBe(1);
    expect(readFileSync(html, 'utf8')).toContain('bad_signature');
    const text = await cli(['audit', '--archive', out, '--room-id', roomId], dir);
    expect(text.code).toBe(1);
    expect(text.stdout).toContain('bad_signature at decision');
  });

  it('a decision frame given twice is a finding (exit 1); a frame that is not its record, exit 2', async () => {
    const src = join(dir, 'over-http');
    const frames = decodeFrames(new Uint8Array(readFileSync(join(src, 'decisions.bin'))));
    const twice = join(dir, 'twice');
    cpSync(src, twice, { recursive: true });
    writeFileSync(
      join(twice, 'decisions.bin'),
      encodeFrames([...frames.slice(0, 3), frames[2]!, ...frames.slice(3)]),
    );
    const r = await cli(['audit', '--archive', twice, '--room-id', roomId, '--json'], dir);
    expect(r.code, r.stderr).toBe(1);
    const json = JSON.parse(r.stdout);
    const digest = toHex(sha256(unwrap(readDecision(frames[2]!)).body));
    expect(json.duplicated).toEqual([
      { digest, t: unwrap(readDecision(frames[2]!)).t.toString(), frame: 3, first: 2 },
    ]);
    expect(json.findings).toBe(1);
    expect(json.log.unlogged).toEqual([]);
    const text = await cli(['audit', '--archive', twice, '--room-id', roomId], dir);
    expect(text.stdout).toContain(`duplicated ${digest}: frame 3, a copy of frame 2`);

    // A record's frame cut short, then a decision's: exit 2, the file and the frame named.
    const junk = join(dir, 'junk');
    cpSync(src, junk, { recursive: true });
    writeFileSync(join(junk, 'records.bin'), encodeFrames([Uint8Array.of(0x57, 0x4d, 0x48)]));
    expectUserError(
      await cli(['audit', '--archive', junk, '--room-id', roomId], dir),
      /records\.bin: frame 0 \(at byte 0\) does not read as a per-hop record \(WMH1\): truncated/,
    );
    cpSync(join(src, 'records.bin'), join(junk, 'records.bin'));
    const cut = frames[1]!.subarray(0, frames[1]!.length - 1);
    writeFileSync(join(junk, 'decisions.bin'), encodeFrames([frames[0]!, cut, ...frames.slice(2)]));
    for (const jobs of ['1', '2']) {
      expectUserError(
        await cli(['audit', '--archive', junk, '--room-id', roomId, '--jobs', jobs], dir),
        new RegExp(
          `decisions\\.bin: frame 1 \\(at byte ${4 + frames[0]!.length}\\) does not read as a decision \\(WSD1\\): truncated`,
        ),
      );
    }
  });

  it('the log check: a decision removed is withheld, one the log lacks unlogged, a checkpoint of another key or entries of another root exit 2', async () => {
    const src = join(dir, 'over-http');
    const frames = decodeFrames(new Uint8Array(readFileSync(join(src, 'decisions.bin'))));
    const decisions = frames.map((f) => unwrap(readDecision(f)));
    const digestOf = (i: number) => toHex(sha256(decisions[i]!.body));

    // A decision removed from the archive: the log still holds it, withheld.
    const removed = join(dir, 'removed');
    cpSync(src, removed, { recursive: true });
    writeFileSync(join(removed, 'decisions.bin'), encodeFrames(frames.filter((_, i) => i !== 3)));
    // The server's energy statement counts the decision's session too (its sessions placed): left
    // out here, this is the log's check.
    rmSync(join(removed, 'energy-statement'), { force: true });
    const w = await cli(['audit', '--archive', removed, '--room-id', roomId, '--json'], dir);
    expect(w.code, w.stderr).toBe(1);
    const wr = JSON.parse(w.stdout);
    expect(wr.log.withheld).toEqual([
      {
        digest: digestOf(3),
        t: decisions[3]!.t.toString(),
        index: entryIndex(readFileSync(join(src, 'log-entries.bin')), digestOf(3)),
      },
    ]);
    expect(wr.log.unlogged).toEqual([]);
    expect(wr.findings).toBe(1);
    const text = await cli(['audit', '--archive', removed, '--room-id', roomId], dir);
    expect(text.stdout).toMatch(
      new RegExp(
        `^  withheld ${digestOf(3)} at .*: entry \\d+ of the log, not in the archive$`,
        'm',
      ),
    );

    // A log that lacks a decision, signed by the steering key: the decision is unlogged.
    const steer = jwkSecret(join(demo.setup.dir, 'keys', 'steering.jwk'));
    const entries = readFileSync(join(src, 'log-entries.bin'));
    const index = entryIndex(entries, digestOf(5));
    const fewer = Buffer.concat([
      entries.subarray(0, index * 40),
      entries.subarray(index * 40 + 40),
    ]);
    const origin = JSON.parse(readFileSync(join(src, 'archive.json'), 'utf8')).log.origin as string;
    const unlogged = join(dir, 'unlogged');
    cpSync(src, unlogged, { recursive: true });
    writeFileSync(join(unlogged, 'log-entries.bin'), fewer);
    writeFileSync(join(unlogged, 'checkpoint'), checkpointOver(fewer, origin, steer));
    const u = await cli(['audit', '--archive', unlogged, '--room-id', roomId, '--json'], dir);
    expect(u.code, u.stderr).toBe(1);
    const ur = JSON.parse(u.stdout);
    expect(ur.log.unlogged).toEqual([{ digest: digestOf(5), t: decisions[5]!.t.toString() }]);
    expect(ur.log.withheld).toEqual([]);

    // The same checkpoint signed by a key the room does not know: exit 2, one line.
    writeFileSync(
      join(unlogged, 'checkpoint'),
      checkpointOver(fewer, origin, new Uint8Array(randomBytes(32))),
    );
    expectUserError(
      await cli(['audit', '--archive', unlogged, '--room-id', roomId], dir),
      /checkpoint: the checkpoint of .* is not signed under its origin by a key that may sign the room's decisions$/m,
    );
    // Entries whose root is not the checkpoint's: exit 2, one line.
    const swapped = join(dir, 'swapped');
    cpSync(src, swapped, { recursive: true });
    const e = Buffer.from(entries);
    e.copy(e, 0, 40, 80);
    entries.copy(e, 40, 0, 40);
    writeFileSync(join(swapped, 'log-entries.bin'), e);
    expectUserError(
      await cli(['audit', '--archive', swapped, '--room-id', roomId], dir),
      /log-entries\.bin: the root of its \d+ entries is not the checkpoint's/,
    );
  });

  it('refuses another room (exit 2, one line), and the other mistakes', async () => {
    const other = 'ab'.repeat(32);
    expectUserError(
      await cli(
        [
          'archive',
          'export',
          '--url',
          demo.server.url,
          '--room-id',
          other,
          '--out',
          join(dir, 'x'),
        ],
        dir,
      ),
      /HTTP 404|not --room-id/,
    );
    const out = join(dir, 'over-http');
    expectUserError(
      await cli(['audit', '--archive', out, '--room-id', other], dir),
      /, not (ab)+$|not abab/,
    );
    expectUserError(
      await cli(['audit', '--archive', join(dir, 'none'), '--room-id', roomId], dir),
      /not a directory/,
    );
    expectUserError(
      await cli(['audit', '--room-id', roomId], dir),
      /--archive DIR or --url SERVER/,
    );
    // Hostile files: a FIFO (never waited on), a device behind a link, a loop of links.
    const hostile = join(dir, 'hostile');
    cpSync(out, hostile, { recursive: true });
    const decisionsBin = join(hostile, 'decisions.bin');
    rmSync(decisionsBin);
    expect(spawnSync('mkfifo', [decisionsBin]).status).toBe(0);
    expectUserError(
      await cli(['audit', '--archive', hostile, '--room-id', roomId], dir),
      /decisions\.bin: a FIFO, not a regular file; .*put the file itself there/,
    );
    rmSync(decisionsBin);
    symlinkSync('/dev/zero', decisionsBin);
    expectUserError(
      await cli(['audit', '--archive', hostile, '--room-id', roomId], dir),
      /decisions\.bin: a character device, not a regular file/,
    );
    rmSync(decisionsBin);
    symlinkSync(`${decisionsBin}.other`, decisionsBin);
    symlinkSync(decisionsBin, `${decisionsBin}.other`);
    expectUserError(
      await cli(['audit', '--archive', hostile, '--room-id', roomId, '--jobs', '2'], dir),
      /decisions\.bin: a loop of symbolic links/,
    );
    expectUserError(
      await cli(['audit', '--archive', out, '--room-id', roomId, '--jobs', '0'], dir),
      /--jobs 0/,
    );
    expectUserError(
      await cli(['audit', '--archive', out, '--room-id', roomId, '--grace', 'soon'], dir),
      /--grace soon/,
    );
    expectUserError(
      await cli(
        [
          'archive',
          'export',
          '--url',
          demo.server.url,
          '--room-id',
          roomId,
          '--out',
          join(dir, 'y'),
          '--from',
          'yesterday',
        ],
        dir,
      ),
      /--from: yesterday: expected room-clock microseconds/,
    );
  });
});
