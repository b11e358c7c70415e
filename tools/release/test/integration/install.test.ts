// The release's three artefacts, built once by `pnpm release`'s script and each installed on this
// machine where it alters nothing: the npm tarball with `npm install -g` into a fresh prefix, the
// Debian package unpacked by dpkg into a fresh root (after lintian), the hop agent's single
// executable run where no Node can be found. Each runs `wai-steer --version`, `wai-steer hop
// --help`, and a hop agent's period against a real steering server started here, whose record
// the server takes. Then every public package passes `npm publish --dry-run`, offline.
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error: the release's scripts are plain ES modules, without types.
import { npmInstall } from '../../lib/deb.mjs';
// @ts-expect-error: as above.
import { publishDryRun } from '../../lib/npm.mjs';
// @ts-expect-error: as above.
import { workspacePackages } from '../../lib/workspace.mjs';

const ROOT = join(dirname(new URL(import.meta.url).pathname), '..', '..', '..', '..');
const OUT = join(ROOT, 'dist', 'release');
const WORKSPACE_CLI = join(ROOT, 'packages', 'cli', 'dist', 'main.js');
const IS_ROOT = process.getuid?.() === 0;

interface Release {
  version: string;
  arch: { deb: string; node: string };
}

const dir = mkdtempSync(join(tmpdir(), 'wai-release-'));
let release: Release;
const timings: Record<string, number> = {};

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

/** Runs a command to its end; its status and output. */
function run(cmd: string, args: readonly string[], env: NodeJS.ProcessEnv = process.env) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', env, cwd: dir });
  return { code: r.status ?? -1, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
}

/** A long-running child whose output is kept. */
function start(cmd: string, args: readonly string[], cwd: string, env = process.env) {
  const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (b) => (out += String(b)));
  child.stderr!.on('data', (b) => (out += String(b)));
  return { child, output: () => out };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const done = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await done;
}

/** The workspace's own wai-steer, which makes the materials. */
function wai(...args: string[]): string {
  return execFileSync(process.execPath, [WORKSPACE_CLI, ...args], { cwd: dir, encoding: 'utf8' });
}

/**
 * A room, its key log (the hop's key with live/hop and energy/ModelBased), a policy of one
 * pathway with one edge hop (P 1 s), the server's config on a fresh SQLite store, and the hop
 * agent's config (a stated model of energy, nginx's log for traffic), in `into`.
 */
function materials(into: string, port: number): void {
  cpSync(join(dir, 'keys'), join(into, 'keys'), { recursive: true });
  for (const f of ['room.wrd', 'keylog.wkl']) copyFileSync(join(dir, f), join(into, f));
  const base = `http://127.0.0.1:${port}`;
  const hop = wai('pubkey', join(dir, 'keys', 'hop.jwk')).trim();
  writeFileSync(
    join(into, 'policy.yaml'),
    [
      'room: room.wrd',
      'period: 1s',
      'window: 3s',
      'lag: 1s',
      'basis: bytes',
      'tiers: ["2M"]',
      'floor: 0',
      'latency_ceiling: 150ms',
      'min_buffer: 0s',
      'hysteresis: 0%',
      'ttl: 10s',
      'min_ttl: 2s',
      `server_uri: ${base}/steer`,
      `reload_uri: ${base}/steer`,
      `decision_uri: ${base}/decisions/`,
      'pathways:',
      '  - id: cdn-a',
      '    latency: 20ms',
      '    hops:',
      `      - { key: ${hop}, place: edge }`,
      '',
    ].join('\n'),
  );
  execFileSync(
    process.execPath,
    [
      WORKSPACE_CLI,
      ...['policy', 'compile', 'policy.yaml', '--key', 'keys/steer.jwk', '--room', 'room.wrd'],
      ...['--key-log', 'keylog.wkl', '--out', 'policy.wsp'],
    ],
    { cwd: into, stdio: 'ignore' },
  );
  writeFileSync(
    join(into, 'steer.yaml'),
    [
      'room: room.wrd',
      'key_log: keylog.wkl',
      'policy: policy.wsp',
      'signing_key: keys/steer.jwk',
      `listen: { host: 127.0.0.1, port: ${port} }`,
      'store: { path: steering.sqlite, create: true }',
      '',
    ].join('\n'),
  );
  writeFileSync(join(into, 'access.log'), '');
  writeFileSync(
    join(into, 'hop.yaml'),
    [
      'room: room.wrd',
      'key_log: keylog.wkl',
      'key: keys/hop.jwk',
      'policy: policy.wsp',
      `servers: ["${base}"]`,
      'spool: spool',
      'energy: { source: model, idle_watts: 30, nanojoules_per_byte: 60 }',
      'traffic:',
      '  source: nginx',
      '  log: access.log',
      '  routes:',
      "    - { match: '\\.(ts|m4s)$', track: 1, kind: media, tier: 0 }",
      '',
    ].join('\n'),
  );
}

