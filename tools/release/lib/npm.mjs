// The npm tarball of the command line, `wai-steering-cli-<v>.tgz`: the CLI's build with every
// workspace package it reaches bundled into its `dist/` (esbuild, from their builds), so that it
// installs with `npm install -g` from a registry that holds none of them; third-party packages
// stay dependencies (better-sqlite3, pg and sodium-native have native addons), each at the exact
// version the workspace pins. A workspace package that is files alone (the console's pages) is
// shipped whole inside the tarball (`bundleDependencies`). Then every public package packed as
// it would be published, and `npm publish --dry-run` of each, offline.
import { execFileSync, spawn } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { builtinModules } from 'node:module';
import { createServer } from 'node:net';
import { basename, join, relative } from 'node:path';
import * as esbuild from 'esbuild';
import { hasEntry, OUT, packageOf, publicPackages, ROOT, reach } from './workspace.mjs';

/**
 * npm's environment for the release's commands: no update check (npm asks its registry for a
 * newer npm once a day, unless told not to; a machine without a user config would ask), no
 * audit, no funding message.
 */
export const NPM_ENV = {
  ...process.env,
  npm_config_update_notifier: 'false',
  npm_config_audit: 'false',
  npm_config_fund: 'false',
};

const BUILTINS = new Set(builtinModules);

