// A new operator's first hour: each row of what went wrong, as it now behaves. The worked
// example's own inputs (examples/) are used, as an operator would.
import {
  chmodSync,
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { COMMANDS } from '../src/commands/index.js';
import { main } from '../src/index.js';
import { helpOf } from '../src/internal/command.js';
import { cli, expectUserError, ok, tempDir } from './helpers.js';
import { REPO_DIR } from './paths.js';

let dir: string;
const SESSION = '00112233445566778899aabbccddeeff';
const KEYS = [
  'authority',
  'origin',
  'steer',
  'hop-a-edge',
  'hop-a-mid',
  'hop-b-edge',
  'hop-c-edge',
];

beforeAll(async () => {
  dir = tempDir();
  const ex = join(REPO_DIR, 'examples');
  for (const k of KEYS) {
    cpSync(join(ex, 'keys', `${k}.jwk`), join(dir, `${k}.jwk`));
    chmodSync(join(dir, `${k}.jwk`), 0o600); // as the docs do: a key readable by others is warned of
  }
  for (const f of ['policy.yaml', 'request.json', 'server.yaml']) cpSync(join(ex, f), join(dir, f));
  cpSync(join(ex, 'hop-json'), join(dir, 'hop-json'), { recursive: true });
  await ok(
    [
      'room',
      'create',
      '--authority',
      'authority.jwk',
      '--origin',
      'origin.jwk',
      '--name',
      'C',
      '--out',
      'room.wrd',
    ],
    dir,
  );
  const entries = ['authority.jwk=live/room', 'steer.jwk=live/steer,energy/OnChipCounter'];
  for (const h of KEYS.slice(3)) entries.push(`${h}.jwk=live/hop,energy/OnChipCounter`);
  await ok(
    [
      'keylog',
      'create',
      '--origin',
      'origin.jwk',
      ...entries.flatMap((e) => ['--entry', e]),
      '--out',
      'keylog-2.wkl',
    ],
    dir,
  );
  // server.yaml names keylog.wkl, the file the origin's current head is written over.
  cpSync(join(dir, 'keylog-2.wkl'), join(dir, 'keylog.wkl'));
  await ok(['policy', 'compile', 'policy.yaml', '--key', 'steer.jwk', '--out', 'policy.wsp'], dir);
});

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
}

/** Runs `serve` in-process until it says it serves (or exits); returns what it wrote and a stop. */
async function serve(config: string) {
  let stop: (() => Promise<void>) | undefined;
  let err = '';
  let code: number | undefined;
  const running = main(['serve', '--config', config], {
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
  }).then((c) => {
    code = c;
    return c;
  });
  // A start on a busy machine takes seconds: a generous ceiling (60 s).
  for (let i = 0; i < 2400 && code === undefined && !err.includes('serving at'); i++) {
    await new Promise((r) => setTimeout(r, 25));
  }
  return {
    err: () => err,
    code: () => code,
    async close(): Promise<number> {
      if (stop !== undefined) await stop();
      return running;
    },
  };
}

describe("the README's worked example and docs/cli.md", () => {
  it('ship every input they name under examples/ (policy, eight record JSONs, request, server config)', () => {
    const ex = join(REPO_DIR, 'examples');
    for (const f of ['policy.yaml', 'request.json', 'server.yaml', 'README.md']) {
      expect(existsSync(join(ex, f)), f).toBe(true);
    }
    for (const hop of ['a-edge', 'a-mid', 'b-edge', 'c-edge']) {
      for (const s of ['6s', '8s'])
        expect(existsSync(join(ex, 'hop-json', `${hop}-${s}.json`))).toBe(true);
    }
    // Three pathways, three loads, `mkdir records`.
    const readme = readFileSync(join(REPO_DIR, 'README.md'), 'utf8');
    expect(readme).toContain('--loads 10,20,5');
    expect(readme).toContain('mkdir records');
    expect(readFileSync(join(REPO_DIR, 'docs', 'cli.md'), 'utf8')).toContain('$ mkdir records');
  });
});

