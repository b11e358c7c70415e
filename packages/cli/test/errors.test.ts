// Every command's errors: missing files, bad keys, bad configs, wrong arguments. Each is one
// line on stderr (`wai-steer: …`), a non-zero exit, nothing on stdout and no stack trace.
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { base64url } from '@wai-steering/wire';
import { beforeAll, describe, expect, it } from 'vitest';
import { COMMANDS } from '../src/commands/index.js';
import { main } from '../src/index.js';
import { buildExample, decideArgs, type Example, policyYaml, verifyArgs } from './example.js';
import { cli, expectUserError, ok, tempDir } from './helpers.js';

let ex: Example;
let dir: string;

beforeAll(async () => {
  dir = tempDir();
  ex = await buildExample(dir);
  await ok(decideArgs(), dir);
  const steer = JSON.parse(readFileSync(join(dir, 'steer.jwk'), 'utf8'));
  const other = JSON.parse(readFileSync(join(dir, 'origin.jwk'), 'utf8'));
  const put = (name: string, text: string): void => writeFileSync(join(dir, name), text);
  put('not-json.jwk', '{"kty":"OKP",');
  put('array.jwk', '[1,2]');
  put('ec.jwk', JSON.stringify({ ...steer, kty: 'EC' }));
  put('x448.jwk', JSON.stringify({ ...steer, crv: 'X448' }));
  put('short-x.jwk', JSON.stringify({ ...steer, x: base64url(new Uint8Array(31)) }));
  put('mismatch.jwk', JSON.stringify({ ...steer, x: other.x }));
  put('public.jwk', JSON.stringify({ kty: 'OKP', crv: 'Ed25519', x: steer.x }));
  put('bad-d.jwk', JSON.stringify({ ...steer, d: 'not base64url!' }));
});

const run = (argv: readonly string[]) => cli(argv, dir);