/** `wai-steer` of an artefact: the program and the arguments before the command's. */
type Bin = { cmd: string; pre: string[]; env?: NodeJS.ProcessEnv };

/**
 * The artefact's `--version` and `hop --help`, then a steering server (`server`) and the
 * artefact's hop agent in `into`: the agent's first record reaches the server, which holds it.
 */
async function exercise(name: string, bin: Bin, server: Bin): Promise<void> {
  const env = bin.env ?? process.env;
  const version = run(bin.cmd, [...bin.pre, '--version'], env);
  expect([version.code, version.stdout, version.stderr]).toEqual([
    0,
    `wai-steer ${release.version}\n`,
    '',
  ]);
  const help = run(bin.cmd, [...bin.pre, 'hop', '--help'], env);
  expect(help.code, help.stderr).toBe(0);
  expect(help.stdout).toContain('hop run');

  const into = join(dir, name);
  const port = await freePort();
  materials(into, port);
  const base = `http://127.0.0.1:${port}`;
  const steer = start(server.cmd, [...server.pre, 'serve', '--config', 'steer.yaml'], into);
  let agent: ReturnType<typeof start> | undefined;
  try {
    await expect
      .poll(
        () =>
          fetch(`${base}/healthz`).then(
            (r) => r.status,
            () => 0,
          ),
        {
          timeout: 60_000,
          interval: 200,
        },
      )
      .toBe(200);
    const started = Date.now();
    agent = start(bin.cmd, [...bin.pre, 'hop', 'run', '--config', 'hop.yaml'], into, env);
    // A record every server took is moved to done/: then the server serves it by its digest.
    const done = join(into, 'spool', 'done');
    await expect
      .poll(() => (existsSync(done) ? readdirSync(done).filter((f) => f.endsWith('.wmh')) : []), {
        timeout: 60_000,
        interval: 100,
      })
      .not.toEqual([]);
    timings[`${name}: agent's first record taken`] = Date.now() - started;
    const file = readdirSync(done).find((f) => f.endsWith('.wmh'))!;
    const digest = /-([0-9a-f]{64})\.wmh$/.exec(file)![1];
    const held = await fetch(`${base}/records/${digest}`);
    expect(held.status, agent.output()).toBe(200);
    expect(new Uint8Array(await held.arrayBuffer())).toEqual(
      new Uint8Array(readFileSync(join(done, file))),
    );
    expect(agent.output()).not.toMatch(/record refused/);
  } finally {
    if (agent !== undefined) await stop(agent.child);
    await stop(steer.child);
  }
}

