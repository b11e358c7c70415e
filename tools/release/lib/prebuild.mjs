// better-sqlite3's native addon for an npm install of the release. Its install script
// (prebuild-install) downloads a prebuilt addon from the project's releases, or compiles SQLite
// from source when it cannot (a minute or two, and Node's headers). Here the addon the workspace
// itself installed (the same version, for this Node and this machine) is packed as such a prebuilt
// tarball and served from the loopback through better-sqlite3's documented mirror setting
// (`npm_config_better_sqlite3_binary_host`): the Debian package's tree and the release's install
// test take it from there, quickly and without reaching out.
import { execFileSync } from 'node:child_process';
import { createReadStream, mkdirSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { OUT, ROOT } from './workspace.mjs';

/** The workspace's better-sqlite3 (as the server resolves it): its directory and version. */
function workspaceAddon() {
  const require = createRequire(join(ROOT, 'packages', 'server', 'package.json'));
  const dir = dirname(require.resolve('better-sqlite3/package.json'));
  const { version } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  const addon = join(dir, 'build', 'Release', 'better_sqlite3.node');
  statSync(addon);
  return { dir, version, addon };
}

/** Packs the workspace's addon as prebuild-install names it; the tarball's path and name. */
export function packPrebuild(expectedVersion) {
  const { dir, version } = workspaceAddon();
  if (version !== expectedVersion) {
    throw new Error(
      `the workspace's better-sqlite3 is ${version}, the release depends on ${expectedVersion}: run pnpm install`,
    );
  }
  const name = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  const into = join(OUT, 'prebuilds');
  mkdirSync(into, { recursive: true });
  const tarball = join(into, name);
  execFileSync('tar', ['-czf', tarball, '-C', dir, 'build/Release/better_sqlite3.node']);
  return { tarball, name };
}

/**
 * Serves the prebuilt tarball on the loopback; the environment that makes an npm install take
 * it, and `close`.
 */
export async function prebuildMirror(expectedVersion) {
  const { tarball, name } = packPrebuild(expectedVersion);
  const server = createServer((req, res) => {
    if (req.url?.endsWith(`/${name}`)) {
      res.writeHead(200, { 'content-type': 'application/gzip' });
      createReadStream(tarball).pipe(res);
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const host = `http://127.0.0.1:${server.address().port}`;
  return {
    env: { npm_config_better_sqlite3_binary_host: host },
    close: () => new Promise((r) => server.close(r)),
  };
}
