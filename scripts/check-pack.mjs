#!/usr/bin/env node
// Packs `@wai-steering/wire`, installs the tarball in a fresh ESM project and imports it, with
// its types: what a third party that depends on `wire` alone gets. Then packs every other public
// package and checks that its tarball depends on no private package of the workspace and that
// no file in it imports one (a private package, `@wai-steering/config-text`, is bundled).
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const wire = join(root, 'packages', 'wire');
const work = mkdtempSync(join(tmpdir(), 'wire-pack-'));
const run = (cmd, args, cwd) =>
  execFileSync(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'inherit'] });

try {
  run('pnpm', ['pack', '--pack-destination', work], wire);
  const tarball = readdirSync(work).find((f) => f.endsWith('.tgz'));
  if (!tarball) throw new Error('pnpm pack wrote no tarball');
  const app = join(work, 'app');
  run('mkdir', ['-p', app], work);
  writeFileSync(
    join(app, 'package.json'),
    JSON.stringify({ name: 'wire-consumer', private: true, type: 'module' }, null, 2),
  );
  run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', join(work, tarball)], app);
  const program = `
import { REASONS, readHopRecord, toHex, nobleBackend, type Reason } from '@wai-steering/wire';
import { nodeBackend } from '@wai-steering/wire/node';
const first: Reason = REASONS[0];
const result = readHopRecord(new Uint8Array([0x57, 0x4d, 0x48, 0x31, 1]));
if (result.ok || result.refusal.reason !== 'truncated') throw new Error('unexpected read');
const key = new Uint8Array(32).fill(7);
const a = toHex(nobleBackend.sign(key, new Uint8Array([1, 2, 3])));
const b = toHex(nodeBackend.sign(key, new Uint8Array([1, 2, 3])));
if (a !== b) throw new Error('backends differ');
console.log('wire tarball: imported, read, signed with both backends;', first);
`;
  writeFileSync(join(app, 'check.ts'), program);
  writeFileSync(
    join(app, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        noEmit: false,
        outDir: 'out',
        types: [],
        skipLibCheck: false,
      },
      include: ['check.ts'],
    }),
  );
  run(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', app], app);
  const out = run(process.execPath, [join(app, 'out', 'check.js')], app).toString();
  process.stdout.write(out);
  checkPrivateBundled(work);
} finally {
  rmSync(work, { recursive: true, force: true });
}

function walk(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)],
  );
}

/** Packs each public package of `packages/` and checks its tarball names no private package. */
function checkPrivateBundled(work) {
  const manifests = readdirSync(join(root, 'packages')).flatMap((name) => {
    try {
      const dir = join(root, 'packages', name);
      return [{ dir, manifest: JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) }];
    } catch {
      return [];
    }
  });
  const privateNames = new Set(
    manifests.filter((m) => m.manifest.private).map((m) => m.manifest.name),
  );
  const problems = [];
  let checked = 0;
  for (const { dir, manifest } of manifests) {
    if (manifest.private || manifest.name === '@wai-steering/wire') continue;
    const into = join(work, manifest.name.replace('/', '+'));
    mkdirSync(into, { recursive: true });
    run('pnpm', ['pack', '--pack-destination', into], dir);
    const tarball = readdirSync(into).find((f) => f.endsWith('.tgz'));
    run('tar', ['-xzf', tarball, '-C', into], into);
    const packed = join(into, 'package');
    const m = JSON.parse(readFileSync(join(packed, 'package.json'), 'utf8'));
    for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies']) {
      for (const dep of Object.keys(m[field] ?? {})) {
        if (privateNames.has(dep)) problems.push(`${manifest.name}: ${field} names ${dep}`);
      }
    }
    for (const file of walk(packed)) {
      if (!/\.(js|mjs|cjs|d\.ts)$/.test(file)) continue;
      const text = readFileSync(file, 'utf8');
      const imported = new Set(
        [...text.matchAll(/(?:from|import)\s*\(?\s*['"](@wai-steering\/[^'"/]+)/g)].map(
          (h) => h[1],
        ),
      );
      for (const name of imported) {
        if (privateNames.has(name)) {
          problems.push(`${manifest.name}: ${relative(packed, file)} imports ${name}`);
        }
      }
    }
    checked++;
  }
  if (problems.length > 0) {
    console.error(`pack check: ${problems.length} problem(s)`);
    for (const p of problems) console.error(`  ${p}`);
    process.exitCode = 1;
    return;
  }
  console.log(
    `${checked} public tarballs: no dependency on a private package (${[...privateNames].join(', ')}), none imported`,
  );
}
