// The deployment of deploy/, installed for real on this machine by deploy/install.sh into a
// directory of the test's (WAI_ROOT, free loopback ports): two steering server instances
// (`--workers auto`) on PostgreSQL behind HAProxy, an edge (nginx) with a hop agent metering
// each of its two pathways, the console behind a token, log rotation. systemd does not run here,
// so the units' own commands run under deploy/supervise.mjs, and systemd-analyze checks the
// units. Then a real player (hls.js in Chromium) is steered through HAProxy, what the servers
// decided is exported and audited, the logs are rotated, and the install is run again.
import { execFile, spawn, spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { fetchAndVerify } from '@wai-steering/verifier';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeStream, multivariant, openPlayer, type PlayerEvent, pageServer } from './player.js';

const execAsync = promisify(execFile);
const DEPLOY = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const CLI = join(DEPLOY, '..', 'packages', 'cli', 'dist', 'main.js');

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** Runs deploy/install.sh with the test's settings; its exit status and output. */
function install(
  env: NodeJS.ProcessEnv,
  ...args: string[]
): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', [join(DEPLOY, 'install.sh'), ...args], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (b) => (out += String(b)));
    child.stderr.on('data', (b) => (out += String(b)));
    child.on('close', (code) => resolve({ code: code ?? -1, out }));
  });
}

/** `wai-steer deploy VERB …` on the test's deployment (its root), as root runs it. */
async function deployVerb(...args: string[]): Promise<{ code: number; out: string }> {
  const r = await wai('deploy', ...args, '--root', root());
  return { code: r.code, out: `${r.stdout}${r.stderr}` };
}
let rootDir = '';
const root = () => rootDir;

/** An HTTP request through a HAProxy that takes the PROXY protocol, as if from `source`. */
function viaProxy(
  port: number,
  source: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; head: string }> {
  return new Promise((resolve, reject) => {
    const s = connect(port, '127.0.0.1', () => {
      const lines = [`GET ${path} HTTP/1.1`, 'host: steering', 'connection: close'];
      for (const [k, v] of Object.entries(headers)) lines.push(`${k}: ${v}`);
      s.write(`PROXY TCP4 ${source} 127.0.0.1 40000 ${port}\r\n${lines.join('\r\n')}\r\n\r\n`);
    });
    let got = '';
    s.on('data', (b) => (got += String(b)));
    s.on('error', reject);
    s.on('close', () => {
      const head = got.split('\r\n\r\n')[0] ?? '';
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0), head });
    });
  });
}

/** `wai-steer …` as the deployment's own bin runs it. */
async function wai(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const r = await execAsync(process.execPath, [CLI, ...args], { maxBuffer: 64 << 20 });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const x = e as { code?: number; stdout?: string; stderr?: string };
    return {
      code: typeof x.code === 'number' ? x.code : -1,
      stdout: x.stdout ?? '',
      stderr: x.stderr ?? '',
    };
  }
}

const IS_ROOT = process.getuid?.() === 0;

/**
 * The first directory above the checkout that other users cannot enter (mode without o+x): the
 * services' user could not run the CLI from it, and install.sh refuses such a checkout.
 */
function closedAncestor(): string | undefined {
  for (let d = join(DEPLOY, '..'); ; d = dirname(d)) {
    if ((statSync(d).mode & 0o001) === 0) return d;
    if (dirname(d) === d) return undefined;
  }
}

const closed = closedAncestor();
if (closed !== undefined) {
  console.warn(
    `deploy/install.sh on this machine: skipped, ${closed} is closed to other users (mode ${(statSync(closed).mode & 0o777).toString(8)}), so the services' user could not run the checkout; clone it where others may enter (such as /opt or /srv) to run this test`,
  );
}