describe('period-aligned timestamps', () => {
  it('window prints [a, b), the periods to sign and their exact bounds, RFC 3339 and µs', async () => {
    const out = await ok(
      ['window', '--policy', 'policy.wsp', '--t', '1970-01-01T00:00:10.5Z'],
      dir,
    );
    expect(out).toContain(
      'window   1970-01-01T00:00:06.000Z (6000000 µs) to 1970-01-01T00:00:10.000Z (10000000 µs)',
    );
    expect(out).toContain(
      '  1970-01-01T00:00:08.000Z (8000000 µs) to 1970-01-01T00:00:10.000Z (10000000 µs)',
    );
    expect(out).toContain('next     1970-01-01T00:00:10.000Z (10000000 µs) to');
    expect(out).toContain('t        1970-01-01T00:00:10.500Z (10500000 µs)');
    expect(out).toContain('policy   period 2 s, window 4 s, lag 500 ms');
    const json = JSON.parse(
      await ok(['window', '--policy', 'policy.wsp', '--t', '10500000', '--json'], dir),
    );
    expect([json.a, json.b, json.periods.length, json.next.by]).toEqual([
      '6000000',
      '10000000',
      2,
      '12500000',
    ]);
    // The JSON is not human output: byte for byte what it always was (exact RFC 3339 times).
    expect(await ok(['window', '--policy', 'policy.wsp', '--t', '10500000', '--json'], dir)).toBe(
      `${[
        '{"t":"10500000","t_time":"1970-01-01T00:00:10.5Z","period_us":"2000000",',
        '"window_us":"4000000","lag_us":"500000","a":"6000000","b":"10000000",',
        '"a_time":"1970-01-01T00:00:06Z","b_time":"1970-01-01T00:00:10Z","periods":[',
        '{"start":"6000000","end":"8000000","start_time":"1970-01-01T00:00:06Z","end_time":"1970-01-01T00:00:08Z"},',
        '{"start":"8000000","end":"10000000","start_time":"1970-01-01T00:00:08Z","end_time":"1970-01-01T00:00:10Z"}],',
        '"next":{"start":"10000000","end":"12000000","start_time":"1970-01-01T00:00:10Z",',
        '"end_time":"1970-01-01T00:00:12Z","by":"12500000","by_time":"1970-01-01T00:00:12.5Z"}}',
      ].join('')}\n`,
    );
  });

  it('record sign --period now-1 signs the last complete period, aligned on the policy period', async () => {
    writeFileSync(
      join(dir, 'live.json'),
      JSON.stringify({ room: 'room.wrd', class: 'OnChipCounter', joules: '5' }),
    );
    const before = BigInt(Date.now()) * 1000n;
    await ok(
      [
        'record',
        'sign',
        'live.json',
        '--key',
        'hop-a-edge.jwk',
        '--period',
        'now-1',
        '--policy',
        'policy.wsp',
        '--out',
        'live.wmh',
      ],
      dir,
    );
    const after = BigInt(Date.now()) * 1000n;
    const json = JSON.parse(await ok(['record', 'inspect', 'live.wmh', '--json'], dir));
    const start = BigInt(json.start);
    const end = BigInt(json.end);
    const P = 2_000_000n;
    expect(end - start).toBe(P);
    expect(start % P).toBe(0n);
    // The last complete period: it ended by now, and the period after it had begun by then.
    expect(end <= after).toBe(true);
    expect(end + P > before).toBe(true);
    expectUserError(
      await cli(
        [
          'record',
          'sign',
          'live.json',
          '--key',
          'hop-a-edge.jwk',
          '--period',
          'now-1',
          '--out',
          'x.wmh',
        ],
        dir,
      ),
      /--period counts in the policy's period: give --policy FILE/,
    );
    expectUserError(
      await cli(
        [
          'record',
          'sign',
          'hop-json/a-edge-6s.json',
          '--key',
          'hop-a-edge.jwk',
          '--period',
          'now-1',
          '--policy',
          'policy.wsp',
          '--out',
          'x.wmh',
        ],
        dir,
      ),
      /the JSON has start or end, and --period gives them/,
    );
  });

  it('decide --t and a record JSON take readable times', async () => {
    writeFileSync(
      join(dir, 'rfc.json'),
      JSON.stringify({
        room: 'room.wrd',
        start: '1970-01-01T00:00:06Z',
        end: '1970-01-01T00:00:08Z',
        class: 4,
        joules: '1',
      }),
    );
    await ok(['record', 'sign', 'rfc.json', '--key', 'hop-a-edge.jwk', '--out', 'rfc.wmh'], dir);
    expect(await ok(['record', 'inspect', 'rfc.wmh'], dir)).toContain(
      'span       1970-01-01T00:00:06.000Z (6000000 µs) to 1970-01-01T00:00:08.000Z (8000000 µs), 2 s',
    );
    const decideAt = (t: string) =>
      cli(
        ['decide', '--room', 'room.wrd', '--policy', 'policy.wsp', '--key', 'steer.jwk']
          .concat(['--records', 'hop-json', '--request', 'request.json', '--session', SESSION])
          .concat(['--loads', '1,2,3', '--t', t, '--out-decision', `t-${t.length}.wsd`])
          .concat(['--out-manifest', `t-${t.length}.json`]),
        dir,
      );
    const byMicros = await decideAt('10500000');
    const byTime = await decideAt('1970-01-01T00:00:10.5Z');
    expect(byMicros.code, byMicros.stderr).toBe(0);
    expect(byTime.stdout).toBe(byMicros.stdout);
    expect(await ok(['decision', 'inspect', `t-${'10500000'.length}.wsd`], dir)).toContain(
      't          1970-01-01T00:00:10.500Z (10500000 µs)',
    );
    // now±D in a record's JSON: start and end read at one now.
    writeFileSync(
      join(dir, 'now.json'),
      JSON.stringify({ room: 'room.wrd', start: 'now-4s', end: 'now-2s', class: 4, joules: '1' }),
    );
    await ok(['record', 'sign', 'now.json', '--key', 'hop-a-edge.jwk', '--out', 'now.wmh'], dir);
    const signed = JSON.parse(await ok(['record', 'inspect', 'now.wmh', '--json'], dir));
    expect(BigInt(signed.end) - BigInt(signed.start)).toBe(2_000_000n);
    // And window --t now-1m.
    const before = BigInt(Date.now()) * 1000n;
    const w = JSON.parse(
      await ok(['window', '--policy', 'policy.wsp', '--t', 'now-1m', '--json'], dir),
    );
    const after = BigInt(Date.now()) * 1000n;
    const t = BigInt(w.t);
    expect(t >= before - 60_000_000n && t <= after - 60_000_000n).toBe(true);
  });
});

