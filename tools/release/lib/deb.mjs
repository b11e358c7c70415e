// The Debian package `wai-steering_<v>_<arch>.deb`: the npm tarball of the command line
// installed (npm, its dependencies from the registry) under /usr/lib/wai-steering, `wai-steer` in
// /usr/bin, deploy/'s systemd units (their command moved to /usr/bin/wai-steer), the system user
// `wai-steering` made by postinst, `Depends: nodejs (>= 20.19)`. better-sqlite3's addon makes it
// of one architecture; sodium-native's prebuilt addons of the others are left out.
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { basename, join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';
import { NPM_ENV } from './npm.mjs';
import { prebuildMirror } from './prebuild.mjs';
import { OUT, ROOT } from './workspace.mjs';

export const PACKAGE = 'wai-steering';
const LIB = 'usr/lib/wai-steering';
const CLI = `${LIB}/node_modules/@wai-steering/cli`;
const NODE_ARCH = {
  amd64: 'linux-x64',
  arm64: 'linux-arm64',
  armhf: 'linux-arm',
  i386: 'linux-ia32',
};

function walk(dir) {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    const s = lstatSync(p);
    return s.isDirectory() ? walk(p) : [p];
  });
}

/** npm's install of the CLI's tarball under `prefix`, as `npm install -g` lays it out. */
export async function npmInstall(tarball, prefix, { global = false } = {}) {
  const manifest = JSON.parse(
    execFileSync('tar', ['-xzOf', tarball, 'package/package.json'], { encoding: 'utf8' }),
  );
  const mirror = await prebuildMirror(manifest.dependencies['better-sqlite3']);
  try {
    const args = [
      'install',
      ...(global ? ['--global'] : []),
      `--prefix=${prefix}`,
      `--cache=${join(OUT, '.npm-cache')}`,
      '--omit=dev',
      '--prefer-offline',
      // A registry that cannot be reached fails the build in a minute or two, not after npm's
      // retries of each of the dependencies.
      '--fetch-retries=1',
      '--fetch-timeout=60000',
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
      tarball,
    ];
    // Asynchronously: the mirror answers from this process.
    const r = await run('npm', args, { ...NPM_ENV, ...mirror.env }, 600_000);
    if (r.status !== 0) throw new Error(`npm ${args.join(' ')}: exit ${r.status}\n${r.stderr}`);
  } finally {
    await mirror.close();
  }
}

/**
 * Runs a command to its end without blocking this process, within `timeoutMs` (then it is
 * stopped, and its stderr says so); its status and stderr.
 */
export function run(cmd, args, env, timeoutMs = 600_000) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (b) => (stderr += String(b)));
    const timer = setTimeout(() => {
      stderr += `\n${cmd}: no end after ${timeoutMs / 1000} s, stopped`;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stderr });
    });
  });
}

/** What of the installed dependencies a package needs at run time, for this architecture. */
function prune(modules, arch) {
  // better-sqlite3: its code and its addon, not SQLite's sources nor the build's objects.
  const bs = join(modules, 'better-sqlite3');
  for (const d of ['deps', 'src']) rmSync(join(bs, d), { recursive: true, force: true });
  const release = join(bs, 'build', 'Release');
  for (const f of readdirSync(release)) {
    if (f !== 'better_sqlite3.node') rmSync(join(release, f), { recursive: true, force: true });
  }
  for (const f of readdirSync(join(bs, 'build'))) {
    if (f !== 'Release') rmSync(join(bs, 'build', f), { recursive: true, force: true });
  }
  // Prebuilt addons (sodium-native's, and those of its dependencies for the Bare runtime): this
  // architecture's alone, and Node's alone (a `.bare` addon is never loaded by Node).
  for (const f of walk(modules)) {
    const m = /\/prebuilds\/([^/]+)\//.exec(f);
    if ((m && m[1] !== NODE_ARCH[arch]) || f.endsWith('.bare')) rmSync(f);
  }
  // Sources, type declarations, maps and the packages' own docs: none is run (their licences
  // stay, beside their code).
  for (const f of walk(modules)) {
    const name = basename(f);
    if (
      /\.(d\.ts|d\.mts|d\.cts|map|c|cc|h|gyp|gypi|md|markdown)$/i.test(name) ||
      name.startsWith('.')
    ) {
      if (!/^licen[cs]e/i.test(name)) rmSync(f, { force: true });
    }
  }
  removeEmptyDirectories(modules);
  rmSync(join(modules, '.package-lock.json'), { force: true });
  rmSync(join(modules, '.bin'), { recursive: true, force: true });
}

function removeEmptyDirectories(dir) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (lstatSync(p).isDirectory()) removeEmptyDirectories(p);
  }
  if (readdirSync(dir).length === 0) rmSync(dir, { recursive: true });
}