describe('the command line', () => {
  it('a missing command, an unknown command, subcommand or option', async () => {
    // No command: the commands listed (as --help lists them), exit 2.
    const bare = await run([]);
    expect([bare.code, bare.stderr, bare.stdout]).toEqual([2, '', (await run(['--help'])).stdout]);
    expect(bare.stdout).toContain('  serve ');
    expectUserError(await run(['frobnicate']), /^wai-steer: unknown command "frobnicate" \(see/);
    expectUserError(
      await run(['serv', '--config', 'x.yaml']),
      /^wai-steer: unknown command "serv" \(did you mean "serve"\?\) \(see wai-steer --help\)\n$/,
    );
    expectUserError(
      await run(['rom', 'create']),
      /unknown command "rom" \(did you mean "room"\?\)/,
    );
    expectUserError(
      await run(['keylog', 'creat']),
      /^wai-steer: keylog: unknown subcommand "creat" \(did you mean "keylog create"\?; see wai-steer keylog --help\)\n$/,
    );
    expectUserError(await run(['room']), /room: missing subcommand \(create, inspect;/);
    expectUserError(await run(['keylog', 'delete']), /keylog: unknown subcommand "delete"/);
    expectUserError(
      await run(['keygen', '--out', 'x.jwk', '--bogus']),
      /keygen: unknown option --bogus/,
    );
    expectUserError(await run(['keygen', '--out']), /keygen: option --out needs a value/);
    expectUserError(await run(['keygen', '--out', '--json']), /keygen: option --out needs a value/);
    expectUserError(await run(['keygen']), /keygen: missing --out FILE/);
    expectUserError(await run(['keygen', '--out', 'a', '--out', 'b']), /--out given twice/);
    expectUserError(await run(['pubkey']), /pubkey: missing FILE/);
    expectUserError(await run(['pubkey', 'a', 'b']), /pubkey: too many arguments: b/);
    expectUserError(
      await run(['keygen', 'extra', '--out', 'z.jwk']),
      /keygen: takes no argument, got extra/,
    );
    expectUserError(await run(['help', 'nothing']), /help: unknown command "nothing"/);
  });

  it('every command has --help (exit 0, its usage on stdout)', async () => {
    for (const command of COMMANDS) {
      const name = command.name.join(' ');
      const r = await run([...command.name, '--help']);
      expect(r.code, name).toBe(0);
      expect(r.stderr).toBe('');
      expect(r.stdout).toMatch(new RegExp(`^Usage: wai-steer ${name}`));
      expect(r.stdout).toContain('--help');
      const h = await run(['help', ...command.name]);
      expect(h.stdout).toBe(r.stdout);
    }
    const top = await run(['--help']);
    expect(top.code).toBe(0);
    for (const command of COMMANDS) expect(top.stdout).toContain(command.name.join(' '));
    expect((await run(['room', '--help'])).stdout).toContain('room create');
    expect((await run(['--version'])).stdout).toMatch(/^wai-steer \d+\.\d+\.\d+\n$/);
  });

  it('an internal error is one line too, with a request to report it (exit 3)', async () => {
    let err = '';
    const code = await main(['pubkey', join(dir, 'steer.jwk')], {
      cwd: dir,
      stdout: {
        write() {
          throw new Error('EPIPE: the pipe\nbroke');
        },
      },
      stderr: {
        write(s: string | Uint8Array) {
          err += String(s);
          return true;
        },
      },
    });
    expect(code).toBe(3);
    expect(err).toMatch(
      /^wai-steer: internal error: Error: EPIPE: the pipe broke \(this is a bug of wai-steer .*please report it.*\)\n$/,
    );
  });
});

describe('keys', () => {
  it('pubkey: missing file, not JSON, not a JWK, wrong kty or crv, bad x', async () => {
    expectUserError(
      await run(['pubkey', 'nope.jwk']),
      /cannot read key file .*nope\.jwk: no such file or directory/,
    );
    expectUserError(
      await run(['pubkey', 'not-json.jwk']),
      /not-json\.jwk is not a JWK: not JSON text \(/,
    );
    expectUserError(
      await run(['pubkey', 'array.jwk']),
      /array\.jwk is not an Ed25519 JWK: the JWK's "kty" is not "OKP"/,
    );
    expectUserError(await run(['pubkey', 'ec.jwk']), /"kty" is not "OKP"/);
    expectUserError(await run(['pubkey', 'x448.jwk']), /"crv" is not "Ed25519"/);
    expectUserError(await run(['pubkey', 'short-x.jwk']), /"x" is not 32 bytes of base64url/);
    expectUserError(await run(['pubkey', 'mismatch.jwk']), /"x" is not the public key of its "d"/);
    expectUserError(await run(['pubkey', 'bad-d.jwk']), /"d" is not 32 bytes of base64url/);
    expectUserError(
      await run(['pubkey', 'records']),
      /cannot read key file .*records: is a directory/,
    );
    expect((await run(['pubkey', 'public.jwk'])).stdout).toBe(`${ex.keys.steer}\n`);
  });

  it('a command that signs needs the secret key ("d")', async () => {
    expectUserError(
      await run(['room', 'create', '--authority', 'public.jwk', '--name', 'x', '--out', 'r.wrd']),
      /--authority key file .*public\.jwk holds a public key only \(no "d"\): signing needs the secret key/,
    );
    expectUserError(
      await run(['policy', 'compile', 'policy.yaml', '--key', 'public.jwk', '--out', 'p.wsp']),
      /--key key file .*public\.jwk holds a public key only/,
    );
    expectUserError(
      await run(['keylog', 'create', '--origin', 'mismatch.jwk', '--out', 'k.wkl']),
      /--origin key file .*mismatch\.jwk is not an Ed25519 JWK: the JWK's "x" is not the public key of its "d"/,
    );
    expectUserError(
      await run([...decideArgs('d.wsd', 'm.json').map((a) => (a === 'steer.jwk' ? 'ec.jwk' : a))]),
      /"kty" is not "OKP"/,
    );
  });

  it('keygen refuses an existing file unless --force, and keeps the mode 0600', async () => {
    writeFileSync(join(dir, 'existing.jwk'), 'keep me');
    chmodSync(join(dir, 'existing.jwk'), 0o644);
    expectUserError(
      await run(['keygen', '--out', 'existing.jwk']),
      /key file .*existing\.jwk already exists \(use --force to overwrite it\)/,
    );
    expect(readFileSync(join(dir, 'existing.jwk'), 'utf8')).toBe('keep me');
    const hex = (await ok(['keygen', '--out', 'existing.jwk', '--force'], dir)).trim();
    expect(statSync(join(dir, 'existing.jwk')).mode & 0o777).toBe(0o600);
    expect((await ok(['pubkey', 'existing.jwk'], dir)).trim()).toBe(hex);
    expectUserError(
      await run(['keygen', '--out', 'no/such/dir/k.jwk']),
      /cannot write key file .*: no such file or directory/,
    );
  });
});

describe('room and key log', () => {
  it('room create: bad origin, bad name, unwritable output', async () => {
    const base = ['room', 'create', '--authority', 'authority.jwk', '--out', 'r.wrd'];
    expectUserError(
      await run([...base, '--name', 'x', '--origin', 'abc']),
      /--origin: expected 64 hex digits or a key file, got 3 digits/,
    );
    expectUserError(
      await run([...base, '--name', 'x', '--origin', 'nope.jwk']),
      /cannot read --origin key file .*nope\.jwk/,
    );
    expectUserError(
      await run([...base, '--name', 'x'.repeat(65)]),
      /--name: expected 1 to 64 printable ASCII characters/,
    );
    expectUserError(
      await run([...base, '--name', 'caf\u00e9']),
      /--name: expected 1 to 64 printable ASCII/,
    );
    expectUserError(
      await run([
        'room',
        'create',
        '--authority',
        'authority.jwk',
        '--name',
        'x',
        '--out',
        'nope/r.wrd',
      ]),
      /cannot write room file/,
    );
    expectUserError(
      await run(['room', 'inspect', 'policy.wsp']),
      /room .*policy\.wsp is not a room descriptor \(WRD1\): malformed/,
    );
  });

  it('keylog create: bad entries', async () => {
    const base = ['keylog', 'create', '--origin', 'origin.jwk', '--out', 'k.wkl'];
    expectUserError(
      await run([...base, '--entry', 'steer.jwk']),
      /--entry steer\.jwk: expected KEY=AUTHORITY,…/,
    );
    expectUserError(
      await run([...base, '--entry', 'steer.jwk=live/steer,bad authority']),
      /"bad authority" is not an authority/,
    );
    expectUserError(
      await run([
        ...base,
        '--entry',
        'steer.jwk=live/steer',
        '--entry',
        `${ex.keys.steer}=live/hop`,
      ]),
      /key [0-9a-f]{64} is listed twice/,
    );
    expectUserError(
      await run([...base, '--entry', 'missing.jwk=live/hop']),
      /cannot read --entry key file/,
    );
    const r = await run([...base, '--entry', 'steer.jwk=live/steering']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(
      /^wai-steer: warning: .*live\/steering is not an authority a key log grants/,
    );
  });

  it('keylog add and revoke: missing log, not a log, another origin, revoked or unlisted keys', async () => {
    const add = [
      'keylog',
      'add',
      '--origin',
      'origin.jwk',
      '--key',
      'steer.jwk',
      '--may-sign',
      'live/steer',
      '--out',
      'k.wkl',
    ];
    expectUserError(
      await run([...add, '--log', 'nope.wkl']),
      /cannot read key log .*nope\.wkl: no such file/,
    );
    expectUserError(
      await run([...add, '--log', 'room.wrd']),
      /key log .*room\.wrd is not a key log head \(WKL1\): malformed/,
    );
    expectUserError(
      await run([
        'keylog',
        'add',
        '--origin',
        'steer.jwk',
        '--log',
        'keylog-2.wkl',
        '--key',
        'steer.jwk',
        '--may-sign',
        'live/steer',
        '--out',
        'k.wkl',
      ]),
      /key log .*keylog-2\.wkl is the log of origin [0-9a-f]{64}, not of the --origin key/,
    );
    expectUserError(
      await run([
        'keylog',
        'add',
        '--origin',
        'origin.jwk',
        '--log',
        'keylog-2.wkl',
        '--key',
        ex.keys['hop-old']!,
        '--may-sign',
        'live/hop',
        '--out',
        'k.wkl',
      ]),
      /is revoked in the key log; a revoked key is not listed again/,
    );
    const revoke = [
      'keylog',
      'revoke',
      '--origin',
      'origin.jwk',
      '--log',
      'keylog-2.wkl',
      '--out',
      'k.wkl',
    ];
    expectUserError(await run([...revoke, '--key', ex.keys['hop-old']!]), /is already revoked/);
    expectUserError(
      await run([...revoke, '--key', 'existing.jwk']),
      /is not listed in the key log/,
    );
    expectUserError(
      await run([...revoke, '--key', '12']),
      /--key: expected 64 hex digits or a key file/,
    );
    // A head whose signature does not verify is not extended.
    const bytes = new Uint8Array(readFileSync(join(dir, 'keylog-2.wkl')));
    bytes[bytes.length - 1]! ^= 1;
    writeFileSync(join(dir, 'keylog-bad.wkl'), bytes);
    const badLog = revoke.map((a) => (a === 'keylog-2.wkl' ? 'keylog-bad.wkl' : a));
    expectUserError(
      await run([...badLog, '--key', ex.keys.steer!]),
      /keylog-bad\.wkl: bad_signature/,
    );
  });
});

describe('policy compile: the config', () => {
  const compile = async (yaml: string, name = 'bad.yaml') => {
    writeFileSync(join(dir, name), yaml);
    return run(['policy', 'compile', name, '--key', 'steer.jwk', '--out', 'bad.wsp']);
  };
  const good = (): string => policyYaml(ex.keys);

  it('a missing config, YAML and JSON that do not parse', async () => {
    expectUserError(
      await run(['policy', 'compile', 'nope.yaml', '--key', 'steer.jwk', '--out', 'p.wsp']),
      /cannot read policy config .*nope\.yaml: no such file/,
    );
    expectUserError(
      await compile('room: [1, 2\nperiod: 2s\n'),
      /policy config .*bad\.yaml, line \d+: /,
    );
    expectUserError(await compile('a: 1\na: 2\n'), /line 2: Map keys must be unique \("a: 2"\)$/m);
    expectUserError(
      await compile('{"room": ', 'bad.json'),
      /policy config .*bad\.json: not JSON text \(/,
    );
    expectUserError(
      await compile('{"ttl": "10s", "ttl": "1h"}', 'twice.json'),
      /policy config .*twice\.json: the name "ttl" is given twice in one object\n$/,
    );
    expectUserError(
      await compile('- 1\n'),
      /^wai-steer: the policy: the file's top level must be a mapping of fields .*but it is a list/,
    );
  });

  it('names the field and the rule broken (zod)', async () => {
    const cases: [string, string, RegExp][] = [
      [
        ex.keys['hop-b-edge']!,
        'abc',
        /^wai-steer: pathways\[1\]\.hops\[0\]\.key: expected 64 hex digits/,
      ],
      [
        'period: 2s',
        'period: 2',
        /^wai-steer: period: a duration needs its unit: write "2s" \(or "2ms"\)/,
      ],
      ['period: 2s\n', '', /^wai-steer: period: required/],
      ['ttl: 300s', 'ttl: 1500ms', /^wai-steer: ttl: 1500ms is not a whole number of seconds/],
      ['hysteresis: 5%', 'hysteresis: 5', /^wai-steer: hysteresis: expected a share with its unit/],
      ['hysteresis: 5%', 'hysteresis: 101%', /^wai-steer: hysteresis: 101% is above 100%/],
      ['"2.5M"', '"2.5Q"', /^wai-steer: tiers\[1\]: expected a bitrate in bits per second/],
      ['"800k"', '"0.5"', /^wai-steer: tiers\[0\]: 0\.5 is not a whole number of bits per second/],
      [
        'place: interior',
        'place: middle',
        /^wai-steer: pathways\[0\]\.hops\[1\]\.place: expected "edge" or "interior", got "middle"/,
      ],
      [
        'capacity: 1000',
        'capacity: lots',
        /^wai-steer: pathways\[2\]\.capacity: expected "unlimited" or a whole number/,
      ],
      [
        'min_share: 2%',
        'min_share: 2%\n    latncy: 5ms',
        /^wai-steer: pathways\[0\]\.latncy: unknown field/,
      ],
      ['basis: bytes', 'basis: joules', /^wai-steer: basis: expected "bytes" .* or "seconds"/],
      ['- id: cdn-b\n', '- id: cdn b\n', /^wai-steer: pathways\[1\]\.id: expected a pathway ID/],
      [
        'base: cdn-b',
        'base: cdn-z',
        /^wai-steer: pathways\[2\]\.clone\.base: "cdn-z" is not the id of a pathway before this one/,
      ],
      ['floor: 0', 'floor: 3', /^wai-steer: floor: 3 is not a tier \(the tiers are 0 to 2\)/],
      [
        'room: room.wrd',
        'room: nowhere.wrd',
        /^wai-steer: room: cannot read room file .*nowhere\.wrd: no such file or directory/,
      ],
      [
        'room: room.wrd',
        'room: policy.wsp',
        /^wai-steer: room: .*policy\.wsp is not a room descriptor: malformed/,
      ],
    ];
    for (const [from, to, pattern] of cases) {
      const yaml = good().replace(from, to);
      expect(yaml, `${from} -> ${to}`).not.toBe(good());
      expectUserError(await compile(yaml), pattern, 2, `${from} -> ${to}`);
    }
    // Several problems: every one is named, on one line.
    expectUserError(
      await compile(good().replace('period: 2s', 'period: x').replace('lag: 500ms', 'lag: y')),
      /^wai-steer: period: expected a duration .*; lag: expected a duration /,
    );
    // A field that does not read and a rule between two that do: named in one run.
    expectUserError(
      await compile(good().replace('lag: 500ms', 'lag: y').replace('window: 4s', 'window: 5s')),
      /^wai-steer: lag: expected a duration .*; window: 5s is not a multiple of the period \(2s\) above 0/,
    );
  });

  it("reports a rule of §3.3 that wire refuses, in the config's words", async () => {
    const cases: [string, string, RegExp][] = [
      [
        'window: 4s',
        'window: 3s',
        /^wai-steer: window: 3s is not a multiple of the period \(2s\) above 0: the window is a whole number of periods \(policy_invalid\)/,
      ],
      [
        '"2.5M", "6M"',
        '"6M", "2.5M"',
        /^wai-steer: tiers\[2\]: not above tiers\[1\]: the tiers are strictly ascending \(policy_invalid/,
      ],
      [
        'min_ttl: 30s',
        'min_ttl: 400s',
        /^wai-steer: min_ttl: 400s is above ttl \(300s\) \(policy_invalid/,
      ],
      [
        'https://steer.example.com/steer\n',
        'https://steer.example.com/a b\n',
        /^wai-steer: server_uri: not 1 to 2048 bytes of RFC 3986 characters \(policy_invalid/,
      ],
      [
        `{ key: ${ex.keys['hop-b-edge']}, place: edge }`,
        `{ key: ${ex.keys['hop-b-edge']}, place: interior }`,
        /^wai-steer: pathways\[1\]\.hops: a pathway with no edge hop \(policy_invalid/,
      ],
      [
        ex.keys['hop-c-edge']!,
        ex.keys['hop-b-edge']!,
        /^wai-steer: pathways\[2\]\.hops\[0\]\.key: a hop key named twice \(also at pathways\[1\]\.hops\[0\]: a hop belongs to one pathway\) \(policy_invalid/,
      ],
      [
        'latency: 60ms',
        'latency: 60ms\n    min_share: 99%',
        /^wai-steer: pathways: min_share_ppm sums above 1 000 000/,
      ],
    ];
    for (const [from, to, pattern] of cases) {
      const yaml = good().replace(from, to);
      expect(yaml, `${from} -> ${to}`).not.toBe(good());
      expectUserError(await compile(yaml), pattern, 2, `${from} -> ${to}`);
    }
  });

  it('reads the same policy from JSON', async () => {
    const { parse } = await import('yaml');
    writeFileSync(join(dir, 'policy.json'), JSON.stringify(parse(good())));
    const digest = (
      await ok(['policy', 'compile', 'policy.json', '--key', 'steer.jwk', '--out', 'p2.wsp'], dir)
    ).trim();
    expect(digest).toBe(ex.policyDigest);
  });

  it('policy inspect, hls-tag, dash-element: a file that is not a policy', async () => {
    expectUserError(await run(['policy', 'inspect', 'nope.wsp']), /cannot read policy .*nope\.wsp/);
    expectUserError(
      await run(['policy', 'inspect', 'room.wrd']),
      /policy .*room\.wrd is not a steering policy \(WSP1\): malformed/,
    );
    const cut = readFileSync(join(dir, 'policy.wsp')).subarray(0, 100);
    writeFileSync(join(dir, 'cut.wsp'), cut);
    expectUserError(
      await run(['hls-tag', 'cut.wsp']),
      /is not a steering policy \(WSP1\): truncated at [a-z_]+ \(offset \d+\)/,
    );
    expectUserError(await run(['dash-element', 'room.wrd']), /malformed/);
    expectUserError(await run(['hls-tag']), /hls-tag: missing POLICY/);
  });
});

describe('records', () => {
  const sign = async (json: unknown, key = 'hop-a-edge.jwk') => {
    writeFileSync(
      join(dir, 'hop-json', 'bad.json'),
      typeof json === 'string' ? json : JSON.stringify(json),
    );
    return run(['record', 'sign', 'hop-json/bad.json', '--key', key, '--out', 'bad.wmh']);
  };
  const base = {
    room: '../room.wrd',
    start: '6000000',
    end: '8000000',
    class: 'OnChipCounter',
    joules: '5',
    tracks: [{ track: 1, kind: 'media', direction: 'out', bytes: '10' }],
  };

  it('record sign: the JSON and its fields', async () => {
    expectUserError(
      await run(['record', 'sign', 'nope.json', '--key', 'hop-a-edge.jwk', '--out', 'x']),
      /cannot read record JSON/,
    );
    expectUserError(await sign('{'), /record JSON .*bad\.json: not JSON text/);
    expectUserError(
      await sign({ ...base, start: 'soon' }),
      /^wai-steer: start: soon: expected room-clock microseconds .*an RFC 3339 time/,
    );
    expectUserError(
      await sign({ ...base, end: '18446744073709551616' }),
      /^wai-steer: end: 18446744073709551616 is above 2\^64 − 1 µs/,
    );
    expectUserError(
      await sign({ ...base, class: 'Guess' }),
      /^wai-steer: class: expected a class tag/,
    );
    expectUserError(
      await sign({ ...base, subscriber_us: ['1'] }),
      /^wai-steer: subscriber_us: expected 8 values/,
    );
    expectUserError(
      await sign({ ...base, tracks: [{ ...base.tracks[0], direction: 'up' }] }),
      /^wai-steer: tracks\[0\]\.direction: expected 1 or "in", 2 or "out"/,
    );
    expectUserError(await sign({ ...base, colour: 'red' }), /^wai-steer: colour: unknown field/);
    expectUserError(
      await sign({ ...base, room: 'nowhere.wrd' }),
      /^wai-steer: room: cannot read room file .*nowhere\.wrd.*resolved from the file's own directory/,
    );
    expectUserError(
      await sign({ ...base, hop: ex.keys.steer }),
      /^wai-steer: hop: [0-9a-f]{64} is not the public key of --key/,
    );
    // The rules of C5.3, checked by wire before signing.
    expectUserError(
      await sign({ ...base, end: '6000000' }),
      /^wai-steer: the record breaks a rule: record_invalid at end/,
    );
    expectUserError(
      await sign({ ...base, class: 'unmetered' }),
      /^wai-steer: the record breaks a rule: energy_invalid at joules/,
    );
    expectUserError(await sign({ ...base, class: 1 }), /energy_invalid at class/);
    expectUserError(await sign(base, 'public.jwk'), /holds a public key only/);
  });

  it('record inspect: a file that is not a record, or whose signature fails', async () => {
    expectUserError(await run(['record', 'inspect', 'nope.wmh']), /cannot read record/);
    expectUserError(
      await run(['record', 'inspect', 'policy.wsp']),
      /is not a per-hop record \(WMH1\): malformed/,
    );
    const bytes = new Uint8Array(readFileSync(join(dir, 'records', 'a-edge-6s.wmh')));
    bytes[100]! ^= 1;
    writeFileSync(join(dir, 'flipped.wmh'), bytes);
    expectUserError(await run(['record', 'inspect', 'flipped.wmh']), /flipped\.wmh: bad_signature/);
    const json = JSON.parse(
      await ok(['record', 'inspect', 'records/a-edge-6s.wmh', '--json'], dir),
    );
    // The inspected JSON signs back to the same record.
    writeFileSync(
      join(dir, 'hop-json', 'again.json'),
      JSON.stringify({ ...json, room: json.room }),
    );
    const digest = (
      await ok(
        ['record', 'sign', 'hop-json/again.json', '--key', 'hop-a-edge.jwk', '--out', 'again.wmh'],
        dir,
      )
    ).trim();
    expect(digest).toBe(json.digest);
  });
});

describe('report, decide, verify', () => {
  it('report: the policy and the request', async () => {
    const put = (text: string) => writeFileSync(join(dir, 'req.json'), text);
    const report = () => run(['report', '--policy', 'policy.wsp', '--request', 'req.json']);
    expectUserError(
      await run(['report', '--policy', 'nope.wsp', '--request', 'request.json']),
      /cannot read policy/,
    );
    put('{');
    expectUserError(await report(), /request .*req\.json: not JSON text/);
    put('{"target":"/"}');
    expectUserError(await report(), /^wai-steer: protocol: required/);
    put('{"protocol":"rtmp","target":"/"}');
    expectUserError(await report(), /^wai-steer: protocol: expected "hls" or "dash", got "rtmp"/);
    put('{"protocol":"hls","target":"/","headers":{"cmcd-request":5}}');
    expectUserError(await report(), /^wai-steer: headers: "cmcd-request": expected a string value/);
    expectUserError(
      await run(['report', '--policy', 'policy.wsp']),
      /report: missing --request REQUEST\.json/,
    );
  });

  it('decide: loads, session, t, records, keys, rooms', async () => {
    const args = decideArgs('d.wsd', 'm.json');
    const swap = (flag: string, value: string) => {
      const out = [...args];
      out[out.indexOf(flag) + 1] = value;
      return out;
    };
    expectUserError(
      await run(swap('--loads', '1,2')),
      /--loads: 2 loads given, but the policy has 3 pathways/,
    );
    expectUserError(
      await run(swap('--loads', '1,x,3')),
      /--loads: item 1 "x" is not a whole number/,
    );
    expectUserError(
      await run(swap('--loads', '1,2,4294967296')),
      /--loads: item 2 .* is not a whole number from 0 to 4294967295/,
    );
    expectUserError(await run(swap('--session', 'abcd')), /--session: expected 32 hex digits/);
    expectUserError(
      await run(swap('--t', '1.5')),
      /--t: 1\.5: expected room-clock microseconds .*an RFC 3339 time/,
    );
    expectUserError(await run(swap('--t', '-5')), /decide: option --t needs a value/);
    expectUserError(
      await run(swap('--records', 'no-such-dir')),
      /cannot read records directory .*no-such-dir: no such file or directory/,
    );
    expectUserError(
      await run(swap('--records', 'policy.wsp')),
      /cannot read records directory .*: not a directory/,
    );
    expectUserError(await run(swap('--room', 'nope.wrd')), /cannot read room/);
    expectUserError(await run(swap('--policy', 'room.wrd')), /is not a steering policy/);
    expectUserError(await run(swap('--key', 'public.jwk')), /holds a public key only/);
    expectUserError(await run(swap('--request', 'nope.json')), /cannot read request/);
    expectUserError(await run(swap('--out-decision', 'nope/d.wsd')), /cannot write decision file/);
    // A room other than the policy's.
    await ok(
      ['room', 'create', '--authority', 'authority.jwk', '--name', 'Other', '--out', 'other.wrd'],
      dir,
    );
    expectUserError(
      await run(swap('--room', 'other.wrd')),
      /policy .* is of room [0-9a-f]{64}, not of the room given/,
    );
  });

  it('decide warns of a signer the verifier would refuse, and writes the decision', async () => {
    const args = decideArgs('warned.wsd', 'warned.json').filter(
      (a, i, all) => a !== '--key-log' && all[i - 1] !== '--key-log',
    );
    const r = await run(args);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^wai-steer: warning: the room does not verify \(key_log_missing/);
    const v = await run([...verifyArgs('warned.wsd', 'warned.json'), '--json']);
    expect(v.code).toBe(0);
  });

  it('verify: usage and I/O errors exit 2', async () => {
    expectUserError(
      await run(['verify', '--room', 'room.wrd']),
      /verify: missing --policy \(or give --url URL/,
    );
    expectUserError(
      await run(['verify', '--url', 'http://127.0.0.1:1/', '--room', 'room.wrd']),
      /verify: --url is given alone, without --room/,
    );
    expectUserError(
      await run(verifyArgs('nope.wsd')),
      /cannot read decision .*nope\.wsd: no such file/,
    );
    expectUserError(
      await run([...verifyArgs(), '--manifest', 'nope.json'].slice(0)),
      /--manifest given twice|cannot read manifest/,
    );
    const noRecords = verifyArgs().map((a) => (a === 'records' ? 'nowhere' : a));
    expectUserError(await run(noRecords), /cannot read records directory/);
    expectUserError(await run(['verify', '--url', 'not a url']), /verify --url not a url: /);
  });

  it('verify: a decision file that does not read is a refusal (exit 1), not an error', async () => {
    writeFileSync(join(dir, 'short.wsd'), new Uint8Array([0x57, 0x53]));
    const r = await run([...verifyArgs('short.wsd'), '--json']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('{"outcome":"refuse","reason":"truncated","where":{"at":"decision"}}\n');
  });

  it('conformance and serve: missing and bad files', async () => {
    expectUserError(
      await run(['conformance', '--vectors', 'nope.json']),
      /cannot read vectors file/,
    );
    writeFileSync(join(dir, 'vectors.json'), '{"requests": 1}');
    expectUserError(
      await run(['conformance', '--vectors', 'vectors.json']),
      /is not a corpus: expected an object with "requests" and "vectors" lists/,
    );
    expectUserError(
      await run(['serve', '--config', 'nope.yaml']),
      /^wai-steer: server config .*nope\.yaml: cannot read the file/,
    );
    writeFileSync(join(dir, 'server.yaml'), 'room: 5\n');
    expectUserError(
      await run(['serve', '--config', 'server.yaml']),
      /^wai-steer: server config .*server\.yaml: room: [^;]*; policy: [^;]*; signing_key: /,
    );
  });
});

describe('files', () => {
  it('reads a records directory in file-name order, skipping sub-directories', async () => {
    mkdirSync(join(dir, 'records', 'sub'), { recursive: true });
    const r = await run([...verifyArgs(), '--json']);
    expect(r.code).toBe(0);
  });
});