describe('the server listening elsewhere than the policy says', () => {
  it('serve refuses, naming each URI and the listen address', async () => {
    writeFileSync(
      join(dir, 'elsewhere.yaml'),
      readFileSync(join(dir, 'server.yaml'), 'utf8')
        .replace('port: 8080', 'port: 18082')
        .replace('steering.sqlite', '":memory:"'),
    );
    const r = await cli(['serve', '--config', 'elsewhere.yaml'], dir);
    expectUserError(
      r,
      /server_uri http:\/\/127\.0\.0\.1:8080\/steer is port 8080, but the server listens on 127\.0\.0\.1:18082; .*reload_uri.*; .*decision_uri.*set public_url/,
    );
  });

  it('with public_url (behind a proxy), the URIs are compared with it, and it starts', async () => {
    const port = await freePort();
    writeFileSync(
      join(dir, 'proxied.yaml'),
      `room: room.wrd\nkey_log: keylog-2.wkl\npolicy: policy.wsp\nsigning_key: steer.jwk\npublic_url: http://127.0.0.1:8080\nlisten: { host: 127.0.0.1, port: ${port} }\nstore: { path: ":memory:" }\n`,
    );
    const s = await serve('proxied.yaml');
    expect(s.err()).toContain(`serving at http://127.0.0.1:${port}`);
    // Every serve start: no warning for classes the room's hops cannot sign.
    expect(s.err()).not.toMatch(/warning/);
    expect(await s.close()).toBe(0);
    writeFileSync(
      join(dir, 'proxied-wrong.yaml'),
      readFileSync(join(dir, 'proxied.yaml'), 'utf8').replace(
        'http://127.0.0.1:8080',
        'https://steer.example.com',
      ),
    );
    expectUserError(
      await cli(['serve', '--config', 'proxied-wrong.yaml'], dir),
      /server_uri http:\/\/127\.0\.0\.1:8080\/steer is not under public_url https:\/\/steer\.example\.com/,
    );
  });
});