beforeAll(async () => {
  expect(existsSync(WORKSPACE_CLI), `${WORKSPACE_CLI}: build first (pnpm build)`).toBe(true);
  // Built once, here (WAI_RELEASE_REUSE=1: the artefacts already under dist/release/).
  if (process.env.WAI_RELEASE_REUSE !== '1' || !existsSync(join(OUT, 'release.json'))) {
    const t = Date.now();
    const built = await new Promise<{ code: number; out: string }>((resolve) => {
      const b = start(process.execPath, [join(ROOT, 'tools', 'release', 'build.mjs')], ROOT);
      // Its steps as they go, so that a run that stops says where.
      b.child.stdout!.on('data', (d) => process.stderr.write(d));
      b.child.on('close', (code) => resolve({ code: code ?? -1, out: b.output() }));
    });
    timings['pnpm release'] = Date.now() - t;
    expect(built.code, built.out).toBe(0);
  }
  release = JSON.parse(readFileSync(join(OUT, 'release.json'), 'utf8')) as Release;
  mkdirSync(join(dir, 'keys'));
  for (const k of ['authority', 'origin', 'steer', 'hop']) {
    wai('keygen', '--out', join(dir, 'keys', `${k}.jwk`));
  }
  wai(
    ...['room', 'create', '--authority', 'keys/authority.jwk', '--origin', 'keys/origin.jwk'],
    ...['--name', 'release test', '--out', 'room.wrd'],
  );
  wai(
    ...['keylog', 'create', '--origin', 'keys/origin.jwk'],
    ...['--entry', 'keys/authority.jwk=live/room'],
    ...['--entry', 'keys/steer.jwk=live/steer,energy/ModelBased'],
    ...['--entry', 'keys/hop.jwk=live/hop,energy/ModelBased', '--out', 'keylog.wkl'],
  );
});

afterAll(() => {
  console.log(
    `release timings: ${Object.entries(timings)
      .map(([k, v]) => `${k} ${(v / 1000).toFixed(1)} s`)
      .join('; ')}`,
  );
  rmSync(dir, { recursive: true, force: true });
});

describe('the npm tarball', () => {
  it('installs alone with npm install -g into a fresh prefix, and runs the agent', async () => {
    const tarball = join(OUT, `wai-steering-cli-${release.version}.tgz`);
    const prefix = join(dir, 'npm-prefix');
    const t = Date.now();
    await npmInstall(tarball, prefix, { global: true });
    timings['npm install -g'] = Date.now() - t;
    // No package of the workspace came from a registry: the CLI bundles them, the console's
    // pages are inside its tarball.
    const pkg = join(prefix, 'lib', 'node_modules', '@wai-steering', 'cli');
    expect(readdirSync(join(prefix, 'lib', 'node_modules', '@wai-steering'))).toEqual(['cli']);
    expect(readdirSync(join(pkg, 'node_modules', '@wai-steering'))).toEqual(['console']);
    const bin: Bin = { cmd: join(prefix, 'bin', 'wai-steer'), pre: [] };
    await exercise('npm', bin, bin);
    // `deploy` finds the deployment the tarball ships (share/deploy/install.sh), and says that
    // none is installed under an empty root.
    expect(existsSync(join(pkg, 'share', 'deploy', 'install.sh'))).toBe(true);
    const none = run(bin.cmd, ['deploy', 'status', '--root', join(dir, 'empty-root')]);
    expect([none.code, none.stderr]).toEqual([
      2,
      expect.stringMatching(/^wai-steer: deploy status: no deployment installed at /),
    ]);
  });
});