/** `new URL('./worker.js', …)` in a build: a file loaded beside the code at run time. */
const BESIDE = /new URL\(\s*["']\.\/([\w.-]+\.js)["']/g;

/** The files of a package's build loaded beside its code (a worker's entry): name → path. */
function besideEntries(dir) {
  const dist = join(dir, 'dist');
  if (!existsSync(dist)) return {};
  const entries = {};
  for (const f of readdirSync(dist)) {
    if (!f.endsWith('.js')) continue;
    for (const m of readFileSync(join(dist, f), 'utf8').matchAll(BESIDE)) {
      const file = join(dist, m[1]);
      if (existsSync(file)) entries[m[1].replace(/\.js$/, '')] = file;
    }
  }
  return entries;
}

/** Stages the CLI's release package in `into` (package.json, dist/, share/, node_modules/). */
export async function stageCli(packages, into) {
  const cli = packages.get('@wai-steering/cli');
  const { reached, dependencies, optionalDependencies } = reach(packages);
  const whole = [...reached.values()].filter((p) => !hasEntry(p.manifest));
  const wholeNames = new Set(whole.map((p) => p.manifest.name));
  rmSync(into, { recursive: true, force: true });
  mkdirSync(into, { recursive: true });

  // The code: the CLI's entries and every file its packages load beside their code.
  const entryPoints = {
    main: join(cli.dir, 'dist', 'main.js'),
    index: join(cli.dir, 'dist', 'index.js'),
  };
  for (const p of reached.values()) Object.assign(entryPoints, besideEntries(p.dir));
  const externals = new Map();
  const result = await esbuild.build({
    entryPoints,
    outdir: join(into, 'dist'),
    entryNames: '[name]',
    chunkNames: 'chunk-[hash]',
    absWorkingDir: ROOT,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    metafile: true,
    logLevel: 'warning',
    // tsup's chunks import one another bare; the packages declare no side effects.
    logOverride: { 'ignored-bare-import': 'silent' },
    plugins: [
      {
        name: 'third-party-external',
        setup(b) {
          b.onResolve({ filter: /^[^./]/ }, (args) => {
            const name = packageOf(args.path.replace(/^node:/, ''));
            if (args.path.startsWith('node:') || BUILTINS.has(name)) {
              return { path: args.path, external: true };
            }
            if (name.startsWith('@wai-steering/') && !wholeNames.has(name)) return undefined;
            externals.set(name, relative(ROOT, args.importer));
            return { path: args.path, external: true };
          });
        },
      },
    ],
  });
  if (result.errors.length > 0) throw new Error('esbuild failed');
  const missing = [...externals].filter(
    ([name]) =>
      dependencies[name] === undefined &&
      optionalDependencies[name] === undefined &&
      !wholeNames.has(name),
  );
  if (missing.length > 0) {
    throw new Error(
      `imported at run time but no package of the workspace depends on it: ${missing
        .map(([n, by]) => `${n} (by ${by})`)
        .join(', ')}`,
    );
  }

  // The packages that are files alone, whole, with nothing to install for them.
  const bundled = {};
  for (const p of whole) {
    const to = join(into, 'node_modules', p.manifest.name);
    mkdirSync(to, { recursive: true });
    for (const f of [...(p.manifest.files ?? []), 'README.md']) {
      if (existsSync(join(p.dir, f))) cpSync(join(p.dir, f), join(to, f), { recursive: true });
    }
    const { dependencies: _d, devDependencies: _dd, scripts: _s, ...rest } = p.manifest;
    writeFileSync(join(to, 'package.json'), `${JSON.stringify(rest, null, 2)}\n`);
    bundled[p.manifest.name] = p.manifest.version;
  }

  // Files the bundled packages ship beside their build (the agent's nginx log format), and the
  // deployment of deploy/ (`wai-steer deploy install` runs its install.sh).
  const share = join(into, 'share');
  for (const p of reached.values()) {
    if (!hasEntry(p.manifest)) continue;
    for (const f of p.manifest.files ?? []) {
      if (f === 'dist' || !existsSync(join(p.dir, f))) continue;
      cpSync(join(p.dir, f), join(share, basename(p.dir), f), { recursive: true });
    }
  }
  // deploy/ as it runs (its tests and their tooling left out).
  const DEV = new Set(['test', 'scripts', 'node_modules', 'package.json', 'tsconfig.json']);
  for (const f of readdirSync(join(ROOT, 'deploy'))) {
    if (DEV.has(f) || /^(vitest\.config\.|test-results)/.test(f)) continue;
    cpSync(join(ROOT, 'deploy', f), join(share, 'deploy', f), { recursive: true });
  }

  const m = cli.manifest;
  const manifest = {
    name: m.name,
    version: m.version,
    description: m.description,
    license: m.license,
    type: 'module',
    bin: { 'wai-steer': './dist/main.js' },
    exports: { '.': './dist/index.js', './package.json': './package.json' },
    files: ['dist', 'share'],
    engines: m.engines,
    dependencies: { ...dependencies, ...bundled },
    ...(Object.keys(optionalDependencies).length > 0 ? { optionalDependencies } : {}),
    bundleDependencies: Object.keys(bundled),
  };
  writeFileSync(join(into, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  cpSync(join(cli.dir, 'README.md'), join(into, 'README.md'));
  cpSync(join(ROOT, 'LICENSE'), join(into, 'LICENSE'));
  // The workspace packages whose code is in the bundle, read from what esbuild took in.
  const dirs = new Map([...packages.values()].map((p) => [relative(ROOT, p.dir), p.manifest.name]));
  const inBundle = new Set(
    Object.keys(result.metafile.inputs).flatMap((f) => {
      const parts = relative(ROOT, join(ROOT, f)).split('/');
      const name = dirs.get(parts.slice(0, 2).join('/')) ?? dirs.get(parts[0]);
      return name === undefined ? [] : [name];
    }),
  );
  return { manifest, reached: [...inBundle].sort(), bundled: Object.keys(bundled) };
}

/** `npm pack` of a staged package into `dest`; the tarball's path. */
export function npmPack(dir, dest) {
  mkdirSync(dest, { recursive: true });
  const out = execFileSync('npm', ['pack', '--json', '--pack-destination', dest], {
    cwd: dir,
    env: NPM_ENV,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return join(dest, JSON.parse(out)[0].filename);
}

/** Packs every public package of the workspace as `pnpm publish` would; their tarballs. */
export function packPublic(packages, dest) {
  rmSync(dest, { recursive: true, force: true });
  mkdirSync(dest, { recursive: true });
  return publicPackages(packages).map((p) => {
    const before = new Set(readdirSync(dest));
    execFileSync('pnpm', ['pack', '--pack-destination', dest], {
      cwd: p.dir,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const made = readdirSync(dest).filter((f) => !before.has(f));
    if (made.length !== 1)
      throw new Error(`${p.manifest.name}: pnpm pack made ${made.length} files`);
    return { name: p.manifest.name, tarball: join(dest, made[0]) };
  });
}

/**
 * `npm publish --dry-run --offline` of each tarball, against a registry address on the loopback
 * that counts the connections made to it: the check must pass without contacting a registry.
 */
export async function publishDryRun(tarballs) {
  let connections = 0;
  const server = createServer((s) => {
    connections++;
    s.destroy();
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const registry = `http://127.0.0.1:${server.address().port}/`;
  const results = [];
  try {
    for (const { name, tarball } of tarballs) {
      const args = [
        'publish',
        '--dry-run',
        '--offline',
        '--fetch-retries=0',
        '--json',
        `--registry=${registry}`,
        tarball,
      ];
      const run = await spawnJson('npm', args);
      results.push({
        name,
        ok: run.status === 0,
        detail: run.status === 0 ? run.json : run.stderr,
      });
    }
  } finally {
    await new Promise((r) => server.close(r));
  }
  return { results, connections };
}

/**
 * Runs `cmd` to its end without blocking this process (the loopback registry above must answer
 * while it runs: a blocked event loop would hold a connection open until npm's fetch timeout),
 * within `timeoutMs`; its status and its stdout read as JSON where it is JSON.
 */
function spawnJson(cmd, args, timeoutMs = 120_000) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: OUT, env: NPM_ENV, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b) => (stdout += String(b)));
    child.stderr.on('data', (b) => (stderr += String(b)));
    const timer = setTimeout(() => {
      stderr += `\n${cmd} ${args.join(' ')}: no end after ${timeoutMs / 1000} s, stopped`;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('close', (status) => {
      clearTimeout(timer);
      if (status !== 0) return resolve({ status: status ?? -1, stderr });
      let json;
      try {
        json = JSON.parse(stdout);
      } catch {
        json = stdout;
      }
      resolve({ status: 0, json });
    });
  });
}