describe('start-up warnings', () => {
  it('name only the classes a hop of the room may sign', async () => {
    const entries = [
      'authority.jwk=live/room',
      'steer.jwk=live/steer,energy/OnChipCounter',
      'hop-a-edge.jwk=live/hop,energy/OnChipCounter,energy/Estimator',
    ];
    for (const h of KEYS.slice(4)) entries.push(`${h}.jwk=live/hop,energy/OnChipCounter`);
    await ok(
      [
        'keylog',
        'create',
        '--origin',
        'origin.jwk',
        ...entries.flatMap((e) => ['--entry', e]),
        '--out',
        'estimator.wkl',
      ],
      dir,
    );
    const port = await freePort();
    writeFileSync(
      join(dir, 'estimator.yaml'),
      `room: room.wrd\nkey_log: estimator.wkl\npolicy: policy.wsp\nsigning_key: steer.jwk\npublic_url: http://127.0.0.1:8080\nlisten: { host: 127.0.0.1, port: ${port} }\nstore: { path: ":memory:" }\n`,
    );
    const s = await serve('estimator.yaml');
    const warnings = s
      .err()
      .split('\n')
      .filter((l) => l.includes('warning'));
    expect(warnings).toEqual([
      'wai-steer: warning: the steering key lacks energy/Estimator: a decision stating a Estimator figure would be refused; the origin grants it energy/Estimator beside live/steer in the key log\'s next head (docs/metering.md, "What the key log must grant")',
    ]);
    expect(await s.close()).toBe(0);
    // doctor says it with the origin's command, which, run as written, puts it right.
    const before = await cli(['doctor', '--config', 'estimator.yaml'], dir);
    const lines = before.stdout.split('\n');
    const at = lines.findIndex((l) => l.includes('the steering key lacks energy/Estimator'));
    expect(lines[at]).toMatch(/^warning {2}materials: the steering key lacks energy\/Estimator/);
    const fix =
      /^ {9}fix: the origin adds it: `wai-steer (keylog add [^`]+)`, writes NEXT\.wkl over (\S+) and sends the server SIGHUP$/.exec(
        lines[at + 1] ?? '',
      );
    expect(fix, lines[at + 1]).not.toBeNull();
    expect(fix![1]).toContain('--may-sign live/steer,energy/OnChipCounter,energy/Estimator --out');
    await ok(fix![1]!.replace('ORIGIN.jwk', 'origin.jwk').split(' '), dir);
    copyFileSync(join(dir, 'NEXT.wkl'), fix![2]!);
    const after = await cli(['doctor', '--config', 'estimator.yaml'], dir);
    expect(after.stdout).toContain('materials: room ');
    expect(after.stdout).not.toContain('lacks');
  });
});

describe('config typos', () => {
  it('policy YAML: the unknown field first, with a did-you-mean, then every other problem', async () => {
    writeFileSync(
      join(dir, 'typo.yaml'),
      readFileSync(join(dir, 'policy.yaml'), 'utf8')
        .replace('hysteresis: 5%', 'hysterisis: 5%')
        .replace('lag: 500ms', 'lag: 500'),
    );
    expectUserError(
      await cli(['policy', 'compile', 'typo.yaml', '--key', 'steer.jwk', '--out', 'typo.wsp'], dir),
      /^wai-steer: hysterisis: unknown field \(did you mean "hysteresis"\?\); lag: a duration needs its unit: write "500s" \(or "500ms"\); hysteresis: required\n$/,
    );
  });

  it('server config: did-you-mean, one naming style (snake_case), the old camelCase read with a warning', async () => {
    writeFileSync(
      join(dir, 'keylog-typo.yaml'),
      'room: room.wrd\nkeylog: keylog-2.wkl\npolicy: policy.wsp\nsigning_key: steer.jwk\nstore: { path: ":memory:" }\n',
    );
    expectUserError(
      await cli(['serve', '--config', 'keylog-typo.yaml'], dir),
      /^wai-steer: server config .*keylog-typo\.yaml: keylog: unknown field \(did you mean "key_log"\?\)/,
    );
    const port = await freePort();
    writeFileSync(
      join(dir, 'camel.yaml'),
      `room: room.wrd\nkeyLog: keylog-2.wkl\npolicy: policy.wsp\nsigningKey: steer.jwk\npublicUrl: http://127.0.0.1:8080\nlisten: { port: ${port} }\nstore: { path: ":memory:" }\n`,
    );
    const s = await serve('camel.yaml');
    expect(s.err()).toMatch(
      /warning: server config .*camel\.yaml: keyLog is the old spelling of key_log/,
    );
    expect(s.err()).toMatch(
      /warning: server config .*camel\.yaml: signingKey is the old spelling of signing_key/,
    );
    expect(s.err()).toContain('serving at');
    expect(await s.close()).toBe(0);
  });
});

