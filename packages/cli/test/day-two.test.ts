// The second day of an operator: each mistake of theirs is one line naming the fix (exit 2), the
// demo's port and period, the clock's tolerance of doctor, and the numbers people read (hop 1 is
// the first hop) in every page.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import {
  consoleDistDir,
  type PgCluster,
  setupDemo,
  startPostgres,
} from '@wai-steering/server/testkit';
import { readPolicy, unwrap } from '@wai-steering/wire';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { COMMANDS } from '../src/commands/index.js';
import { main } from '../src/index.js';
import { ensureDemoStream } from '../src/internal/demo-stream.js';
import { AHEAD_TOLERANCE_US, checkHops } from '../src/internal/doctor/hops.js';
import { Report } from '../src/internal/doctor/report.js';
import { postgresFix } from '../src/internal/doctor/store.js';
import { readDir } from '../src/internal/files.js';
import { evidenceOf } from '../src/internal/stale.js';
import { buildExample } from './example.js';
import { cli, expectUserError, tempDir } from './helpers.js';
import { REPO_DIR } from './paths.js';

const ROOM = 'ab'.repeat(32);

describe('every --help', () => {
  it('says (repeatable) and (required) once an option', async () => {
    for (const c of COMMANDS) {
      const r = await cli([...c.name, '--help'], tempDir());
      expect(r.code).toBe(0);
      expect(r.stdout, c.name.join(' ')).not.toMatch(/\((repeatable|required)\)[^\n]*\(\1\)/);
    }
    const doctor = await cli(['doctor', '--help'], tempDir());
    expect(doctor.stdout).toMatch(
      /--hop FILE +a hop agent's config \(hop\.yaml\) to check too \(repeatable\)\n/,
    );
  });
});

describe("the user's mistakes: one line naming the fix, exit 2", () => {
  it('log watch --state in a directory that does not exist', async () => {
    const dir = tempDir();
    const state = join(dir, 'missing', 'ck');
    expectUserError(
      await cli(
        ['log', 'watch', '--url', 'http://127.0.0.1:9', '--room-id', ROOM, '--state', state],
        dir,
      ),
      new RegExp(
        `^wai-steer: --state ${state}: the directory ${join(dir, 'missing')} does not exist \\(create it: mkdir -p ${join(dir, 'missing')}\\)\\n$`,
      ),
    );
  });

  it('a duration without its unit, on every flag: what to write', async () => {
    const dir = tempDir();
    expectUserError(
      await cli(
        [
          'log',
          'watch',
          '--url',
          'http://127.0.0.1:9',
          '--room-id',
          ROOM,
          '--state',
          join(dir, 'ck'),
          '--interval',
          '5',
        ],
        dir,
      ),
      /^wai-steer: --interval 5: a duration needs its unit: write "5s" \(or "5ms"\)\n$/,
    );
    expectUserError(
      await cli(['demo', '--period', '2'], dir),
      /^wai-steer: --period 2: a duration needs its unit: write "2s" \(or "2ms"\)\n$/,
    );
    expectUserError(
      await cli(['audit', '--archive', dir, '--room-id', ROOM, '--grace', '10'], dir),
      /--grace 10: a duration needs its unit: write "10s"/,
    );
  });

  it('demo --period-ms, an option of earlier releases: what to write instead', async () => {
    const dir = tempDir();
    expectUserError(
      await cli(['demo', '--period-ms', '500'], dir),
      /^wai-steer: demo: --period-ms is no longer read: the period is --period, a duration with its unit: write --period 500ms \(see wai-steer demo --help\)\n$/,
    );
    expectUserError(await cli(['demo', '--period-ms=2000'], dir), /write --period 2000ms/);
    expectUserError(
      await cli(['demo', '--perod', '2s'], dir),
      /^wai-steer: demo: unknown option --perod \(did you mean "--period"\?\)/,
    );
    expectUserError(
      await cli(['demo', '--period', '50ms'], dir),
      /^wai-steer: demo: --period 50ms: from 100ms to 1d/,
    );
  });

  it('demo --port in use: --port N, or --port 0 for any free port', async () => {
    const taken = createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r));
    const port = (taken.address() as { port: number }).port;
    try {
      const dir = tempDir();
      expectUserError(
        await cli(['demo', '--dir', 'd', '--port', String(port)], dir),
        new RegExp(
          `^wai-steer: demo: port ${port} on 127\\.0\\.0\\.1 is in use \\(by another demo or server\\?\\): run with --port N for another port, or --port 0 for any free port\\n$`,
        ),
      );
      // Nothing was written: the port is checked first.
      expect(readdirSync(dir)).toEqual([]);
    } finally {
      await new Promise((r) => taken.close(r));
    }
  });
});

