// The workspace as the release reads it: its packages (from pnpm, so that a package added later
// is picked up without being named here), and what the command line reaches of them.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const ROOT = new URL('../../..', import.meta.url).pathname.replace(/\/$/, '');
export const OUT = join(ROOT, 'dist', 'release');

/** Every package of the workspace: name → { dir, manifest }. */
export function workspacePackages() {
  const listed = JSON.parse(
    execFileSync('pnpm', ['ls', '-r', '--json', '--depth', '-1'], {
      cwd: ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    }),
  );
  const packages = new Map();
  for (const p of listed) {
    if (p.path === ROOT) continue;
    const manifest = JSON.parse(readFileSync(join(p.path, 'package.json'), 'utf8'));
    packages.set(manifest.name, { dir: p.path, manifest });
  }
  return packages;
}

/** The public packages of the workspace (those a registry would publish). */
export function publicPackages(packages = workspacePackages()) {
  return [...packages.values()].filter((p) => p.manifest.private !== true);
}

const isWorkspaceSpec = (spec) => typeof spec === 'string' && spec.startsWith('workspace:');

/**
 * Whether a package is code (it has a JavaScript entry, which the release bundles) or files
 * alone (the console's built pages: shipped whole, inside the tarball).
 */
export function hasEntry(manifest) {
  const dot = manifest.exports?.['.'];
  return dot !== undefined || manifest.main !== undefined;
}

/**
 * What the command line reaches of the workspace at run time: the workspace packages (through
 * `dependencies`, transitively), and the third-party packages they depend on, each at the one
 * exact version they all name. (A private package that a build bundles, listed under
 * `devDependencies`, is in that build already; what it imports at run time is checked on the
 * bundle.)
 */
export function reach(packages, from = '@wai-steering/cli') {
  const reached = new Map();
  const thirdParty = new Map();
  const optional = new Map();
  const visit = (name) => {
    if (reached.has(name)) return;
    const p = packages.get(name);
    if (p === undefined) throw new Error(`${name}: not a package of the workspace`);
    reached.set(name, p);
    const m = p.manifest;
    // Files alone (built pages): nothing of its dependencies runs from it.
    if (!hasEntry(m)) return;
    const fields = [
      ['dependencies', thirdParty],
      ['optionalDependencies', optional],
    ];
    for (const [field, into] of fields) {
      for (const [dep, spec] of Object.entries(m[field] ?? {})) {
        if (isWorkspaceSpec(spec)) {
          visit(dep);
          continue;
        }
        const had = into.get(dep);
        if (had !== undefined && had.spec !== spec) {
          throw new Error(
            `${dep}: ${had.by} depends on ${had.spec} and ${name} on ${spec}: one version for the release`,
          );
        }
        into.set(dep, { spec, by: name });
      }
    }
  };
  visit(from);
  for (const dep of optional.keys()) thirdParty.delete(dep);
  const specs = (m) => Object.fromEntries([...m].sort().map(([k, v]) => [k, v.spec]));
  return { reached, dependencies: specs(thirdParty), optionalDependencies: specs(optional) };
}

/** The package name of a bare import specifier (`@noble/curves/ed25519.js` → `@noble/curves`). */
export function packageOf(specifier) {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** The machine's Debian architecture (`amd64`) and Node's platform-arch (`linux-x64`). */
export function arches() {
  let deb;
  try {
    deb = execFileSync('dpkg', ['--print-architecture'], { encoding: 'utf8' }).trim();
  } catch {
    deb =
      { x64: 'amd64', arm64: 'arm64', arm: 'armhf', ia32: 'i386' }[process.arch] ?? process.arch;
  }
  return { deb, node: `${process.platform}-${process.arch}` };
}
