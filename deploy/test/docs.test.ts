// docs/deploy.md's stream and multivariant playlist are the ones the deployment's test plays
// (`integration/player.ts`): the same ffmpeg command, and the same playlist for the deployment's
// policy and edges, so that the page's example is one a player has been seen to steer by.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { multivariant, streamArgs } from './integration/player.js';

const REPO = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const page = readFileSync(join(REPO, 'docs', 'deploy.md'), 'utf8');
const install = readFileSync(join(REPO, 'deploy', 'install.sh'), 'utf8');

/** The fenced blocks of the page, with their language. */
function blocks(markdown: string): { lang: string; body: string }[] {
  return [...markdown.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((m) => ({
    lang: m[1]!,
    body: m[2]!,
  }));
}

/** A default of install.sh's settings (`: "${WAI_PORT:=8080}"`). */
function setting(name: string): string {
  const m = new RegExp(`^: "\\$\\{${name}:=([^}]*)\\}"$`, 'm').exec(install);
  if (m === null) throw new Error(`install.sh sets no default ${name}`);
  return m[1]!;
}

describe("docs/deploy.md's stream and multivariant playlist", () => {
  const media = '/var/lib/wai-steering/media';

  it("makes the stream with the test's own ffmpeg command, into what the edge serves", () => {
    const sh = blocks(page).find((b) => b.lang === 'sh' && b.body.includes(' ffmpeg '));
    expect(sh).toBeDefined();
    const lines = sh!.body
      .replace(/\\\n\s*/g, '')
      .trim()
      .split('\n');
    expect(lines[0]).toBe(`sudo -u wai-steering mkdir -p ${media}/hls`);
    expect(lines[1]!.split(/\s+/)).toEqual([
      ...['sudo', '-u', 'wai-steering', 'ffmpeg'],
      ...streamArgs(media),
    ]);
    // The edge serves that directory on both pathways' ports.
    expect(install).toContain('"$state/media"');
    expect(install.match(/root \$state\/media;/g)).toHaveLength(2);
  });

  it("is the test's playlist for the deployment's policy and edges: both pathways named", () => {
    const m3u8 = blocks(page).find((b) => b.lang === 'm3u8');
    expect(m3u8).toBeDefined();
    const host = 'steer.example.net';
    // The policy install.sh writes: its server_uri on HAProxy's port, cdn-a first (the initial
    // pathway, which hls-tag names), cdn-b second; the edge's ports of each.
    expect(install).toMatch(/^PUBLIC="http:\/\/\$WAI_HOST:\$WAI_PORT"$/m);
    expect(install).toMatch(/^server_uri: \$PUBLIC\/steer$/m);
    expect(install.indexOf('  - id: cdn-a')).toBeLessThan(install.indexOf('  - id: cdn-b'));
    const tag = `#EXT-X-CONTENT-STEERING:SERVER-URI="http://${host}:${setting('WAI_PORT')}/steer",PATHWAY-ID="cdn-a"`;
    const edges = [
      { id: 'cdn-a', origin: `http://${host}:${setting('WAI_EDGE_PORT_A')}` },
      { id: 'cdn-b', origin: `http://${host}:${setting('WAI_EDGE_PORT_B')}` },
    ];
    expect(m3u8!.body).toBe(multivariant(tag, edges));
    expect(page).toContain(`plays \`${edges[0]!.origin}/master.m3u8\``);
  });
});
