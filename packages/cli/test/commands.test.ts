// What each command prints and writes, beyond the worked example.

import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { dashElement, hlsTag } from '@wai-steering/manifest';
import { digestOf, readPolicy, readRoom, toHex, unwrap } from '@wai-steering/wire';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../src/index.js';
import {
  buildExample,
  decideArgs,
  type Example,
  policyYaml,
  REQUEST,
  verifyArgs,
} from './example.js';
import { cli, ok, tempDir } from './helpers.js';

let ex: Example;
let dir: string;

beforeAll(async () => {
  dir = tempDir();
  ex = await buildExample(dir);
  await ok(decideArgs(), dir);
});

const hex = (name: string): string => toHex(new Uint8Array(readFileSync(join(dir, name))));

describe('keys and rooms', () => {
  it('keygen and pubkey --json', async () => {
    const made = JSON.parse(await ok(['keygen', '--out', 'k.jwk', '--json'], dir));
    expect(made.public_key).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.parse(await ok(['pubkey', 'k.jwk', '--json'], dir))).toEqual(made);
  });

  it('room create with no origin; room inspect', async () => {
    const json = JSON.parse(
      await ok(
        [
          'room',
          'create',
          '--authority',
          'authority.jwk',
          '--name',
          'Solo',
          '--out',
          'solo.wrd',
          '--json',
        ],
        dir,
      ),
    );
    expect(json).toMatchObject({
      kind: 'WRD1',
      authority: ex.keys.authority,
      origin: null,
      name: 'Solo',
    });
    const room = unwrap(readRoom(new Uint8Array(readFileSync(join(dir, 'solo.wrd')))));
    expect(room.origin).toEqual(new Uint8Array(32));
    expect(await ok(['room', 'inspect', 'solo.wrd'], dir)).toContain('origin     none');
    const withOrigin = JSON.parse(await ok(['room', 'inspect', 'room.wrd', '--json'], dir));
    expect(withOrigin).toMatchObject({
      room: ex.roomId,
      origin: ex.keys.origin,
      name: 'Concert live',
    });
    // --origin as hex gives the same descriptor as --origin as a key file.
    const id = (
      await ok(
        [
          'room',
          'create',
          '--authority',
          'authority.jwk',
          '--origin',
          ex.keys.origin!,
          '--name',
          'Concert live',
          '--out',
          'same.wrd',
        ],
        dir,
      )
    ).trim();
    expect(id).toBe(ex.roomId);
  });

  it('keylog inspect, and add replacing the grants of an active key', async () => {
    const json = JSON.parse(await ok(['keylog', 'inspect', 'keylog-2.wkl', '--json'], dir));
    expect(json.seq).toBe('2');
    expect(json.entries.find((e: { key: string }) => e.key === ex.keys['hop-old']).status).toBe(
      'revoked',
    );
    await ok(
      [
        'keylog',
        'add',
        '--origin',
        'origin.jwk',
        '--log',
        'keylog-2.wkl',
        '--key',
        ex.keys.steer!,
        '--may-sign',
        'live/steer,energy/ModelBased,energy/OnChipCounter,live/steer',
        '--out',
        'keylog-3.wkl',
      ],
      dir,
    );
    const next = JSON.parse(await ok(['keylog', 'inspect', 'keylog-3.wkl', '--json'], dir));
    expect(next.entries.length).toBe(json.entries.length);
    expect(next.entries.find((e: { key: string }) => e.key === ex.keys.steer).may_sign).toEqual([
      'energy/ModelBased',
      'energy/OnChipCounter',
      'live/steer',
    ]);
    expect(await ok(['keylog', 'inspect', 'keylog-3.wkl'], dir)).toMatch(
      /^key log {4}[0-9a-f]{64}\norigin /,
    );
  });
});