describe('every problem of the policy at once', () => {
  it('names the rules of the pathways, tiers and room together', async () => {
    writeFileSync(
      join(dir, 'many.yaml'),
      readFileSync(join(dir, 'policy.yaml'), 'utf8')
        .replace('floor: 0', 'floor: 7\ninitial: cdn-z')
        .replace('base: cdn-b,', 'base: cdn-q,'),
    );
    expectUserError(
      await cli(['policy', 'compile', 'many.yaml', '--key', 'steer.jwk', '--out', 'many.wsp'], dir),
      /^wai-steer: pathways\[2\]\.clone\.base: "cdn-q" is not the id of a pathway before this one .*; initial: "cdn-z" is not the id of a pathway; floor: 7 is not a tier \(the tiers are 0 to 2\)\n$/,
    );
  });
});

describe('checks where the mistake is made', () => {
  it('policy compile --key <a hop key> warns, given the key log, and exits 0', async () => {
    const r = await cli(
      [
        'policy',
        'compile',
        'policy.yaml',
        '--key',
        'hop-a-edge.jwk',
        '--key-log',
        'keylog-2.wkl',
        '--out',
        'bad.wsp',
      ],
      dir,
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^[0-9a-f]{64}\n$/);
    expect(r.stderr).toMatch(
      /^wai-steer: warning: --key [0-9a-f]{64} may not sign policies of this room \(signer_not_authorised: .*\): the server and every verifier will refuse this policy/,
    );
    const good = await cli(
      [
        'policy',
        'compile',
        'policy.yaml',
        '--key',
        'steer.jwk',
        '--room',
        'room.wrd',
        '--key-log',
        'keylog-2.wkl',
        '--out',
        'good.wsp',
      ],
      dir,
    );
    expect([good.code, good.stderr]).toEqual([0, '']);
  });

  it('a server config whose policy: is the YAML says to compile it', async () => {
    writeFileSync(
      join(dir, 'yaml-policy.yaml'),
      'room: room.wrd\nkey_log: keylog-2.wkl\npolicy: policy.yaml\nsigning_key: steer.jwk\nstore: { path: ":memory:" }\n',
    );
    expectUserError(
      await cli(['serve', '--config', 'yaml-policy.yaml'], dir),
      /policy\.yaml is a policy config, not a signed policy \(WSP1\): compile it with `wai-steer policy compile /,
    );
    // And a command given the YAML where the WSP1 belongs.
    expectUserError(
      await cli(['policy', 'inspect', 'policy.yaml'], dir),
      /is not a steering policy \(WSP1\): .*it is text, a policy config: compile it with `wai-steer policy compile/,
    );
  });
});

