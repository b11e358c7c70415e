#!/usr/bin/env node
// Packs `@wai-steering/wire`, installs the tarball in a fresh ESM project and imports it, with
// its types: what a third party that depends on `wire` alone gets.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

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
} finally {
  rmSync(work, { recursive: true, force: true });
}
