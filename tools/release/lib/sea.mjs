// The hop agent as a single executable (Node's single executable applications): the agent's
// edition of the command line (packages/cli/src/edge.ts) bundled into one CommonJS script with
// every package it uses, prepared as a blob by `node --experimental-sea-config`, and injected
// into a copy of this Node's binary with postject. A single executable cannot load a native
// addon: the bundle is refused if anything of it reaches one.
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import * as esbuild from 'esbuild';
import { OUT, ROOT } from './workspace.mjs';

/** Packages whose native addon a single executable cannot hold. */
const NATIVE = ['better-sqlite3', 'pg-native', 'sodium-native', 'bindings', 'node-gyp-build'];
const FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';

/** Bundles the agent's edition into one CommonJS script; what it holds. */
export async function bundleAgent(into) {
  const entry = join(ROOT, 'packages', 'cli', 'src', 'edge.ts');
  const out = join(into, 'wai-steer-hop.cjs');
  const result = await esbuild.build({
    entryPoints: [entry],
    outfile: out,
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    metafile: true,
    logLevel: 'silent',
  });
  const inputs = Object.keys(result.metafile.inputs);
  const native = inputs.filter((f) => NATIVE.some((n) => f.includes(`node_modules/${n}/`)));
  // import.meta is empty in CommonJS: code that reads it would break in the executable.
  const meta = result.warnings.filter((w) => /import\.meta/.test(w.text));
  if (native.length > 0 || meta.length > 0) {
    throw new Error(
      `the hop agent's single executable cannot hold ${[
        ...native.map((f) => `a native addon's package (${f})`),
        ...meta.map((w) => `code reading import.meta (${w.location?.file}:${w.location?.line})`),
      ].join(', ')}`,
    );
  }
  const external = Object.values(result.metafile.outputs)[0].imports.filter(
    (i) => i.external && !/^(node:)?[a-z_]+(\/|$)/.test(i.path),
  );
  if (external.length > 0) {
    throw new Error(`left outside the bundle: ${external.map((i) => i.path).join(', ')}`);
  }
  return {
    script: out,
    packages: [
      ...new Set(
        inputs.map((f) => {
          const m = [...f.matchAll(/node_modules\/((?:@[^/]+\/)?[^/.][^/]*)\//g)].pop();
          return m ? m[1] : relative(ROOT, f).split('/').slice(0, 2).join('/');
        }),
      ),
    ].sort(),
  };
}

/** Builds the single executable at `exe` from this Node's binary. */
export async function buildSea(exe) {
  const work = join(OUT, 'stage', 'sea');
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  const { script, packages } = await bundleAgent(work);
  const blob = join(work, 'sea-prep.blob');
  const config = join(work, 'sea-config.json');
  writeFileSync(
    config,
    JSON.stringify({ main: script, output: blob, disableExperimentalSEAWarning: true }),
  );
  quiet(process.execPath, ['--experimental-sea-config', config], work);
  rmSync(exe, { force: true });
  copyFileSync(process.execPath, exe);
  chmodSync(exe, 0o755);
  const postject = createRequire(import.meta.url).resolve('postject/dist/cli.js');
  quiet(process.execPath, [postject, exe, 'NODE_SEA_BLOB', blob, '--sentinel-fuse', FUSE], work);
  return { exe, packages };
}

/** Runs a step; its output is shown only when it fails (postject's notes on the ELF's sections). */
function quiet(cmd, args, cwd) {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8' });
  if (r.status !== 0) {
    throw new Error(`${args.join(' ')}: exit ${r.status}\n${r.stdout}${r.stderr}`);
  }
}
