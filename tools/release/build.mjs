#!/usr/bin/env node
// `pnpm release`: the release's artefacts under dist/release/, from the workspace's build:
//   wai-steering-cli-<v>.tgz          the command line (with the hop agent), for npm install -g
//   wai-steering_<v>_<arch>.deb       the same as a Debian package, with the systemd units
//   wai-steer-hop-<v>-<os>-<arch>     the hop agent as a single executable, for a box without Node
//   npm/                              every public package, packed as it would be published
// and checks that `npm publish --dry-run` passes for each of those, offline.
//
//   node tools/release/build.mjs [npm] [deb] [sea]     (default: all; deb needs npm's tarball)
import { rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { buildDeb } from './lib/deb.mjs';
import { npmPack, packPublic, publishDryRun, stageCli } from './lib/npm.mjs';
import { buildSea } from './lib/sea.mjs';
import { arches, OUT, ROOT, workspacePackages } from './lib/workspace.mjs';

const asked = new Set(process.argv.slice(2));
for (const a of asked) {
  if (!['npm', 'deb', 'sea'].includes(a)) {
    console.error(`release: unknown artefact "${a}" (npm, deb, sea)`);
    process.exit(2);
  }
}
const want = (a) => asked.size === 0 || asked.has(a);
const started = Date.now();
const say = (line) => console.log(`release: ${line}`);
const size = (f) => `${(statSync(f).size / 1048576).toFixed(1)} MiB`;

const packages = workspacePackages();
const version = packages.get('@wai-steering/cli').manifest.version;
const arch = arches();
const made = { version, arch };
const cliTarball = join(OUT, `wai-steering-cli-${version}.tgz`);

if (want('npm')) {
  say('the npm tarball: staging the command line');
  const staged = await stageCli(packages, join(OUT, 'stage', 'cli'));
  rmSync(cliTarball, { force: true });
  const tgz = npmPack(join(OUT, 'stage', 'cli'), OUT);
  if (tgz !== cliTarball) throw new Error(`npm pack wrote ${tgz}, not ${cliTarball}`);
  say(`${relative(ROOT, tgz)} (${size(tgz)}): bundles ${staged.reached.length} workspace packages`);
  say('packing every public package, then npm publish --dry-run of each');
  const packed = packPublic(packages, join(OUT, 'npm'));
  const dry = await publishDryRun(packed);
  const failed = dry.results.filter((r) => !r.ok);
  if (failed.length > 0 || dry.connections > 0) {
    for (const f of failed) console.error(`release: npm publish --dry-run ${f.name}: ${f.detail}`);
    throw new Error(
      `npm publish --dry-run: ${failed.length} failed, ${dry.connections} connection(s) to the registry`,
    );
  }
  say(
    `npm publish --dry-run --offline: ${packed.length} public packages pass, no registry contacted`,
  );
  made.npm = { tarball: tgz, bundled: staged.reached, public: packed.map((p) => p.tarball) };
}
if (want('deb')) {
  say('the Debian package: npm install of the tarball into its tree');
  const deb = await buildDeb(cliTarball, version, arch.deb);
  say(`${relative(ROOT, deb.file)} (${size(deb.file)})`);
  made.deb = deb;
}
if (want('sea')) {
  say("the hop agent's single executable");
  const exe = join(OUT, `wai-steer-hop-${version}-${arch.node}`);
  const sea = await buildSea(exe);
  say(`${relative(ROOT, exe)} (${size(exe)}): ${sea.packages.length} packages, no native addon`);
  made.sea = sea;
}
writeFileSync(join(OUT, 'release.json'), `${JSON.stringify(made, null, 2)}\n`);
say(`done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
