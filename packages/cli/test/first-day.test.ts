// A new operator's first day: each point that went wrong, as it now behaves (the demo's lines to
// run next, serve's start line and its checks, why a pathway has no figure from the network,
// files skipped by name, a config that does not parse, hops the key log does not list).
import { chmodSync, copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../src/index.js';
import { type RunningDemo, runDemo } from '../src/internal/demo.js';
import type { Io } from '../src/internal/io.js';
import { buildExample, decideArgs } from './example.js';
import { cli, expectUserError, freePort, ok, tempDir } from './helpers.js';
import { REPO_DIR } from './paths.js';

/** Runs a long-running command in-process until `ready` shows on `stream`; returns a stop. */
async function running(argv: string[], cwd: string, ready: RegExp, stream: 'stdout' | 'stderr') {
  let stop: (() => Promise<void>) | undefined;
  const text = { stdout: '', stderr: '' };
  let code: number | undefined;
  const io: Io = {
    cwd,
    stdout: {
      write: (s: string | Uint8Array) => {
        text.stdout += String(s);
        return true;
      },
    },
    stderr: {
      write: (s: string | Uint8Array) => {
        text.stderr += String(s);
        return true;
      },
    },
    onStop(fn) {
      stop = fn;
    },
  };
  const done = main(argv, io).then((c) => {
    code = c;
    return c;
  });
  await expect
    .poll(() => code !== undefined || ready.test(text[stream]), { timeout: 60_000, interval: 25 })
    .toBe(true);
  return {
    text,
    code: () => code,
    async close(): Promise<number> {
      await stop?.();
      return done;
    },
  };
}

describe('the demo, as a checkout runs it', () => {
  it('names the commands to run next as the checkout runs them, and the console', async () => {
    const before = process.env.WAI_STEER_AS;
    process.env.WAI_STEER_AS = 'pnpm wai-steer';
    try {
      const port = await freePort();
      const demo = await running(
        ['demo', '--dir', tempDir(), '--port', String(port), '--period', '500ms'],
        tempDir(),
        /Ctrl-C to stop/,
        'stdout',
      );
      expect(demo.text.stdout).toContain(
        `pnpm wai-steer verify --url 'http://127.0.0.1:${port}/steer'`,
      );
      expect(demo.text.stdout).toContain(`Console:      http://127.0.0.1:${port}/console/`);
      // GET / leads a browser to the console.
      const res = await fetch(`http://127.0.0.1:${port}/`, { redirect: 'manual' });
      expect([res.status, res.headers.get('location')]).toEqual([302, 'console/']);
      expect(await demo.close()).toBe(0);
    } finally {
      if (before === undefined) delete process.env.WAI_STEER_AS;
      else process.env.WAI_STEER_AS = before;
    }
  });
});

describe('verify --url on a pathway without a figure', () => {
  let demo: RunningDemo;
  beforeAll(async () => {
    // Periods of a second, so that a busy machine still gets each record in within its lag.
    demo = await runDemo({ dir: tempDir(), port: await freePort(), periodMs: 1000 });
  });
  afterAll(() => demo?.close());

  it('says why, as verify from files does: the unmetered hop, by name', async () => {
    // Once the window is tiled by the hops' records: cdn-b-east is then unmetered (not stale).
    let out = '';
    await expect
      .poll(
        async () => {
          out = (await cli(['verify', '--url', demo.steeringUrl], tempDir())).stdout;
          return /cdn-b-east +unmetered/.test(out);
        },
        { timeout: 90_000, interval: 250 },
      )
      .toBe(true);
    const shield = demo.setup.hops.find((h) => h.name === 'cdn-b-east-shield')!;
    const key = Buffer.from(shield.key.publicKey).toString('hex');
    expect(out).toMatch(
      new RegExp(
        `\\nunmetered cdn-b-east: hop 2 \\(interior ${key}\\) signed the unmetered marker \\(class 0: its energy was not measured\\); an unmetered hop is not a hop of zero joules, so the pathway has no figure: give that hop's agent an energy source`,
      ),
    );
  });
});

describe('serve', () => {
  let dir: string;
  beforeAll(async () => {
    dir = tempDir();
    await buildExample(dir);
  });

  it('prints the console URL at start, and warns of a steering key others can read', async () => {
    const port = await freePort();
    chmodSync(join(dir, 'steer.jwk'), 0o644);
    writeFileSync(
      join(dir, 'open.yaml'),
      `room: room.wrd\nkey_log: keylog-2.wkl\npolicy: policy.wsp\nsigning_key: steer.jwk\npublic_url: https://steer.example.com\nlisten: { host: 127.0.0.1, port: ${port} }\nstore: { path: ":memory:" }\n`,
    );
    const s = await running(['serve', '--config', 'open.yaml'], dir, /serving at/, 'stderr');
    expect(s.text.stderr).toContain(
      `wai-steer: serving at http://127.0.0.1:${port}, the console at http://127.0.0.1:${port}/console/ (SIGHUP`,
    );
    expect(s.text.stderr).toMatch(
      /^wai-steer: warning: signing_key .*steer\.jwk is mode 0644: readable by every user of this machine \(chmod 600 /m,
    );
    expect(await s.close()).toBe(0);
    chmodSync(join(dir, 'steer.jwk'), 0o600);
  });

  it('names a line of its config that does not parse, and a top level that is a list', async () => {
    writeFileSync(join(dir, 'bad.yaml'), 'room: room.wrd\nkey_log: keylog-2.wkl: x\n');
    expectUserError(
      await cli(['serve', '--config', 'bad.yaml'], dir),
      /bad\.yaml: does not parse: Nested mappings are not allowed in compact mappings at line 2, column 10: "key_log: keylog-2\.wkl: x"\n$/,
    );
    writeFileSync(join(dir, 'list.yaml'), '- room: room.wrd\n  policy: policy.wsp\n');
    expectUserError(
      await cli(['serve', '--config', 'list.yaml'], dir),
      /list\.yaml: the file's top level must be a mapping of fields \(name: value, one a line\), but it is a list/,
    );
  });
});

describe('decide', () => {
  it('names each file of the records directory it skips, and why', async () => {
    const dir = tempDir();
    await buildExample(dir);
    writeFileSync(join(dir, 'records', 'notes.txt'), 'not a record\n');
    const r = await cli(decideArgs(), dir);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      /^wai-steer: warning: a file of the records directory .*records skipped, not records a server would hold: notes\.txt \(malformed\)\n$/,
    );
  });
});

describe('policy compile with the key log', () => {
  it('warns of a hop the key log does not list: its pathway can never have a figure', async () => {
    const dir = tempDir();
    const ex = join(REPO_DIR, 'examples');
    for (const k of ['authority', 'origin', 'steer', 'hop-a-edge', 'hop-a-mid', 'hop-b-edge']) {
      copyFileSync(join(ex, 'keys', `${k}.jwk`), join(dir, `${k}.jwk`));
    }
    copyFileSync(join(ex, 'policy.yaml'), join(dir, 'policy.yaml'));
    await ok(
      ['room', 'create', '--authority', 'authority.jwk', '--origin', 'origin.jwk'].concat([
        '--name',
        'C',
        '--out',
        'room.wrd',
      ]),
      dir,
    );
    await ok(
      ['keylog', 'create', '--origin', 'origin.jwk', '--entry', 'authority.jwk=live/room']
        .concat(['--entry', 'steer.jwk=live/steer,energy/OnChipCounter'])
        .concat(['--entry', 'hop-a-edge.jwk=live/hop,energy/OnChipCounter'])
        .concat(['--entry', 'hop-a-mid.jwk=live/hop,energy/OnChipCounter'])
        .concat(['--entry', 'hop-b-edge.jwk=live/hop,energy/OnChipCounter'])
        .concat(['--out', 'keylog.wkl']),
      dir,
    );
    const r = await cli(
      ['policy', 'compile', 'policy.yaml', '--key', 'steer.jwk', '--key-log', 'keylog.wkl'].concat([
        '--room',
        'room.wrd',
        '--out',
        'policy.wsp',
      ]),
      dir,
    );
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(
      "wai-steer: warning: pathway cdn-b-eu, hop 1 (edge a3f0ee03d00929345a6b6cce7fa54f901aa0f118920b0140e3451c572d40f443): the key log (seq 0) does not list the hop's key a3f0ee03d00929345a6b6cce7fa54f901aa0f118920b0140e3451c572d40f443: add it with live/hop; every record it signs is refused, so cdn-b-eu can never have a figure\n",
    );
    expect(readFileSync(join(dir, 'policy.wsp')).subarray(0, 4).toString()).toBe('WSP1');
  });
});
