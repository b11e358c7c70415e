// `wai-steer doctor`: a setup with every deliberate mistake of a new operator's first day planted
// gives one list with each problem and its fix (exit 1); the same setup put right gives none
// (exit 0). The store holds real records, posted to a real server on the room clock, under a
// policy of 5-minute periods so that the window holds still while the test reads it.
import { chmodSync, copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig, startServer } from '@wai-steering/server';
import { jwkToKeyPair, signHopRecord } from '@wai-steering/wire';
import { nodeBackend } from '@wai-steering/wire/node';
import { beforeAll, describe, expect, it } from 'vitest';
import { cli, freePort, ok, tempDir } from './helpers.js';
import { REPO_DIR } from './paths.js';

const P = 300_000_000n; // 5 min
const L = 1_000_000n;
const KEYS = [
  'authority',
  'origin',
  'steer',
  'hop-a-edge',
  'hop-a-mid',
  'hop-b-edge',
  'hop-c-edge',
];

interface Setup {
  readonly dir: string;
  readonly port: number;
  /** The window's end in use while the test runs, µs. */
  readonly b: bigint;
}

/** Waits, if need be, until the window in use holds for a minute more (a clock, not a sleep). */
async function steadyWindow(): Promise<bigint> {
  for (;;) {
    const now = BigInt(Date.now()) * 1000n;
    const into = (now - L) % P;
    if (into < P - 60_000_000n) return ((now - L) / P) * P;
    await new Promise((r) => setTimeout(r, Number((P - into) / 1000n) + 50));
  }
}

/**
 * A room, a key log listing `listed` hops (each with energy/OnChipCounter), a policy of 5-minute
 * periods whose URIs name `uriPort`, a config listening on `port`, a store with the records
 * `post` makes.
 */
async function makeSetup(o: {
  listed: readonly string[];
  uriPort?: number;
  keyMode: number;
  records: (b: bigint) => { hop: string; start: bigint; end: bigint; bytes: bigint }[];
}): Promise<Setup> {
  const dir = tempDir();
  const ex = join(REPO_DIR, 'examples');
  for (const k of KEYS) {
    copyFileSync(join(ex, 'keys', `${k}.jwk`), join(dir, `${k}.jwk`));
    chmodSync(join(dir, `${k}.jwk`), k === 'steer' ? o.keyMode : 0o600);
  }
  const port = await freePort();
  const uriPort = o.uriPort ?? port;
  await ok(
    ['room', 'create', '--authority', 'authority.jwk', '--origin', 'origin.jwk'].concat([
      '--name',
      'Doctor',
      '--out',
      'room.wrd',
    ]),
    dir,
  );
  const entries = ['authority.jwk=live/room', 'steer.jwk=live/steer,energy/OnChipCounter'].concat(
    o.listed.map((h) => `${h}.jwk=live/hop,energy/OnChipCounter`),
  );
  await ok(
    ['keylog', 'create', '--origin', 'origin.jwk']
      .concat(entries.flatMap((e) => ['--entry', e]))
      .concat(['--out', 'keylog.wkl']),
    dir,
  );
  writeFileSync(
    join(dir, 'policy.yaml'),
    readFileSync(join(ex, 'policy.yaml'), 'utf8')
      .replace('period: 2s', 'period: 300s')
      .replace('window: 4s', 'window: 300s')
      .replace('lag: 500ms', 'lag: 1s')
      .replaceAll('127.0.0.1:8080', `127.0.0.1:${uriPort}`),
  );
  await ok(['policy', 'compile', 'policy.yaml', '--key', 'steer.jwk', '--out', 'policy.wsp'], dir);
  writeFileSync(
    join(dir, 'server.yaml'),
    `room: room.wrd\nkey_log: keylog.wkl\npolicy: policy.wsp\nsigning_key: steer.jwk\nlisten: { host: 127.0.0.1, port: ${port} }\nstore: { path: steering.sqlite }\n`,
  );
  const b = await steadyWindow();
  // The store, made by the server itself, with the hops' records posted to it.
  const config = loadConfig(join(dir, 'server.yaml'));
  const server = await startServer(
    { ...config, listen: { host: '127.0.0.1', port: 0 } },
    { init: true },
  );
  const room = new Uint8Array(server.engine.room.roomId);
  for (const r of o.records(b)) {
    const key = jwkToKeyPair(JSON.parse(readFileSync(join(dir, `${r.hop}.jwk`), 'utf8')));
    const bytes = signHopRecord(
      {
        room,
        hop: key.publicKey,
        start: r.start,
        end: r.end,
        sessions: 3,
        class: 4,
        joules: 71_000_000n,
        subscriber_us: [0n, 0n, 0n, 0n, 0n, 0n, 0n, 0n],
        tracks: r.bytes === 0n ? [] : [{ track: 1, kind: 1, direction: 2, bytes: r.bytes }],
      },
      key.secretKey!,
      { backend: nodeBackend },
    );
    const res = await fetch(`${server.url}/records`, { method: 'POST', body: bytes });
    expect(res.status, `${r.hop}: ${await res.text()}`).toBe(201);
  }
  await server.close();
  return { dir, port, b };
}

