// video.js on DASH with the real server (docs/players.md, "video.js on DASH"): VHS 3.17.5 as
// published follows the first move and not the second, opening sessions as it goes; the same
// VHS with players/patches/vhs-content-steering.diff applied (to a copy) follows every move in
// one session; and so does VHS as published on an MPD that names its session's `RELOAD-URI`
// (the mitigation a server's operator has). Every manifest verifies, whatever the MPD names.

import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  copyOfVhs,
  runVhs,
  VARIANTS,
  type VariantId,
  type VariantRun,
  VHS_PATCH,
  type VhsRun,
  vhsPackage,
} from '../harness/vhs.js';

const CAPTURED_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'captured');

describe('the patch to VHS', () => {
  it('applies to the sources and the bundle of the VHS video.js depends on, in a copy', () => {
    const dir = mkdtempSync(join(tmpdir(), 'wai-players-vhs-patch-'));
    try {
      const bundle = copyOfVhs(dir, VHS_PATCH);
      const patched = readFileSync(bundle, 'utf8');
      const published = readFileSync(
        join(vhsPackage(), 'dist', 'videojs-http-streaming.js'),
        'utf8',
      );
      expect(published).toContain('@version 3.17.');
      // The tag is compared with the tag, and the listener attached again after a reset.
      expect(published).not.toContain('this.tagUri_');
      expect(patched).toContain('!== this.tagUri_');
      expect(patched).toMatch(
        /dispose\(\);\n.*\n\s*this\.contentSteeringController_\.on\('content-steering', this\.excludeThenChangePathway_/,
      );
      // Applying it twice fails: it is a patch of that text, not a rewrite.
      expect(() =>
        execFileSync('git', ['apply', '--check', VHS_PATCH], {
          cwd: dirname(dirname(bundle)),
          stdio: 'pipe',
        }),
      ).toThrow();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

let run: VhsRun;
const of = (id: VariantId): VariantRun => run.variants.find((v) => v.id === id)!;

describe('video.js on DASH, steered by the server', () => {
  beforeAll(async () => {
    run = await runVhs();
    mkdirSync(CAPTURED_DIR, { recursive: true });
    writeFileSync(
      join(CAPTURED_DIR, 'vhs.json'),
      `${JSON.stringify({ titles: VARIANTS, ...run, variants: run.variants.map((v) => ({ ...v, events: undefined })) }, null, 2)}\n`,
    );
    process.stdout.write(
      `\n[vhs] ${run.ms} ms\n${run.variants
        .map(
          (v) =>
            `  ${v.id}: moves ${JSON.stringify(v.moves)}; sessions ${v.sessions.length}, counted at once ${v.counted}; requests ${v.requests.map((r) => `${r.atMs}:${r.path}${r.session ? '+s' : ''}:${r.status}`).join(' ')}`,
        )
        .join('\n')}\n`,
    );
    // A hang guard: the run ends on what it waits for, each wait bounded by its own guard.
  }, 900_000);

  it.each(['bundle', 'core'] as const)(
    '%s (VHS as published): follows no move after its first, and asks the MPD’s URI again',
    (id) => {
      const v = of(id);
      const seen = JSON.stringify({ ...v, events: undefined });
      expect(v.version, seen).toMatch(/^3\.17\./);
      expect(v.verified, seen).toBe(true);
      const [toA, toB] = v.moves;
      // The second move is not followed: manifests put cdn-b first and it stayed where it was,
      // or it stopped asking.
      expect(toB!.video, seen).toBe(false);
      expect(toB!.passed || toB!.silent, seen).toBe(true);
      // The controller re-created: a request to the MPD's own URI (no session) after one to the
      // manifests' RELOAD-URI, or no request at all after the first move.
      const i = v.requests.findIndex((r) => r.session);
      const back = i >= 0 && v.requests.slice(i).some((r) => !r.session);
      expect(back || toA!.silent || toB!.silent, seen).toBe(true);
      // Each time it asks the MPD's URI again the server mints a session: a second one, counted
      // in the loads beside the first while the first's TTL and grace run.
      if (back) expect(v.sessions.length, seen).toBeGreaterThanOrEqual(2);
    },
  );

  it.each(['patched', 'session'] as const)(
    '%s: follows every move, video and audio, in one session',
    (id) => {
      const v = of(id);
      const seen = JSON.stringify({ ...v, events: undefined });
      expect(v.verified, seen).toBe(true);
      for (const m of v.moves) {
        expect(m.from, seen).not.toBe(m.target);
        expect(m.video && m.audio, seen).toBe(true);
      }
      expect(v.sessions, seen).toHaveLength(1);
      expect(v.counted, seen).toBe(1);
      // Its requests all carry the session after the first (none to the MPD's URI again).
      const i = v.requests.findIndex((r) => r.session);
      expect(i, seen).toBeGreaterThanOrEqual(0);
      expect(
        v.requests.slice(i).every((r) => r.session),
        seen,
      ).toBe(true);
      expect(
        v.events.filter((e) => e.type === 'player-error'),
        seen,
      ).toEqual([]);
    },
  );
});
