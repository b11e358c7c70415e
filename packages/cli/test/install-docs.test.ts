// docs/metering.md (a CDN node) and docs/deploy.md install from the release's artefacts, named as
// `pnpm release` names them, and never from a registry that holds none of the project's packages
// (`pnpm add @wai-steering/cli`); the single executable goes where the hop agent's unit runs it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_DIR } from './paths.js';

const read = (f: string) => readFileSync(join(REPO_DIR, f), 'utf8');
const build = read('tools/release/build.mjs');
/** The Debian package's name (tools/release/lib/deb.mjs). */
const PACKAGE = /^export const PACKAGE = '([a-z0-9.+-]+)';$/m.exec(
  read('tools/release/lib/deb.mjs'),
)?.[1];

const V = String.raw`\d+\.\d+\.\d+`;
/** The artefacts' names as build.mjs and lib/deb.mjs make them, any version and architecture. */
const NAMES = {
  npm: `wai-steering-cli-${V}\\.tgz`,
  deb: `${PACKAGE}_${V}_[a-z0-9]+\\.deb`,
  sea: `wai-steer-hop-${V}-[a-z]+-[a-z0-9]+`,
};

/**
 * The commands of a page's shell blocks, continuation lines joined; an alternative given in a
 * comment (`… # or: sudo npm install -g …`) is a command too.
 */
function shLines(page: string): string[] {
  return [...page.matchAll(/^```(?:sh|console)\n([\s\S]*?)^```$/gm)].flatMap((m) =>
    m[1]!
      .replace(/\\\n\s*/g, '')
      .split('\n')
      .flatMap((l) => l.replace(/^\$ /, '').split(/\s+#\s*(?:or:\s*)?/))
      .map((l) => l.trim()),
  );
}

describe('the release artefacts, as the docs install them', () => {
  it("are named as pnpm release names them (build.mjs's forms)", () => {
    // The template literals of the release's scripts, as they are written there.
    const literal = (...parts: string[]) => `\`${parts.join('')}\``;
    expect(build).toContain(literal('wai-steering-cli-', '${', 'version}.tgz'));
    expect(build).toContain(literal('wai-steer-hop-', '${', 'version}-', '${', 'arch.node}'));
    expect(read('tools/release/lib/deb.mjs')).toContain(
      literal('${', 'PACKAGE}_', '${', 'version}_', '${', 'arch}.deb'),
    );
    expect(PACKAGE).toBe('wai-steering');
  });

  for (const page of ['docs/metering.md', 'docs/deploy.md']) {
    it(`${page} installs from them, not from a registry`, () => {
      const text = read(page);
      expect(text).not.toMatch(/pnpm add|npm install (-g )?@wai-steering|npm i @wai-steering/);
      const lines = shLines(text);
      const has = (re: RegExp) => lines.some((l) => re.test(l));
      expect(has(new RegExp(`^sudo npm install -g \\./${NAMES.npm}(\\s|$)`)), page).toBe(true);
      expect(has(new RegExp(`^sudo apt-get install \\./${NAMES.deb}(\\s|$)`)), page).toBe(true);
      // The single executable, where the hop agent's unit looks for wai-steer.
      expect(
        has(new RegExp(`^sudo install -m 0755 ${NAMES.sea} /usr/local/bin/wai-steer(\\s|$)`)),
        page,
      ).toBe(true);
      expect(text).toContain('pnpm release');
    });
  }

  it("puts the single executable where the hop agent's unit runs it", () => {
    expect(read('deploy/systemd/wai-steer-hop@.service')).toMatch(
      /^ExecStart=\/usr\/local\/bin\/wai-steer hop run /m,
    );
  });
});