describe('demo --port 0', () => {
  it('takes a free port, and prints it in every URL, the players page too', async () => {
    const dir = tempDir();
    let out = '';
    let stop: (() => Promise<void>) | undefined;
    const running = main(['demo', '--dir', 'd', '--port', '0'], {
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
    await vi.waitFor(() => expect(out).toContain('Ctrl-C to stop'), { timeout: 60_000 });
    const port = Number(/listening on http:\/\/127\.0\.0\.1:(\d+)\n/.exec(out)?.[1]);
    expect(port).toBeGreaterThan(0);
    expect(out).toContain(`Steering URL: http://127.0.0.1:${port}/steer\n`);
    // Its first line: the players page's stream when it has none (with the command that gives
    // it one), else the server.
    const stream = ensureDemoStream(consoleDistDir(), 'pnpm demo', { ffmpeg: false });
    expect(out.split('\n')[0]).toBe(
      stream.kind === 'missing'
        ? `The players page (http://127.0.0.1:${port}/console/players) has no demo stream: ${stream.why}.`
        : `Steering server for the demo room, listening on http://127.0.0.1:${port}`,
    );
    expect(out).toMatch(new RegExp(`Players: +http://127\\.0\\.0\\.1:${port}/console/players`));
    const page = await fetch(`http://127.0.0.1:${port}/console/players`);
    expect(page.status).toBe(200);
    // verify --url pinned to another room: the room this server serves, in one line (exit 1, a
    // refusal, as a descriptor of another room is).
    const other = await cli(
      ['verify', '--url', `http://127.0.0.1:${port}/steer`, '--room-id', ROOM],
      dir,
    );
    expectUserError(
      other,
      new RegExp(
        `^wai-steer: verify --url http://127\\.0\\.0\\.1:${port}/steer: this server serves room [0-9a-f]{64}, not ${ROOM}: .*; check --room-id \\(wai-steer room inspect FILE prints a room's id\\)\\n$`,
      ),
      1,
    );
    await stop!();
    expect(await running).toBe(0);
  }, 120_000);
});

describe("doctor: a record's end ahead of this machine's clock", () => {
  let dir: string;
  beforeAll(async () => {
    dir = tempDir();
    await buildExample(dir);
  });

  const clockWarnings = (now: bigint): string[] => {
    const policy = unwrap(readPolicy(readFileSync(join(dir, 'policy.wsp'))));
    const records = evidenceOf(readDir(join(dir, 'records'), 'records').map((f) => f.bytes));
    const report = new Report();
    checkHops(policy, records, now, report);
    return report.findings.filter((f) => f.check === 'clock').map((f) => f.text);
  };

  it('is no warning within the tolerance (2 s), a warning past it', () => {
    // The example's last records end at 10 s on the room clock.
    const end = 10_000_000n;
    expect(AHEAD_TOLERANCE_US).toBe(2_000_000n);
    expect(clockWarnings(end)).toEqual([]);
    expect(clockWarnings(end - 757_000n)).toEqual([]);
    expect(clockWarnings(end - AHEAD_TOLERANCE_US)).toEqual([]);
    const past = clockWarnings(end - AHEAD_TOLERANCE_US - 1n);
    expect(past.length).toBeGreaterThan(0);
    expect(past[0]).toMatch(
      /^cdn-a hop 1 \(edge [0-9a-f]{64}\): its last record .*, 0\.95 J, 52 MB out ends 2 s after this machine's clock$/,
    );
  });
});

describe('doctor as another user than the service user, on PostgreSQL', () => {
  let cluster: PgCluster | undefined;
  afterAll(async () => {
    await cluster?.stop();
  });

  it('against a cluster of peer authentication on its socket: one problem, run it as the service user', {
    timeout: 120_000,
  }, async () => {
    // As Debian's cluster of the deployment: the socket authenticates by peer, so this process
    // (root in CI, or whoever runs the test) may not connect as the database user wai-steering.
    cluster = await startPostgres({ socketAuth: 'peer' });
    const dir = tempDir();
    const setup = setupDemo(join(dir, 'room'), { port: 8080, periodMs: 2000, budgets: false });
    const config = JSON.parse(readFileSync(setup.configPath, 'utf8'));
    config.store = {
      url: `postgres://wai-steering@/steer?host=${encodeURIComponent(cluster.socketDir)}&port=${cluster.port}`,
    };
    const path = join(dir, 'room', 'steer-a.json');
    writeFileSync(path, `${JSON.stringify(config, null, 2)}\n`);
    const r = await cli(['doctor', '--config', path], dir);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    const lines = r.stdout.split('\n');
    const at = lines.findIndex((l) => l.startsWith('PROBLEM  store:'));
    expect(lines[at], r.stdout).toMatch(/Peer authentication failed for user "wai-steering"/);
    expect(lines[at + 1]).toBe(
      `         fix: run doctor as the system user the server runs as, wai-steering (PostgreSQL lets a system user connect by its socket as the database user of the same name alone): sudo -u wai-steering wai-steer doctor --config ${path}`,
    );
    expect(r.stderr).toBe('');
  });

  it('says to run it as the service user', () => {
    expect(
      postgresFix(
        'store.url: Peer authentication failed for user "wai-steering"',
        '/etc/wai-steering/steer-a.yaml',
        'wai-steer',
      ),
    ).toBe(
      'run doctor as the system user the server runs as, wai-steering (PostgreSQL lets a system user connect by its socket as the database user of the same name alone): sudo -u wai-steering wai-steer doctor --config /etc/wai-steering/steer-a.yaml',
    );
    expect(postgresFix('connect ECONNREFUSED 127.0.0.1:5432')).toMatch(
      /^check that PostgreSQL runs/,
    );
  });
});

describe('the numbers people read', () => {
  it('count from 1 in every page: no hop 0', () => {
    const pages = [
      'README.md',
      ...readdirSync(join(REPO_DIR, 'docs'))
        .filter((f) => f.endsWith('.md'))
        .map((f) => `docs/${f}`),
    ];
    for (const page of pages) {
      const text = readFileSync(join(REPO_DIR, page), 'utf8');
      expect(text, page).not.toMatch(/\bhop 0\b|\bhop #0\b/);
    }
  });
});

describe('the README', () => {
  const readme = readFileSync(join(REPO_DIR, 'README.md'), 'utf8');
  const top = readme.slice(0, readme.indexOf('\n## '));

  it('opens with what the project is and who it is for, then the two commands', () => {
    const what = top.indexOf('**Energy-aware content steering**');
    const who = ['operators of live streams', 'CDN hops that meter', 'auditors'].map((w) =>
      top.indexOf(w),
    );
    const setup = top.indexOf('```sh\nbash scripts/setup.sh && pnpm demo\n```');
    const test = top.indexOf('```sh\nbash scripts/test.sh\n```');
    expect(what).toBeGreaterThan(0);
    for (const w of who) expect(w).toBeGreaterThan(what);
    expect(setup).toBeGreaterThan(Math.max(...who));
    expect(test).toBeGreaterThan(setup);
  });

  it('says how to change the port, and where the players page is', () => {
    expect(top).toContain('`pnpm demo --port 9090`');
    expect(top).toContain('`pnpm demo --port 0`');
    expect(top).toContain('/console/players');
  });
});