describe('the mappings', () => {
  it("hls-tag and dash-element: the line's bytes, a newline only on a terminal", async () => {
    const policy = unwrap(readPolicy(new Uint8Array(readFileSync(join(dir, 'policy.wsp')))));
    const piped = await cli(['hls-tag', 'policy.wsp'], dir);
    expect(piped.stdout).toBe(hlsTag(policy));
    const tty = await cli(['hls-tag', 'policy.wsp'], dir, { tty: true });
    expect(tty.stdout).toBe(`${hlsTag(policy)}\n`);
    const dash = await cli(['dash-element', 'policy.wsp'], dir);
    expect(dash.stdout).toBe(dashElement(policy));
    expect(dash.stdout).toBe(
      '<ContentSteering defaultServiceLocation="cdn-a" queryBeforeStart="false">https://steer.example.com/steer</ContentSteering>',
    );
    await ok(['dash-element', 'policy.wsp', '--out', 'element.xml'], dir);
    expect(readFileSync(join(dir, 'element.xml'), 'utf8')).toBe(dash.stdout);
  });

  it('query_before_start and an & in the server URI (§8.3: &amp;)', async () => {
    const yaml = policyYaml(ex.keys, 'query_before_start: true\n').replace(
      'server_uri: https://steer.example.com/steer',
      'server_uri: https://steer.example.com/steer?a=1&b=2',
    );
    writeFileSync(join(dir, 'qbs.yaml'), yaml);
    await ok(['policy', 'compile', 'qbs.yaml', '--key', 'steer.jwk', '--out', 'qbs.wsp'], dir);
    expect((await cli(['dash-element', 'qbs.wsp'], dir)).stdout).toBe(
      '<ContentSteering defaultServiceLocation="cdn-a" queryBeforeStart="true">https://steer.example.com/steer?a=1&amp;b=2</ContentSteering>',
    );
  });
});

describe('decide and verify', () => {
  it('decide --json', async () => {
    const json = JSON.parse(await ok([...decideArgs('d2.wsd', 'm2.json'), '--json'], dir));
    expect(json).toMatchObject({
      priority: ['cdn-b', 'cdn-b-eu', 'cdn-a'],
      ttl: 300,
      reason: 'rank',
    });
    expect(json.manifest).toBe(readFileSync(join(dir, 'm2.json'), 'utf8'));
    expect(json.uri).toBe(`https://steer.example.com/decisions/${json.digest}`);
  });

  it('decide skips records that do not read or are of another room', async () => {
    const { cpSync } = await import('node:fs');
    cpSync(join(dir, 'records'), join(dir, 'records-x'), { recursive: true });
    writeFileSync(join(dir, 'records-x', '0-junk.bin'), 'not a record');
    writeFileSync(join(dir, 'records-x', '1-room.wrd'), readFileSync(join(dir, 'room.wrd')));
    const a = (
      await ok(
        decideArgs('x.wsd', 'x.json').map((s) => (s === 'records' ? 'records-x' : s)),
        dir,
      )
    ).trim();
    expect(hex('x.wsd')).toBe(hex('decision.wsd'));
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    const v = await cli(
      [...verifyArgs('x.wsd', 'x.json').map((s) => (s === 'records' ? 'records-x' : s)), '--json'],
      dir,
    );
    expect(v.code).toBe(0);
  });

  it('a client with a short buffer is held (reason buffer, min TTL)', async () => {
    writeFileSync(
      join(dir, 'short.json'),
      JSON.stringify({ ...REQUEST, target: '/steer?_HLS_pathway=cdn-a&CMCD=bl%3D1000' }),
    );
    const args = decideArgs('short.wsd', 'short-m.json').map((s) =>
      s === 'request.json' ? 'short.json' : s,
    );
    await ok(args, dir);
    const v = JSON.parse(await ok([...verifyArgs('short.wsd', 'short-m.json'), '--json'], dir));
    expect(v).toMatchObject({
      outcome: 'accept',
      reason: 'buffer',
      ttl: 30,
      priority: ['cdn-a', 'cdn-b', 'cdn-b-eu'],
    });
    const text = await ok(verifyArgs('short.wsd', 'short-m.json'), dir);
    expect(text).toContain("reason   buffer: the client's buffer is below min_buffer");
  });

  it('decision inspect', async () => {
    const json = JSON.parse(await ok(['decision', 'inspect', 'decision.wsd', '--json'], dir));
    expect(json).toMatchObject({
      kind: 'WSD1',
      t: '10500000',
      ttl: 300,
      reason: 5,
      priority: [1, 2, 0],
    });
    expect(json.pathways[0].evidence.length).toBe(4);
    expect(await ok(['decision', 'inspect', 'decision.wsd'], dir)).toContain(
      'report     pathway #1, throughput 5000000 bit/s, buffer 12 s',
    );
  });
});