describe('user errors are user errors', () => {
  it('a missing directory, a directory for a file, a file that is not what it should be: one line, exit 2', async () => {
    expectUserError(
      await cli(
        [
          'record',
          'sign',
          'hop-json/a-edge-6s.json',
          '--key',
          'hop-a-edge.jwk',
          '--out',
          'no-such-dir/r.wmh',
        ],
        dir,
      ),
      /cannot write record file .*no-such-dir\/r\.wmh: no such file or directory/,
    );
    expectUserError(
      await cli(['policy', 'compile', 'hop-json', '--key', 'steer.jwk', '--out', 'p.wsp'], dir),
      /cannot read policy config .*hop-json: is a directory/,
    );
    expectUserError(
      await cli(['serve', '--config', 'hop-json'], dir),
      /cannot read the file: is a directory \(EISDIR\)/,
    );
    writeFileSync(
      join(dir, 'missing-room.yaml'),
      'room: nowhere/room.wrd\npolicy: policy.wsp\nsigning_key: steer.jwk\nstore: { path: ":memory:" }\n',
    );
    expectUserError(
      await cli(['serve', '--config', 'missing-room.yaml'], dir),
      /room: cannot read .*nowhere\/room\.wrd: no such file or directory \(ENOENT; the config's paths are relative to its directory\)/,
    );
    expectUserError(
      await cli(['record', 'inspect', 'hop-json/a-edge-6s.json'], dir),
      /is not a per-hop record .*it is text, a record's fields: sign it with `wai-steer record sign/,
    );
  });
});

describe('decision inspect and verify on a stale pathway', () => {
  it('name the hop and the period missing', async () => {
    rmSync(join(dir, 'stale'), { recursive: true, force: true });
    cpSync(join(REPO_DIR, 'examples', 'hop-json'), join(dir, 'stale-json'), { recursive: true });
    const names = [
      'a-edge-6s',
      'a-edge-8s',
      'a-mid-6s',
      'a-mid-8s',
      'b-edge-6s',
      'c-edge-6s',
      'c-edge-8s',
    ];
    mkdirSync(join(dir, 'stale'));
    for (const n of names) {
      await ok(
        [
          'record',
          'sign',
          `stale-json/${n}.json`,
          '--key',
          `hop-${n.slice(0, -3)}.jwk`,
          '--out',
          `stale/${n}.wmh`,
        ],
        dir,
      );
    }
    await ok(
      [
        'decide',
        '--room',
        'room.wrd',
        '--key-log',
        'keylog-2.wkl',
        '--policy',
        'policy.wsp',
        '--key',
        'steer.jwk',
        '--records',
        'stale',
        '--request',
        'request.json',
        '--session',
        SESSION,
        '--loads',
        '1,2,3',
        '--t',
        '10500000',
        '--out-decision',
        'stale.wsd',
        '--out-manifest',
        'stale.json',
      ],
      dir,
    );
    const line =
      /cdn-b: hop 1 \(edge 1166849a4f105ef73bb174461d151705d5b2bba6d6bc0b4752affc68688f5465\): no record for 1970-01-01T00:00:08\.000Z \(8000000 µs\) to 1970-01-01T00:00:10\.000Z \(10000000 µs\); window 1970-01-01T00:00:06\.000Z \(6000000 µs\) to/;
    const inspect = await ok(
      ['decision', 'inspect', 'stale.wsd', '--policy', 'policy.wsp', '--records', 'stale'],
      dir,
    );
    expect(inspect).toMatch(/ {2}#2 stale /);
    expect(inspect).toMatch(new RegExp(`stale      ${line.source}`));
    expect(inspect.match(/^stale /gm)).toHaveLength(1); // cdn-a and cdn-b-eu tile the window
    expect(await ok(['decision', 'inspect', 'stale.wsd'], dir)).toContain(
      'give --policy and --records',
    );
    const v = await cli(
      [
        'verify',
        '--room',
        'room.wrd',
        '--key-log',
        'keylog-2.wkl',
        '--policy',
        'policy.wsp',
        '--decision',
        'stale.wsd',
        '--records',
        'stale',
        '--manifest',
        'stale.json',
      ],
      dir,
    );
    expect(v.code, v.stdout).toBe(0);
    expect(v.stdout).toMatch(new RegExp(`\\nstale    ${line.source}`));
  });
});

describe('serve --help', () => {
  it('points to pages that exist', () => {
    const serve = COMMANDS.find((c) => c.name.join(' ') === 'serve')!;
    const help = helpOf(serve);
    expect(help).not.toMatch(/README/);
    const pages = [...help.matchAll(/docs\/[a-z-]+\.md/g)].map((m) => m[0]);
    expect(pages.length).toBeGreaterThan(0);
    for (const p of pages) expect(existsSync(join(REPO_DIR, p)), p).toBe(true);
  });
});