/**
 * Modes as Debian's tools leave them: directories 0755, a script (`#!`) 0755, any other file
 * 0644 (a native addon is a shared library, not a program); addons stripped of their symbols
 * as dh_strip strips a shared library.
 */
function normalise(stage) {
  execFileSync('chmod', ['-R', 'u=rwX,go=rX', stage]);
  for (const f of walk(stage)) {
    if (lstatSync(f).isSymbolicLink() || f.startsWith(join(stage, 'DEBIAN'))) continue;
    const head = readFileSync(f).subarray(0, 4).toString('latin1');
    if (head === '\x7fELF') {
      execFileSync('strip', [
        '--remove-section=.comment',
        '--remove-section=.note',
        '--strip-unneeded',
        f,
      ]);
    }
    chmodSync(f, head.startsWith('#!') ? 0o755 : 0o644);
  }
}

/** The shared libraries' packages the ELF files need (dpkg-shlibdeps), as Depends. */
function shlibDepends(stage) {
  const elves = walk(stage).filter(
    (f) => readFileSync(f).subarray(0, 4).toString('latin1') === '\x7fELF',
  );
  if (elves.length === 0) return [];
  const work = join(OUT, 'stage', 'shlibs');
  rmSync(work, { recursive: true, force: true });
  mkdirSync(join(work, 'debian'), { recursive: true });
  writeFileSync(
    join(work, 'debian', 'control'),
    `Source: ${PACKAGE}\n\nPackage: ${PACKAGE}\nArchitecture: any\n`,
  );
  const out = execFileSync('dpkg-shlibdeps', ['-O', ...elves], {
    cwd: work,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const m = /shlibs:Depends=(.*)/.exec(out);
  return m
    ? m[1]
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : [];
}

const MAINTAINER = process.env.DEBEMAIL?.includes('<')
  ? process.env.DEBEMAIL
  : 'wai-steering maintainers <maintainers@wai-steering.invalid>';

const POSTINST = `#!/bin/sh
# The system user the services run as, and their state and log directories.
set -e
if [ "$1" = configure ]; then
  if ! getent passwd wai-steering >/dev/null; then
    adduser --system --group --home /var/lib/wai-steering --no-create-home --quiet wai-steering
  fi
  install -d -m 0755 -o wai-steering -g wai-steering /var/lib/wai-steering
  install -d -m 0750 -o wai-steering -g wai-steering /var/log/wai-steering
  if [ -d /run/systemd/system ]; then systemctl --system daemon-reload >/dev/null || true; fi
fi
`;

const POSTRM = `#!/bin/sh
# The units gone, systemd reads its units again; a purge removes the logs. The user and
# /var/lib/wai-steering (keys, the store) are kept: they hold what cannot be made again.
set -e
if [ -d /run/systemd/system ]; then systemctl --system daemon-reload >/dev/null || true; fi
if [ "$1" = purge ]; then rm -rf /var/log/wai-steering; fi
`;

// The deployment's units are wanted by its own target, which groups them (`systemctl restart
// wai-steering.target`) and is itself wanted by multi-user.target.
const LINTIAN_OVERRIDES = `# The units of the deployment are wanted by wai-steering.target, shipped in this package: it
# groups them, and is itself WantedBy=multi-user.target.
${[
  'wai-steer-hop@.service',
  'wai-steer@.service',
  'wai-steering-edge.service',
  'wai-steering-haproxy.service',
]
  .map(
    (u) =>
      `${PACKAGE}: systemd-service-file-refers-to-unusual-wantedby-target wai-steering.target [lib/systemd/system/${u}]`,
  )
  .join('\n')}
`;

/** wai-steer(1), from the command line's own help. */
function manPage(stage, version) {
  const help = execFileSync(process.execPath, [join(stage, CLI, 'dist', 'main.js'), '--help'], {
    encoding: 'utf8',
  });
  const esc = (line) => line.replaceAll('\\', '\\e').replace(/^([.'])/, '\\&$1');
  const page = [
    `.TH WAI-STEER 1 "" "wai-steering ${version}" "User Commands"`,
    '.SH NAME',
    'wai-steer \\- energy-aware content steering: server, hop agent, verifier and auditor',
    '.SH SYNOPSIS',
    '.B wai-steer',
    '.I command',
    '[arguments] [options]',
    '.SH DESCRIPTION',
    '.nf',
    ...help.trimEnd().split('\n').map(esc),
    '.fi',
    '.SH SEE ALSO',
    "Each command's own help: \\fBwai-steer\\fR \\fIcommand\\fR \\fB\\-\\-help\\fR.",
    '',
  ].join('\n');
  const dir = join(stage, 'usr/share/man/man1');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'wai-steer.1.gz'), gzipSync(page, { level: 9 }));
}

/** Builds the Debian package from the CLI's npm tarball; its path and what it holds. */
export async function buildDeb(cliTarball, version, arch) {
  const stage = join(OUT, 'stage', 'deb');
  rmSync(stage, { recursive: true, force: true });
  mkdirSync(join(stage, LIB), { recursive: true });
  await npmInstall(cliTarball, join(stage, LIB));
  for (const f of ['package.json', 'package-lock.json'])
    rmSync(join(stage, LIB, f), { force: true });
  prune(join(stage, LIB, 'node_modules'), arch);

  mkdirSync(join(stage, 'usr/bin'), { recursive: true });
  symlinkSync(
    `../lib/wai-steering/node_modules/@wai-steering/cli/dist/main.js`,
    join(stage, 'usr/bin/wai-steer'),
  );

  // deploy/'s units, their command the package's.
  const units = join(stage, 'lib/systemd/system');
  mkdirSync(units, { recursive: true });
  for (const f of readdirSync(join(ROOT, 'deploy', 'systemd'))) {
    const text = readFileSync(join(ROOT, 'deploy', 'systemd', f), 'utf8').replaceAll(
      '/usr/local/bin/wai-steer',
      '/usr/bin/wai-steer',
    );
    writeFileSync(join(units, f), text);
  }

  const doc = join(stage, 'usr/share/doc', PACKAGE);
  mkdirSync(doc, { recursive: true });
  writeFileSync(
    join(doc, 'copyright'),
    [
      'Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/',
      `Upstream-Name: ${PACKAGE}`,
      '',
      'Files: *',
      `Copyright: ${new Date().getUTCFullYear()} the wai-steering authors`,
      'License: Apache-2.0',
      ' On Debian systems, the full text of the Apache License, Version 2.0 is in',
      ' /usr/share/common-licenses/Apache-2.0.',
      '',
      'Files: usr/lib/wai-steering/node_modules/*',
      "Copyright: each package's authors, as its LICENSE file says",
      'License: various',
      " Each package's licence is in its directory's package.json and LICENSE file.",
      '',
    ].join('\n'),
  );
  const date = execFileSync('date', ['-R', '-u', '-d', '@0'], { encoding: 'utf8' }).trim();
  const changelog = `${PACKAGE} (${version}) unstable; urgency=medium\n\n  * Release ${version}: see the project's CHANGELOG of each package.\n\n -- ${MAINTAINER}  ${date}\n`;
  writeFileSync(join(doc, 'changelog.gz'), gzipSync(changelog, { level: 9 }));

  manPage(stage, version);
  const overrides = join(stage, 'usr/share/lintian/overrides');
  mkdirSync(overrides, { recursive: true });
  writeFileSync(join(overrides, PACKAGE), LINTIAN_OVERRIDES);
  normalise(stage);

  const files = walk(stage).filter((f) => !lstatSync(f).isSymbolicLink());
  const kib = Math.ceil(files.reduce((n, f) => n + lstatSync(f).size, 0) / 1024);
  const depends = ['nodejs (>= 20.19)', 'adduser', ...shlibDepends(stage)];
  const DEBIAN = join(stage, 'DEBIAN');
  mkdirSync(DEBIAN);
  writeFileSync(
    join(DEBIAN, 'control'),
    [
      `Package: ${PACKAGE}`,
      `Version: ${version}`,
      `Architecture: ${arch}`,
      `Maintainer: ${MAINTAINER}`,
      `Installed-Size: ${kib}`,
      `Depends: ${depends.join(', ')}`,
      'Suggests: postgresql, haproxy, nginx, logrotate',
      'Section: net',
      'Priority: optional',
      'Description: energy-aware content steering server, hop agent and tools',
      ' wai-steer tells HLS and DASH players which CDN pathway to use, choosing the one',
      ' that delivers for the fewest joules, and signs every choice so that anyone',
      ' holding the evidence can recompute it. The package holds the command line (the',
      ' steering server, the hop agent, the verifier and the auditor), the systemd',
      ' units of a deployment, and the system user the services run as.',
      '',
    ].join('\n'),
  );
  for (const [name, text] of [
    ['postinst', POSTINST],
    ['postrm', POSTRM],
  ]) {
    writeFileSync(join(DEBIAN, name), text);
    chmodSync(join(DEBIAN, name), 0o755);
  }
  writeFileSync(
    join(DEBIAN, 'md5sums'),
    files
      .map(
        (f) =>
          `${createHash('md5').update(readFileSync(f)).digest('hex')}  ${relative(stage, f)}\n`,
      )
      .join(''),
  );
  const file = join(OUT, `${PACKAGE}_${version}_${arch}.deb`);
  rmSync(file, { force: true });
  execFileSync('dpkg-deb', ['--root-owner-group', '-Zxz', '--build', stage, file], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return { file, depends };
}