/** A fake powercap tree (one RAPL zone) and an empty nginx log, for a hop agent's sources. */
function sources(dir: string): { rapl: string; log: string } {
  const rapl = join(dir, 'powercap');
  mkdirSync(join(rapl, 'intel-rapl:0'), { recursive: true });
  writeFileSync(join(rapl, 'intel-rapl:0', 'energy_uj'), '1000\n');
  writeFileSync(join(rapl, 'intel-rapl:0', 'max_energy_range_uj'), '262143328850\n');
  const log = join(dir, 'wai-steering.log');
  writeFileSync(log, '');
  return { rapl, log };
}

describe('wai-steer doctor', () => {
  let planted: Setup;
  let good: Setup;

  beforeAll(async () => {
    planted = await makeSetup({
      // hop-c-edge is not in the key log: cdn-b-eu can never have a figure.
      listed: ['hop-a-edge', 'hop-a-mid', 'hop-b-edge'],
      // The policy names port 8080; the server listens elsewhere.
      uriPort: 8080,
      // The steering key copied as the README's cp left it.
      keyMode: 0o644,
      records: (b) => [
        // cdn-a: both hops report the window, but the edge states no bytes (traffic: none).
        { hop: 'hop-a-edge', start: b - P, end: b, bytes: 0n },
        { hop: 'hop-a-mid', start: b - P, end: b, bytes: 0n },
        // cdn-b: its edge's last record is 7 hours old.
        { hop: 'hop-b-edge', start: b - 85n * P, end: b - 84n * P, bytes: 5_000_000n },
      ],
    });
    const s = sources(planted.dir);
    // A hop agent with a model (its key log entry lacks energy/ModelBased) and no traffic source.
    writeFileSync(
      join(planted.dir, 'hop-a.yaml'),
      `room: room.wrd\nkey_log: keylog.wkl\nkey: hop-a-edge.jwk\npolicy: policy.wsp\nservers: [http://127.0.0.1:${planted.port}]\nspool: spool-a\nenergy: { source: model, idle_watts: 35, nanojoules_per_byte: 60 }\n`,
    );
    // A hop config with three problems at once.
    writeFileSync(
      join(planted.dir, 'hop-b.yaml'),
      `room: room.wrd\nkey_log: keylog.wkl\nkey: hop-b-edge.jwk\nservers: []\nspol: spool-b\nenergy: { source: rapl, root: ${s.rapl} }\n`,
    );
    good = await makeSetup({
      listed: ['hop-a-edge', 'hop-a-mid', 'hop-b-edge', 'hop-c-edge'],
      keyMode: 0o600,
      records: (b) =>
        ['hop-a-edge', 'hop-a-mid', 'hop-b-edge', 'hop-c-edge'].map((hop) => ({
          hop,
          start: b - P,
          end: b,
          bytes: hop === 'hop-a-mid' ? 0n : 9_000_000n,
        })),
    });
    const g = sources(good.dir);
    writeFileSync(
      join(good.dir, 'hop-a.yaml'),
      `room: room.wrd\nkey_log: keylog.wkl\nkey: hop-a-edge.jwk\npolicy: policy.wsp\nservers: [http://127.0.0.1:${good.port}]\nspool: spool-a\nenergy: { source: rapl, root: ${g.rapl} }\ntraffic: { source: nginx, log: ${g.log}, routes: [{ match: "^/", track: 1, kind: media }] }\n`,
    );
  }, 300_000);

  it('finds every planted mistake in one run, each with its fix, and exits 1', async () => {
    const r = await cli(
      ['doctor', '--config', 'server.yaml', '--hop', 'hop-a.yaml', '--hop', 'hop-b.yaml'],
      planted.dir,
    );
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toBe('');
    const out = r.stdout;
    const problems = out.split('\n').filter((l) => l.startsWith('PROBLEM '));
    const expected: RegExp[] = [
      // The policy's URIs against the listen address (port 8080, listening elsewhere).
      new RegExp(
        `uris: the policy's server_uri http://127\\.0\\.0\\.1:8080/steer is port 8080, but the server listens on 127\\.0\\.0\\.1:${planted.port}`,
      ),
      /uris: the policy's reload_uri /,
      /uris: the policy's decision_uri /,
      // hop-a.yaml: a model the key log does not grant, and no traffic source on an edge hop.
      /hop .*hop-a\.yaml: .*does not grant energy\/ModelBased for the configured class/,
      /hop .*hop-a\.yaml: traffic: none on an edge hop: its records state no bytes, so cdn-a is empty/,
      // hop-b.yaml: every problem of the file.
      /hop .*hop-b\.yaml: spol: unknown field \(did you mean "spool"\?\)/,
      /hop .*hop-b\.yaml: servers: expected at least one steering server/,
      /hop .*hop-b\.yaml: spool: missing/,
      // The steering key readable by others.
      /keys: signing_key .*steer\.jwk is mode 0644: readable by every user of this machine/,
      // The key log: cdn-b-eu's hop not listed; hop-a-edge without energy/ModelBased.
      /key log: pathway cdn-a, hop 1 .*does not grant energy\/ModelBased/,
      /key log: pathway cdn-b-eu, hop 1 .*does not list the hop's key .*can never have a figure/,
      // Each hop's last record.
      /hops: cdn-b hop 1 .*: late: its last record .*ended 7 h( \d+ min)? ago/,
      /hops: cdn-b-eu hop 1 .*: no record in the store/,
      // Each pathway's status, and why.
      /pathways: empty: cdn-a: its records state 142 J over the window .*no media bytes sent out/,
      /pathways: stale: cdn-b: hop 1 .*no record for/,
      /pathways: stale: cdn-b-eu: hop 1 .*no record for/,
    ];
    for (const e of expected) {
      expect(
        problems.filter((p) => e.test(p)),
        `${e}\n${out}`,
      ).toHaveLength(1);
    }
    expect(problems).toHaveLength(expected.length);
    // Each problem is followed by its fix.
    const lines = out.split('\n');
    lines.forEach((l, i) => {
      if (l.startsWith('PROBLEM ')) expect(lines[i + 1], l).toMatch(/^ {9}fix: \S/);
    });
    expect(out).toMatch(/fix: chmod 600 .*steer\.jwk/);
    expect(out).toMatch(
      /fix: the origin adds it: `wai-steer keylog add --origin ORIGIN\.jwk --log .*keylog\.wkl --key a3f0ee03[0-9a-f]{56} --may-sign live\/hop --out NEXT\.wkl`/,
    );
    expect(out).toMatch(/fix: give each edge hop's agent a traffic source/);
    // What passed and what could not be checked are said too; the last line adds it up.
    expect(out).toMatch(/^ok {7}store: .*steering\.sqlite opens and checks$/m);
    expect(out).toMatch(
      /^note {5}server: nothing answers at http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\)/m,
    );
    expect(out.trimEnd().split('\n').at(-1)).toBe(
      `${expected.length} problems: each with its fix above`,
    );
    // The same findings as JSON.
    const j = await cli(
      ['doctor', '--config', 'server.yaml', '--hop', 'hop-a.yaml', '--hop', 'hop-b.yaml', '--json'],
      planted.dir,
    );
    expect(j.code).toBe(1);
    const json = JSON.parse(j.stdout);
    expect([json.ok, json.problems]).toEqual([false, expected.length]);
    expect(
      json.findings
        .filter((f: { level: string }) => f.level === 'problem')
        .every((f: { fix?: string }) => typeof f.fix === 'string'),
    ).toBe(true);
  });

  it('a wrong port and a missing key log: both found, by doctor and by serve', async () => {
    writeFileSync(
      join(planted.dir, 'nokeylog.yaml'),
      readFileSync(join(planted.dir, 'server.yaml'), 'utf8').replace('keylog.wkl', 'keylog-2.wkl'),
    );
    const d = await cli(['doctor', '--config', 'nokeylog.yaml'], planted.dir);
    expect(d.code).toBe(1);
    expect(d.stdout).toMatch(
      /^PROBLEM {2}materials: key_log: cannot read .*keylog-2\.wkl: no such file or directory/m,
    );
    expect(d.stdout).toMatch(/^PROBLEM {2}uris: the policy's server_uri .* is port 8080/m);
    const s = await cli(['serve', '--config', 'nokeylog.yaml'], planted.dir);
    expect(s.code).toBe(2);
    expect(s.stderr).toMatch(
      /^wai-steer: server config .*nokeylog\.yaml: key_log: cannot read .*keylog-2\.wkl: no such file or directory .*; the policy's server_uri .* is port 8080, .*: players and verifiers would ask elsewhere/,
    );
  });

  it('finds nothing wrong in a good setup, and exits 0', async () => {
    const r = await cli(['doctor', '--config', 'server.yaml', '--hop', 'hop-a.yaml'], good.dir);
    expect(
      r.stdout.split('\n').filter((l) => l.startsWith('PROBLEM ') || l.startsWith('warning ')),
    ).toEqual([]);
    expect(r.code, r.stdout).toBe(0);
    expect(r.stdout).toMatch(/^ok {7}pathways: cdn-a: a figure over the window in use$/m);
    expect(r.stdout).toMatch(/^ok {7}key log: every hop of the policy \(4\) is listed/m);
    expect(r.stdout.trimEnd().split('\n').at(-1)).toMatch(/^all is well \(\d+ checks passed\)$/);
  });

  it('needs a config or a hop config', async () => {
    const r = await cli(['doctor'], good.dir);
    expect([r.code, r.stderr]).toEqual([
      2,
      "wai-steer: doctor: give --config FILE (the server's config), --hop FILE, or both\n",
    ]);
  });
});