describe.skipIf((!IS_ROOT && process.env.CI !== 'true') || closed !== undefined)(
  'deploy/install.sh on this machine',
  () => {
    let root: string;
    let env: NodeJS.ProcessEnv;
    let etc: string;
    let state: string;
    let logs: string;
    let front: string;
    let token: string;
    let roomId: string;
    let firstInstall: string;
    const decisionUris: string[] = [];

    beforeAll(async () => {
      expect(existsSync(CLI), `${CLI}: build the CLI first (pnpm build)`).toBe(true);
      root = mkdtempSync(join(tmpdir(), 'wai-deploy-'));
      rootDir = root;
      // The root's directories are the services' to traverse, as / is.
      spawnSync('chmod', ['0755', root]);
      const ports = await Promise.all(Array.from({ length: 6 }, () => freePort()));
      env = {
        WAI_ROOT: root,
        WAI_MODE: 'supervise',
        WAI_BIND: '127.0.0.1',
        WAI_PORT: String(ports[0]),
        WAI_PORT_A: String(ports[1]),
        WAI_PORT_B: String(ports[2]),
        WAI_EDGE_PORT_A: String(ports[3]),
        WAI_EDGE_PORT_B: String(ports[4]),
        WAI_PG_PORT: String(ports[5]),
        WAI_PERIOD: '2s',
        WAI_WINDOW: '6s',
        // L as long as P: on a busy machine a hop's record reaches the server seconds after its
        // period ends, and a record required before it comes makes the pathway stale, never a figure.
        WAI_LAG: '2s',
        WAI_DOCTOR_TIMEOUT: '180',
        WAI_CLI: CLI,
        WAI_APT: '0',
      };
      etc = join(root, 'etc', 'wai-steering');
      state = join(root, 'var', 'lib', 'wai-steering');
      logs = join(root, 'var', 'log', 'wai-steering');
      front = `http://127.0.0.1:${ports[0]}`;
      const r = await install(env);
      firstInstall = r.out;
      expect(r.code, r.out).toBe(0);
      token = readFileSync(join(etc, 'console.token'), 'utf8').trim();
      roomId = /room {12}([0-9a-f]{64})/.exec(r.out)![1]!;
    });

    afterAll(async () => {
      if (env !== undefined) {
        const stopped = await install(env, 'stop');
        expect(stopped.code, stopped.out).toBe(0);
      }
      if (root !== undefined) rmSync(root, { recursive: true, force: true, maxRetries: 5 });
    });

    it('brings everything up and checks it with doctor: no problem on either instance', () => {
      expect(firstInstall).toMatch(/install\.sh: doctor, instance a:[\s\S]*all is well/);
      expect(firstInstall).toMatch(/install\.sh: doctor, instance b:[\s\S]*all is well/);
      expect(firstInstall).not.toMatch(/PROBLEM/);
      expect(firstInstall).toContain('install.sh: installed (supervise)');
      // Every unit's service runs under the supervisor, as its unit's User=.
      const pids = readdirSync(join(state, 'run')).sort();
      expect(pids).toEqual([
        'wai-steer-hop@a.service.pid',
        'wai-steer-hop@b.service.pid',
        'wai-steer@a.service.pid',
        'wai-steer@b.service.pid',
        'wai-steering-edge.service.pid',
        'wai-steering-haproxy.service.pid',
        'wai-steering-postgresql.service.pid',
      ]);
      const ps = spawnSync('ps', ['-eo', 'user:20,args'], { encoding: 'utf8' }).stdout;
      const serving = ps.split('\n').filter((l) => l.includes(`serve --config ${etc}/steer-`));
      // Each instance: its primary and a worker per core, all as wai-steering.
      expect(serving.length).toBeGreaterThanOrEqual(4);
      for (const l of serving) expect(l.startsWith('wai-steering ')).toBe(true);
      // Keys and the configs that hold the console's token: readable by their owner alone.
      for (const f of ['keys/steer.jwk', 'keys/hop-a.jwk', 'session.secret', 'steer-a.yaml']) {
        expect((statSync(join(etc, f)).mode & 0o077).toString(8), f).toBe('0');
      }
    });

    it('installs units that systemd-analyze verify accepts', () => {
      const units = join(root, 'etc', 'systemd', 'system');
      const dir = mkdtempSync(join(tmpdir(), 'wai-units-'));
      const names: string[] = [];
      for (const f of readdirSync(units)) {
        // A template is verified as its instances are run.
        const as = f.includes('@.service') ? ['a', 'b'].map((i) => f.replace('@.', `@${i}.`)) : [f];
        for (const name of as) {
          copyFileSync(join(units, f), join(dir, name));
          names.push(name);
        }
      }
      expect(names.sort()).toEqual([
        'wai-steer-hop@a.service',
        'wai-steer-hop@b.service',
        'wai-steer@a.service',
        'wai-steer@b.service',
        'wai-steering-edge.service',
        'wai-steering-haproxy.service',
        'wai-steering-postgresql.service',
        'wai-steering.target',
      ]);
      const r = spawnSync(
        'systemd-analyze',
        ['verify', '--man=no', ...names.map((n) => `./${n}`)],
        {
          cwd: dir,
          encoding: 'utf8',
        },
      );
      rmSync(dir, { recursive: true, force: true });
      expect([r.status, r.stdout, r.stderr]).toEqual([0, '', '']);
    });

    it('steers a real player through HAProxy, and its delivery becomes the figures', async () => {
      const media = join(state, 'media');
      await makeStream(media);
      const tag = (await wai('hls-tag', join(etc, 'policy.wsp'))).stdout;
      const edges = [
        { id: 'cdn-a', origin: `http://127.0.0.1:${env.WAI_EDGE_PORT_A}` },
        { id: 'cdn-b', origin: `http://127.0.0.1:${env.WAI_EDGE_PORT_B}` },
      ];
      writeFileSync(join(media, 'master.m3u8'), multivariant(tag, edges));
      const pages = await pageServer();
      const src = `${edges[0]!.origin}/master.m3u8`;
      const player = await openPlayer(`${pages.origin}/?src=${encodeURIComponent(src)}`);
      let events: PlayerEvent[] = [];
      try {
        // Playing, and steered at least twice (the first manifest, then its RELOAD-URI).
        await expect
          .poll(
            async () => {
              events = await player.events();
              const steered = events.filter((e) => e.type === 'steering').length;
              return steered >= 2 && (await player.currentTime()) >= 4;
            },
            { timeout: 120_000, interval: 500 },
          )
          .toBe(true);
      } finally {
        await player.close();
        await pages.close();
      }
      expect(events.filter((e) => e.type === 'error' && e.fatal)).toEqual([]);
      const steering = events.filter((e) => e.type === 'steering');
      for (const s of steering) {
        // Through HAProxy, and each manifest names its signed decision there.
        expect(s.url!.startsWith(`${front}/steer`), s.url).toBe(true);
        const uri = s.manifest!['science.transaction.wai-decision'] as string;
        expect(uri.startsWith(`${front}/decisions/`)).toBe(true);
        decisionUris.push(uri);
      }
      // The session the first manifest minted is the one the player reloads with (hls.js adds
      // its pathway and throughput to the RELOAD-URI's query).
      const reload = String(steering[0]!.manifest!['RELOAD-URI']);
      expect(reload).toMatch(/[?&]wai_session=[0-9a-f]{32}$/);
      expect(steering[1]!.url!.startsWith(reload), steering[1]!.url).toBe(true);
      // Each decision verifies from what the deployment serves through HAProxy, pinned to its room.
      for (const uri of decisionUris) {
        const v = await fetchAndVerify(uri, { roomId });
        expect(v.outcome.outcome, uri).toBe('accept');
      }
      // The segments came from the edges of the pathways.
      const fragments = events
        .filter((e) => e.type === 'fragment')
        .map((e) => new URL(e.url!).origin);
      expect(fragments.length).toBeGreaterThan(1);
      for (const o of fragments) expect(edges.map((e) => e.origin)).toContain(o);
      // What the player fetched, metered from the edge's logs by the hop agents, makes a figure.
      await expect
        .poll(
          async () => {
            const res = await fetch(`${front}/status`, {
              headers: { authorization: `Bearer ${token}` },
            });
            const s = (await res.json()) as { pathways: { id: string; status: string }[] };
            return s.pathways.some((p) => p.status === 'figure');
          },
          { timeout: 120_000, interval: 500 },
        )
        .toBe(true);
    });

    it('keeps the console behind its token', async () => {
      const anonymous = await fetch(`${front}/status`);
      expect(anonymous.status).toBe(401);
      const wrong = await fetch(`${front}/status`, { headers: { authorization: 'Bearer nope' } });
      expect(wrong.status).toBe(401);
      const ok = await fetch(`${front}/status`, { headers: { authorization: `Bearer ${token}` } });
      expect(ok.status).toBe(200);
      // The page itself holds no data and asks for the token; `/` leads to it.
      expect((await fetch(`${front}/console/`)).status).toBe(200);
      const slash = await fetch(`${front}/`, { redirect: 'manual' });
      expect([slash.status, slash.headers.get('location')]).toEqual([302, 'console/']);
    });

    it('answers /metrics from this machine, or with the metrics token through HAProxy', async () => {
      // From the loopback, through HAProxy and on an instance's own port.
      const local = await fetch(`${front}/metrics`);
      expect(local.status).toBe(200);
      expect(await local.text()).toContain('wai_steering_http_requests_total');
      expect((await fetch(`http://127.0.0.1:${env.WAI_PORT_A}/metrics`)).status).toBe(200);
      // From elsewhere: the installed HAProxy config, its bind taking the PROXY protocol so that a
      // client's address can be stated (192.0.2.10, TEST-NET-1: no traffic goes there).
      const metricsToken = readFileSync(join(etc, 'metrics.token'), 'utf8').trim();
      const port = await freePort();
      const cfg = join(root, 'haproxy-proxied.cfg');
      writeFileSync(
        cfg,
        readFileSync(join(etc, 'haproxy.cfg'), 'utf8').replace(
          /^(\s*bind .*)$/m,
          '$1 accept-proxy',
        ),
      );
      const haproxyEnv = Object.fromEntries(
        readFileSync(join(etc, 'haproxy.env'), 'utf8')
          .split('\n')
          .filter((l) => l.includes('='))
          .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
      );
      const proxy = spawn('haproxy', ['-db', '-f', cfg], {
        env: { ...process.env, ...haproxyEnv, WAI_LISTEN: `127.0.0.1:${port}` },
        stdio: 'ignore',
      });
      try {
        await expect
          .poll(
            () =>
              viaProxy(port, '127.0.0.1', '/healthz').then(
                (r) => r.status,
                () => 0,
              ),
            {
              timeout: 30_000,
              interval: 100,
            },
          )
          .toBe(200);
        expect((await viaProxy(port, '127.0.0.1', '/metrics')).status).toBe(200);
        const anonymous = await viaProxy(port, '192.0.2.10', '/metrics');
        expect(anonymous.status).toBe(401);
        expect(anonymous.head).toMatch(/www-authenticate: Bearer/i);
        const wrong = await viaProxy(port, '192.0.2.10', '/metrics', {
          authorization: 'Bearer nope',
        });
        expect(wrong.status).toBe(401);
        const ok = await viaProxy(port, '192.0.2.10', '/metrics?instance=b', {
          authorization: `Bearer ${metricsToken}`,
        });
        expect(ok.status).toBe(200);
        expect(ok.head).toMatch(/x-wai-instance: b/i);
        // The rest of the server is not behind the metrics token.
        expect((await viaProxy(port, '192.0.2.10', '/healthz')).status).toBe(200);
      } finally {
        proxy.kill('SIGTERM');
      }
    });

    it('is run without systemd: status, reload, logs, restart, and start after a restart', async () => {
      const status = await deployVerb('status');
      expect(status.code, status.out).toBe(0);
      expect(status.out).toContain('under supervise');
      expect(status.out).toMatch(/wai-steer@a\.service\s+running {2}pid \d+ \(supervisor \d+\)/);
      expect(status.out).toContain('all running');
      const mainPid = (name: string, text: string) =>
        new RegExp(`${name.replace(/[.@]/g, '\\$&')}\\s+running {2}pid (\\d+)`).exec(text)?.[1];
      // Reload: the supervisor runs the unit's ExecReload= (SIGHUP): the same server goes on.
      const reload = await deployVerb('reload');
      expect(reload.code, reload.out).toBe(0);
      await expect
        .poll(
          () =>
            readFileSync(join(logs, 'supervise.log'), 'utf8').match(
              /wai-steer@\.service \([ab]\): reloaded/g,
            )?.length ?? 0,
          {
            timeout: 30_000,
            interval: 200,
          },
        )
        .toBeGreaterThanOrEqual(2);
      const after = await deployVerb('status');
      expect(mainPid('wai-steer@a.service', after.out)).toBe(
        mainPid('wai-steer@a.service', status.out),
      );
      // Logs: the named service's.
      const hopLog = await deployVerb('logs', 'wai-steer-hop@a', '--lines', '3');
      expect(hopLog.code, hopLog.out).toBe(0);
      expect(hopLog.out.trim().split('\n')).toHaveLength(3);
      expect(hopLog.out).toContain('"msg":"period"');
      // Restart one service: a new process.
      const restart = await deployVerb('restart', 'wai-steer-hop@a');
      expect(restart.code, restart.out).toBe(0);
      await expect
        .poll(async () => mainPid('wai-steer-hop@a.service', (await deployVerb('status')).out), {
          timeout: 30_000,
          interval: 200,
        })
        .not.toBe(mainPid('wai-steer-hop@a.service', status.out));
      // The container restarts: every process gone at once, the pid files left behind. (Each
      // supervisor leads a process group of its own, with its service.)
      const groups = new Set(
        readdirSync(join(state, 'run')).map((f) =>
          readFileSync(join(state, 'run', f), 'utf8').trim(),
        ),
      );
      const members = spawnSync('ps', ['-eo', 'pid=,pgid='], { encoding: 'utf8' })
        .stdout.split('\n')
        .map((l) => l.trim().split(/\s+/))
        .filter(([, pgid]) => pgid !== undefined && groups.has(pgid))
        .map(([pid]) => pid!);
      for (const g of groups) {
        try {
          process.kill(-Number(g), 'SIGKILL');
        } catch {}
      }
      // Gone, not only killed: reaped (a killed PostgreSQL's pid file names a pid that must not be
      // there any more for it to start again).
      await expect
        .poll(() => members.filter((pid) => existsSync(`/proc/${pid}`)), {
          timeout: 60_000,
          interval: 200,
        })
        .toEqual([]);
      const down = await deployVerb('status');
      expect(down.code).toBe(3);
      expect(down.out).toMatch(/wai-steer@a\.service\s+stopped \(its supervisor is gone/);
      const start = await deployVerb('start');
      expect(start.code, start.out).toBe(0);
      await expect
        .poll(async () => (await deployVerb('status')).code, { timeout: 120_000, interval: 500 })
        .toBe(0);
      await expect
        .poll(
          () =>
            fetch(`${front}/healthz`).then(
              (r) => r.status,
              () => 0,
            ),
          {
            timeout: 60_000,
            interval: 250,
          },
        )
        .toBe(200);
    });

    it('exports what it decided and audits it clean', async () => {
      expect(decisionUris.length).toBeGreaterThan(0);
      const out = join(root, 'archive');
      const exported = await wai(
        ...['archive', 'export', '--url', front, '--room-id', roomId, '--out', out],
        ...['--from', 'now-30m', '--to', 'now+1m'],
      );
      expect(exported.code, exported.stderr).toBe(0);
      const audit = await wai('audit', '--archive', out, '--room-id', roomId, '--json');
      expect(audit.code, `${audit.stdout}${audit.stderr}`).toBe(0);
      const report = JSON.parse(audit.stdout) as {
        decisions: number;
        accepted: number;
        findings: number;
        room: string;
      };
      expect([report.findings, report.room]).toEqual([0, roomId]);
      // Every decision the player was steered by is in the archive, and each is accepted.
      expect(report.decisions).toBeGreaterThanOrEqual(decisionUris.length);
      expect(report.accepted).toBe(report.decisions);
    });

    it('rotates its logs, and the services go on writing them', async () => {
      const status = join(root, 'logrotate.status');
      const r = spawnSync(
        'logrotate',
        ['-f', '-s', status, join(root, 'etc', 'logrotate.d', 'wai-steering')],
        {
          encoding: 'utf8',
        },
      );
      expect([r.status, r.stderr]).toEqual([0, '']);
      for (const f of ['hop-a.log.1', 'steer-a.log.1', 'edge-a.log.1']) {
        expect(existsSync(join(logs, f)), f).toBe(true);
      }
      // The hop agent writes a line a period into its (truncated) log; nginx reopened its own.
      await expect
        .poll(() => readFileSync(join(logs, 'hop-a.log'), 'utf8').includes('"msg":"period"'), {
          timeout: 30_000,
          interval: 250,
        })
        .toBe(true);
      await fetch(`http://127.0.0.1:${env.WAI_EDGE_PORT_A}/hls/media.m3u8`);
      await expect
        .poll(() => readFileSync(join(logs, 'edge-a.log'), 'utf8').includes('media.m3u8'), {
          timeout: 30_000,
          interval: 250,
        })
        .toBe(true);
    });

    it('installs again without changing what it holds, and what it served still verifies', async () => {
      const policy = readFileSync(join(etc, 'policy.wsp'));
      const offset = (f: string) => statSync(join(logs, f)).size;
      const before = Object.fromEntries(
        ['postgresql.log', 'steer-a.log', 'steer-b.log'].map((f) => [f, offset(f)]),
      );
      const postmaster = () =>
        readFileSync(join(state, 'postgresql', 'postmaster.pid'), 'utf8').split('\n')[0];
      const pgBefore = postmaster();
      const r = await install(env);
      expect(r.code, r.out).toBe(0);
      expect(postmaster()).toBe(pgBefore);
      // PostgreSQL stayed up and the instances were stopped first: no connection ended under
      // them (57P01), and nothing the install asked of PostgreSQL was refused (FATAL).
      const since = (f: string) => readFileSync(join(logs, f), 'utf8').slice(before[f]);
      expect(since('postgresql.log')).not.toMatch(/FATAL/);
      for (const f of ['steer-a.log', 'steer-b.log']) expect(since(f)).not.toMatch(/57P01/);
      expect(r.out).not.toMatch(/PROBLEM|creating/);
      expect(r.out).toContain(`room            ${roomId}`);
      expect(readFileSync(join(etc, 'policy.wsp')).equals(policy)).toBe(true);
      for (const uri of decisionUris.slice(0, 3)) {
        expect((await fetchAndVerify(uri, { roomId })).outcome.outcome).toBe('accept');
      }
    });
  },
);