describe('conformance', () => {
  const corpus = () => ({
    version: 1,
    requests: [
      {
        name: 'hls',
        policy: hex('policy.wsp'),
        request: REQUEST,
        report: { pathway: 0, throughput: '5000000', buffer: '12000' },
      },
    ],
    vectors: [
      {
        name: 'accept',
        room: hex('room.wrd'),
        key_log: hex('keylog-2.wkl'),
        policy: hex('policy.wsp'),
        decision: hex('decision.wsd'),
        records: readdirSync(join(dir, 'records'))
          .filter((f) => f.endsWith('.wmh'))
          .sort()
          .map((f) => hex(join('records', f))),
        manifest: readFileSync(join(dir, 'manifest.json'), 'utf8'),
        hls_tag:
          '#EXT-X-CONTENT-STEERING:SERVER-URI="https://steer.example.com/steer",PATHWAY-ID="cdn-a"',
        outcome: JSON.parse(readFileSync(join(dir, 'outcome.json'), 'utf8')),
      },
    ],
  });

  it('passes a corpus (exit 0) and fails a wrong one (exit 1), naming the case', async () => {
    writeFileSync(join(dir, 'outcome.json'), await ok([...verifyArgs(), '--json'], dir));
    writeFileSync(join(dir, 'corpus.json'), JSON.stringify(corpus()));
    const r = await cli(['conformance', '--vectors', 'corpus.json'], dir);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain('requests  1/1 give their report');
    expect(r.stdout).toContain('vectors   1/1 give their outcome (1 accepted, 0 refused)');
    expect(r.stdout).toContain('result    PASS');
    const json = JSON.parse(await ok(['conformance', '--vectors', 'corpus.json', '--json'], dir));
    expect(json.failures).toEqual([]);

    const wrong = corpus();
    wrong.vectors[0]!.outcome.ttl = 301;
    wrong.requests[0]!.report.buffer = '1';
    writeFileSync(join(dir, 'wrong.json'), JSON.stringify(wrong));
    const f = await cli(['conformance', '--vectors', 'wrong.json'], dir);
    expect(f.code).toBe(1);
    expect(f.stdout).toContain('result    FAIL: 2 case(s)');
    expect(f.stdout).toContain('  request hls: report');
    expect(f.stdout).toContain('  vector accept: outcome');
  });

  it("finds the repository's corpus when there is one", async () => {
    const { existsSync } = await import('node:fs');
    const { REPO_DIR } = await import('./paths.js');
    if (!existsSync(join(REPO_DIR, 'conformance', 'vectors.json'))) {
      const r = await cli(['conformance'], dir);
      // From a temporary directory, the search falls back to the package's own repository.
      expect(r.stderr).toMatch(/no conformance\/vectors\.json found|^$/);
      return;
    }
    // The corpus's own results are the packages'; the command's are its summary and exit code.
    const r = await cli(['conformance'], dir);
    expect(r.stdout).toMatch(/^corpus {4}.*conformance\/vectors\.json\nrequests {2}\d+\/\d+ /);
    expect(r.code).toBe(r.stdout.includes('result    PASS') ? 0 : 1);
  });
});