describe('the Debian package', () => {
  const deb = () => join(OUT, `wai-steering_${release.version}_${release.arch.deb}.deb`);

  it('states what it needs and is lintian-clean', () => {
    const field = (f: string) => run('dpkg-deb', ['-f', deb(), f]).stdout.trim();
    expect(field('Package')).toBe('wai-steering');
    expect(field('Architecture')).toBe(release.arch.deb);
    expect(field('Depends')).toMatch(/^nodejs \(>= 20\.19\), adduser, libc6/);
    const lintian = spawnSync('lintian', ['--version']);
    if (lintian.error !== undefined) {
      console.warn('lintian is not installed: the Debian package is not checked by it');
      return;
    }
    const t = Date.now();
    // Errors and warnings fail; what lintian only notes (info) is shown.
    const r = run('lintian', ['--fail-on', 'error,warning', '--display-info', deb()]);
    timings.lintian = Date.now() - t;
    const tags = new Map<string, number>();
    for (const m of r.stdout.matchAll(/^I: \S+ (\S+)/gm))
      tags.set(m[1]!, (tags.get(m[1]!) ?? 0) + 1);
    console.log(
      `lintian: no error, no warning; info: ${[...tags].map(([t, n]) => `${t} ×${n}`).join(', ')}`,
    );
    expect([r.code, r.stdout.match(/^[EW]: .*/gm)]).toEqual([0, null]);
  });

  it('unpacks into a fresh root with dpkg, and its server and agent run', async () => {
    const root = join(dir, 'deb-root');
    const t = Date.now();
    execFileSync('dpkg', ['-x', deb(), root]);
    timings['dpkg -x'] = Date.now() - t;
    // The units of deploy/, their command the package's own.
    const unit = readFileSync(join(root, 'lib/systemd/system/wai-steer@.service'), 'utf8');
    expect(unit).toMatch(/^ExecStart=\/usr\/bin\/wai-steer serve /m);
    // The maintainer scripts are shell that reads: postinst makes the user.
    const control = join(dir, 'deb-control');
    execFileSync('dpkg-deb', ['-e', deb(), control]);
    expect(readFileSync(join(control, 'postinst'), 'utf8')).toMatch(
      /adduser --system --group .* wai-steering/,
    );
    for (const s of ['postinst', 'postrm'])
      expect(run('sh', ['-n', join(control, s)]).code).toBe(0);
    // Its server loads the package's own native addon (better-sqlite3, for this architecture).
    const bin: Bin = { cmd: process.execPath, pre: [join(root, 'usr/bin/wai-steer')] };
    await exercise('deb', bin, bin);
  });
});

describe('the single executable of the hop agent', () => {
  it('runs where no Node can be found', async () => {
    const exe = join(dir, 'bin', 'wai-steer');
    cpSync(join(OUT, `wai-steer-hop-${release.version}-${release.arch.node}`), exe);
    // Its PATH holds no node; as root, the machine's node is hidden from it altogether.
    const env = { PATH: join(dir, 'bin'), HOME: dir };
    const node = realpathSync(process.execPath);
    const hidden = IS_ROOT && run('unshare', ['--version']).code === 0;
    const bin: Bin = hidden
      ? {
          cmd: 'unshare',
          pre: ['--mount', 'sh', '-c', `mount --bind /dev/null ${node} && exec "$0" "$@"`, exe],
          env: { ...env, PATH: `${join(dir, 'bin')}:/usr/bin:/bin` },
        }
      : { cmd: exe, pre: [], env };
    if (hidden) {
      const probe = run('unshare', [...bin.pre.slice(0, 4), 'node', '--version'], bin.env);
      expect(probe.code).not.toBe(0);
    }
    const server: Bin = { cmd: process.execPath, pre: [WORKSPACE_CLI] };
    await exercise('sea', bin, server);
    // What it lacks, it says in one line, with where to find it.
    const serve = run(exe, ['serve'], env);
    expect([serve.code, serve.stderr]).toEqual([
      2,
      expect.stringMatching(/^wai-steer: unknown command "serve" in the hop agent's single/),
    ]);
  });
});

describe('npm publish --dry-run', () => {
  it('passes for every public package, without contacting a registry', async () => {
    // The tarballs the release packed, as `pnpm publish` packs them (workspace: ranges made
    // versions), one per public package of the workspace.
    const packages = workspacePackages();
    const packed = readdirSync(join(OUT, 'npm')).map((f) => ({
      name: JSON.parse(
        execFileSync('tar', ['-xzOf', join(OUT, 'npm', f), 'package/package.json'], {
          encoding: 'utf8',
        }),
      ).name as string,
      tarball: join(OUT, 'npm', f),
    }));
    const publicNames = [...packages.values()]
      .filter((p: { manifest: { private?: boolean } }) => p.manifest.private !== true)
      .map((p: { manifest: { name: string } }) => p.manifest.name);
    expect(packed.map((p) => p.name).sort()).toEqual(publicNames.sort());
    const dry = await publishDryRun(packed);
    expect(dry.connections).toBe(0);
    for (const r of dry.results) expect(r.ok, `${r.name}: ${r.detail}`).toBe(true);
  });
});