describe('serve, and verify --url', () => {
  it('starts the server, answers, verifies over HTTP, stops on the stop signal', async () => {
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const base = `http://127.0.0.1:${port}`;
    const yaml = policyYaml(ex.keys)
      .replace('server_uri: https://steer.example.com/steer', `server_uri: ${base}/steer`)
      .replace('reload_uri: https://steer.example.com/steer', `reload_uri: ${base}/steer`)
      .replace(
        'decision_uri: https://steer.example.com/decisions/',
        `decision_uri: ${base}/decisions/`,
      );
    writeFileSync(join(dir, 'local.yaml'), yaml);
    await ok(['policy', 'compile', 'local.yaml', '--key', 'steer.jwk', '--out', 'local.wsp'], dir);
    writeFileSync(
      join(dir, 'server.yaml'),
      `room: room.wrd\nkeyLog: live.wkl\npolicy: local.wsp\nsigningKey: steer.jwk\nlisten: { host: 127.0.0.1, port: ${port} }\nstore: { path: ":memory:" }\n`,
    );
    writeFileSync(join(dir, 'live.wkl'), readFileSync(join(dir, 'keylog-2.wkl')));
    let stop: (() => Promise<void>) | undefined;
    let err = '';
    const serving = main(['serve', '--config', 'server.yaml'], {
      cwd: dir,
      stdout: { write: () => true },
      stderr: {
        write(s: string | Uint8Array) {
          err += String(s);
          return true;
        },
      },
      onStop(fn) {
        stop = fn;
      },
    });
    // A start on a busy machine takes seconds: a generous ceiling (60 s).
    for (let i = 0; i < 1200 && !err.includes('serving at'); i++)
      await new Promise((r) => setTimeout(r, 50));
    expect(err).toContain(`wai-steer: serving at ${base}`);
    const v = await cli(['verify', '--url', `${base}/steer?_HLS_pathway=cdn-a`, '--json'], dir);
    expect(v.code, v.stderr).toBe(0);
    expect(JSON.parse(v.stdout)).toMatchObject({ outcome: 'accept' });
    const text = await cli(['verify', '--url', `${base}/steer`], dir);
    expect(text.stdout).toMatch(/^ACCEPTED decision/);
    const room = unwrap(readRoom(readFileSync(join(dir, 'room.wrd'))));
    const pinnedId = toHex(digestOf(room));
    expect(text.stdout).toContain(`room     ${pinnedId} (named by the decision;`);
    expect(text.stdout).toContain(`authority ${toHex(room.authority)}\n`);
    const pinned = await cli(['verify', '--url', `${base}/steer`, '--room-id', pinnedId], dir);
    expect(pinned.code, pinned.stderr).toBe(0);
    expect(pinned.stdout).toContain(`room     ${pinnedId} (pinned by --room-id)`);
    const elsewhere = await cli(
      ['verify', '--url', `${base}/steer`, '--room-id', 'ab'.repeat(32)],
      dir,
    );
    // The server serves another room: said so, a refusal (exit 1).
    expect(elsewhere.code).toBe(1);
    expect(elsewhere.stderr).toContain(
      `this server serves room ${pinnedId}, not ${'ab'.repeat(32)}: its decision is of room ${pinnedId}, and it has no room ${'ab'.repeat(32)} (GET ${base}/rooms/${'ab'.repeat(32)}/descriptor: HTTP 404); check --room-id`,
    );
    const badPin = await cli(['verify', '--url', `${base}/steer`, '--room-id', 'abc'], dir);
    expect(badPin.code).toBe(2);
    expect(badPin.stderr).toContain('--room-id: expected 64 hexadecimal digits');

    // SIGHUP: the key log file is read again; the server then serves the new head.
    const roomId = toHex(digestOf(unwrap(readRoom(readFileSync(join(dir, 'room.wrd'))))));
    const served = async () =>
      new Uint8Array(await (await fetch(`${base}/rooms/${roomId}/key-log`)).arrayBuffer());
    expect(toHex(await served())).toBe(toHex(readFileSync(join(dir, 'keylog-2.wkl'))));
    await ok(['keygen', '--out', 'late-hop.jwk'], dir);
    await ok(
      [
        'keylog',
        'add',
        '--origin',
        'origin.jwk',
        '--log',
        'live.wkl',
        '--key',
        'late-hop.jwk',
      ].concat(['--may-sign', 'live/hop', '--out', 'live-3.wkl']),
      dir,
    );
    const head3 = readFileSync(join(dir, 'live-3.wkl'));
    writeFileSync(join(dir, 'live.wkl'), head3);
    process.emit('SIGHUP');
    // The new head is kept in the store before it is served: the reload answers asynchronously.
    await vi.waitFor(() => expect(err).toContain('wai-steer: key log read again'));
    expect(toHex(await served())).toBe(toHex(head3));
    // A head that does not verify is refused with a warning, and the one in use stays.
    writeFileSync(join(dir, 'live.wkl'), 'not a key log');
    process.emit('SIGHUP');
    await vi.waitFor(() => expect(err).toMatch(/the key log or the policy was not reloaded/));
    // The file is named, and what is wrong with it said once (not blamed on the room).
    const said = err.split('\n').find((l) => l.includes('not reloaded')) ?? '';
    expect(said).toMatch(/key_log: .*live\.wkl is not a key log head \(WKL1\): /);
    expect(said).not.toMatch(/room does not verify/);
    expect(said.match(/malformed/g)?.length ?? 0).toBeLessThanOrEqual(1);
    expect(toHex(await served())).toBe(toHex(head3));
    // The older head put back (a rollback, companion C4): refused, the one in use stays.
    writeFileSync(join(dir, 'live.wkl'), readFileSync(join(dir, 'keylog-2.wkl')));
    process.emit('SIGHUP');
    await vi.waitFor(() =>
      expect(err).toMatch(
        /the key log or the policy was not reloaded: key_log: the head in .* was not taken: its seq \d+ is not after the head in use/,
      ),
    );
    expect(toHex(await served())).toBe(toHex(head3));
    expect(await cli(['verify', '--url', `${base}/steer`, '--json'], dir)).toMatchObject({
      code: 0,
    });
    writeFileSync(join(dir, 'live.wkl'), head3);

    // SIGHUP with a new policy in the file: put in force without a restart; decisions name it,
    // and the one before stays served by digest.
    const before = JSON.parse(
      (await cli(['verify', '--url', `${base}/steer`, '--json'], dir)).stdout,
    ) as { digest: string };
    writeFileSync(join(dir, 'local-2.yaml'), yaml.replace('latency: 40ms', 'latency: 45ms'));
    await ok(
      ['policy', 'compile', 'local-2.yaml', '--key', 'steer.jwk', '--out', 'local.wsp'],
      dir,
    );
    process.emit('SIGHUP');
    await vi.waitFor(() => expect(err).toMatch(/policy now [0-9a-f]{64}/));
    const now = /policy now ([0-9a-f]{64})/.exec(err)![1]!;
    expect(toHex(digestOf(unwrap(readPolicy(readFileSync(join(dir, 'local.wsp'))))))).toBe(now);
    const after = await cli(['verify', '--url', `${base}/steer`, '--json'], dir);
    expect(after.code, after.stderr).toBe(0);
    const decided = await fetch(
      `${base}/decisions/${(JSON.parse(after.stdout) as { digest: string }).digest}`,
    );
    const bytes = new Uint8Array(await decided.arrayBuffer());
    // §7.1: the policy digest follows magic, version, room and signer.
    expect(toHex(bytes.subarray(69, 101))).toBe(now);
    expect((await fetch(`${base}/decisions/${before.digest}`)).status).toBe(200);

    await stop!();
    expect(await serving).toBe(0);
  });

  it('refuses a bad store at start as a user error naming store.path', async () => {
    mkdirSync(join(dir, 'a-directory'), { recursive: true });
    const cases: [string, RegExp][] = [
      ['a-directory', /store\.path: .*a-directory is a directory, not a store file/],
      ['missing.sqlite', /store\.path: .*missing\.sqlite does not exist: .*--init/],
      ['not-a-store.sqlite', /store\.path: .*not-a-store\.sqlite is not a SQLite database/],
    ];
    writeFileSync(join(dir, 'not-a-store.sqlite'), 'random bytes '.repeat(500));
    for (const [path, message] of cases) {
      writeFileSync(
        join(dir, 'bad-store.yaml'),
        `room: room.wrd\nkeyLog: keylog-2.wkl\npolicy: local.wsp\nsigningKey: steer.jwk\nlisten: { host: 127.0.0.1, port: 0 }\nstore: { path: ${path} }\n`,
      );
      const r = await cli(['serve', '--config', 'bad-store.yaml'], dir);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr).not.toMatch(/bug|internal/);
    }
  });
});

describe('demo', () => {
  it('starts a demo room, its server and hops, prints the steering URL, and stops', async () => {
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const dir = tempDir();
    let stop: (() => Promise<void>) | undefined;
    let out = '';
    // Periods of 2 s (a lag of 500 ms): a hop's record reaches the server within its lag even when
    // the machine's cores are busy.
    const running = main(['demo', '--dir', 'd', '--port', String(port), '--period', '2s'], {
      cwd: dir,
      stdout: {
        write(s: string | Uint8Array) {
          out += String(s);
          return true;
        },
      },
      stderr: { write: () => true },
      onStop(fn) {
        stop = fn;
      },
    });
    await vi.waitFor(() => expect(out).toContain('Steering URL: '), { timeout: 60_000 });
    const url = /Steering URL: (\S+)/.exec(out)![1]!;
    expect(url).toBe(`http://127.0.0.1:${port}/steer`);
    // The operator console, printed beside the steering URL, is served.
    expect(out).toContain(`Console:      http://127.0.0.1:${port}/console/`);
    expect(out).toContain(`Energy:       http://127.0.0.1:${port}/console/energy`);
    const page = await fetch(`http://127.0.0.1:${port}/console/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(readdirSync(join(dir, 'd'))).toContain('config.json');
    // The hops' records give figures; D carries its unit (the policy's basis, fetched too). On a
    // loaded machine a period's records may reach the server after its lag: ask again then.
    await vi.waitFor(
      async () => {
        const v = await cli(['verify', '--url', url], dir);
        expect(v.code, v.stderr).toBe(0);
        expect(v.stdout).toMatch(/figure +\d+\.\d+ J\/GB: [\d.]+ k?J over [\d.]+ [kMG]?B/);
      },
      { timeout: 180_000, interval: 1000 },
    );
    await stop!();
    expect(await running).toBe(0);
  }, 300_000);

  it('refuses a bad flag value in one line', async () => {
    const r = await cli(['demo', '--port', '65536'], tempDir());
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'wai-steer: demo: --port: expected an integer from 0 to 65535, got "65536"\n',
    );
  });

  it('documents its flags in --help', async () => {
    const r = await cli(['demo', '--help'], tempDir());
    expect(r.code).toBe(0);
    for (const flag of [
      '--dir DIR',
      '--host HOST',
      '--port PORT',
      '--period DURATION',
      '--verbose',
    ]) {
      expect(r.stdout).toContain(flag);
    }
  });
});

describe('verify --url, when the network fails', () => {
  it('names the cause in one line, exit 2', async () => {
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const r = await cli(['verify', '--url', `http://127.0.0.1:${port}/steer`], tempDir());
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `wai-steer: verify --url http://127.0.0.1:${port}/steer: GET http://127.0.0.1:${port}/steer: fetch failed (ECONNREFUSED 127.0.0.1:${port})\n`,
    );
  });
});

describe('serve --workers', () => {
  it('refuses a count that is not 1 to 256 or auto, and a store that cannot be shared', async () => {
    const dir = tempDir();
    for (const bad of ['0', '257', 'two', '1.5']) {
      const r = await cli(['serve', '--config', 'server.yaml', '--workers', bad], dir);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/--workers: expected a number of workers from 1 to 256, or "auto"/);
    }
    writeFileSync(
      join(dir, 'server.yaml'),
      'room: r.wrd\npolicy: p.wsp\nsigningKey: k.jwk\nstore:\n  path: ":memory:"\n',
    );
    const r = await cli(['serve', '--config', 'server.yaml', '--workers', '2'], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/store\.path: ":memory:" cannot be shared by --workers/);
  });
});
