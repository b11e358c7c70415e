// The players page of the console (`/console/players`, docs/console.md), driven in Chromium with
// each pinned player against the project's server and its demo stream: the page shows the
// player's steering requests with their answers verified, and the pathway of each segment; when
// the evidence moves the first pathway, the page shows the segments move. Then the page with a
// stream the visitor names (on the pathway servers) and a player script from another origin.

import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchMany, type ManyPages } from '../harness/browser.js';
import { type CaptureProxy, startCaptureProxy } from '../harness/capture.js';
import { multivariantPlaylist } from '../harness/documents.js';
import { columnKey, HOSTS, MATRIX_COLUMNS } from '../harness/matrix.js';
import { ensureMedia, MATRIX_MEDIA } from '../harness/media.js';
import { type PageServer, startPageServer } from '../harness/page.js';
import { type Pathways, startPathways } from '../harness/pathways.js';
import { type Steering, startSteering } from '../harness/steering.js';
import { Wake } from '../harness/wake.js';

const OUT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'test-output', 'players');
const B_FIRST = { 'cdn-a': 300_000n, 'cdn-b': 100_000n };
const A_FIRST = { 'cdn-a': 100_000n, 'cdn-b': 300_000n };

let proxy: CaptureProxy;
let steering: Steering;
let browser: ManyPages;
let pathways: Pathways;
let pages: PageServer;

beforeAll(async () => {
  const media = await ensureMedia(MATRIX_MEDIA);
  pathways = await startPathways(HOSTS, media.dir);
  pages = await startPageServer();
  proxy = await startCaptureProxy();
  steering = await startSteering([{ id: 'cdn-a' }, { id: 'cdn-b' }], 'cdn-b', B_FIRST, proxy, {
    // 4 s, not 2: shaka's start (harness/steering.ts `TIMING`).
    ttl_s: 4,
  });
  browser = await launchMany();
  mkdirSync(OUT, { recursive: true });
  // A hang guard alone: each start waits for its server or Chromium to be ready.
}, 600_000);

afterAll(async () => {
  await browser?.close();
  await steering?.close();
  await proxy?.close();
  await pages?.close();
  await pathways?.close();
});

interface Shown {
  readonly steering: { at: string; status: string; verified: string; first: string }[];
  readonly segments: string[];
  readonly player: string | null;
  readonly protocol: string | null;
  readonly errors: string[];
  /** The video element, to say why a wait ended unmet. */
  readonly video: { time: number; ended: boolean; paused: boolean } | null;
}

/** What a wait asks the page to show. */
interface Want {
  /** An answer that verified, putting this pathway first ('' for any). */
  readonly verifiedFirst: string;
  /** The newest two segments from this pathway, when given. */
  readonly newest?: string;
  /** At least this many segments. */
  readonly segments?: number;
  /** No answer still being verified, so that every row shown has its verdict. */
  readonly settled?: boolean;
}

/**
 * In the page: what it shows and, with `want`, waits until it shows that, re-read at each change
 * of its DOM (each row it adds, each verdict), not on a clock. The snapshot is the one that met
 * `want`. (One function: the page runs it as given.)
 */
function inPage(want: Want | null): Promise<Shown> {
  const read = (): Shown => {
    const v = document.querySelector('video');
    return {
      steering: [...document.querySelectorAll('tr[data-kind="steering"]')].map((r) => ({
        at: r.children[1]?.textContent ?? '',
        status: r.getAttribute('data-status') ?? '',
        verified: r.getAttribute('data-verified') ?? '',
        first: r.getAttribute('data-first') ?? '',
      })),
      // Newest first.
      segments: [...document.querySelectorAll('tr[data-kind="segment"]')].map(
        (r) => r.getAttribute('data-pathway') ?? '',
      ),
      player: document.body.getAttribute('data-player'),
      protocol: document.body.getAttribute('data-protocol'),
      errors: [...document.querySelectorAll('#events li.bad')].map((li) => li.textContent ?? ''),
      video: v === null ? null : { time: v.currentTime, ended: v.ended, paused: v.paused },
    };
  };
  const met = (s: Shown, w: Want): boolean =>
    s.steering.some(
      (r) => r.verified === 'accept' && (w.verifiedFirst === '' || r.first === w.verifiedFirst),
    ) &&
    (w.newest === undefined ||
      (s.segments.length >= 2 && s.segments.slice(0, 2).every((p) => p === w.newest))) &&
    (w.settled !== true || s.steering.every((r) => r.verified !== 'pending')) &&
    s.segments.length >= (w.segments ?? 0);
  return new Promise((resolve) => {
    const first = read();
    if (want === null || met(first, want)) return resolve(first);
    const observer = new MutationObserver(() => {
      const s = read();
      if (!met(s, want)) return;
      observer.disconnect();
      resolve(s);
    });
    observer.observe(document.body, { subtree: true, childList: true, attributes: true });
  });
}

function shown(page: Page): Promise<Shown> {
  return page.evaluate(inPage, null);
}

/**
 * Waits until the page shows `want` (see {@link inPage}); `guardMs` only bounds a wait for what
 * never comes, and then says what the page shows.
 */
async function until(page: Page, what: string, want: Want, guardMs = 240_000): Promise<Shown> {
  const met = page.evaluate(inPage, want).catch((error: Error) => error);
  let guard: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    guard = setTimeout(() => resolve(false), guardMs);
  });
  const s = await Promise.race([met, late]).finally(() => clearTimeout(guard));
  if (s === false || s instanceof Error) {
    const now = await shown(page).catch(() => null);
    throw new Error(
      `${what}: ${s === false ? `not shown after ${guardMs} ms` : s.message}; the page shows ${JSON.stringify(now === null ? null : { ...now, segments: now.segments.slice(0, 12) })}`,
    );
  }
  return s;
}

/**
 * Waits until the server's answer to a new session puts `id` first: asked again after each
 * record the hops post (the evidence moves with the records), not on a clock.
 */
async function firstPathwayIs(id: string, guardMs = 240_000): Promise<void> {
  const deadline = performance.now() + guardMs;
  let last: unknown = null;
  for (;;) {
    const res = await fetch(`${steering.server.url}/steer?room=players&v=1`);
    const m = (await res.json()) as { 'PATHWAY-PRIORITY'?: unknown };
    last = m['PATHWAY-PRIORITY'];
    if (Array.isArray(last) && last[0] === id) return;
    if (performance.now() > deadline) {
      throw new Error(`the server still answers ${JSON.stringify(last)}, not ${id} first`);
    }
    await Wake.any([steering.wake], deadline - performance.now());
  }
}

const verifiedFirst = (s: Shown, first: string) =>
  s.steering.filter((r) => r.verified === 'accept' && r.first === first).length;

/** Every player on every protocol it steers, as the page offers them (`?player=&protocol=`). */
const COLUMNS = MATRIX_COLUMNS.map((c) => ({ ...c, key: columnKey(c) }));
/** What the page showed for each: on cdn-b first, then after the move to cdn-a. */
const seen = new Map<string, { start: Shown; moved: Shown }>();

/** Pages at once: a few, so that a busy machine's two cores still play each in time. */
const BATCH = 3;

describe('the players page', () => {
  // The columns a few at a time, each in its own page on the one server: the pages of a batch
  // start on cdn-b, then the evidence makes cdn-a the cheapest for all of them at once.
  beforeAll(async () => {
    for (let at = 0; at < COLUMNS.length; at += BATCH) {
      // Each batch starts where its streams start (the tag's PATHWAY-ID): hls.js stalls for good
      // when a move reaches it while its first fragment loads (docs/players.md).
      await firstPathwayIs('cdn-b');
      const opened = await Promise.all(
        COLUMNS.slice(at, at + BATCH).map(async ({ player, content, key }) => {
          const page = await browser.newPage();
          // No timeout of its own: the test's bounds it (the pages load at once).
          await page.goto(
            `${steering.server.url}/console/players?player=${encodeURIComponent(player)}&protocol=${content}`,
            { timeout: 0 },
          );
          return { player: key, page };
        }),
      );
      try {
        const start = await Promise.all(
          opened.map(({ player, page }) =>
            until(page, `${player} on cdn-b`, { verifiedFirst: 'cdn-b', newest: 'cdn-b' }),
          ),
        );
        // The evidence makes cdn-a the cheapest: the next answers put it first, and each page
        // shows its player's segments come from it.
        steering.setFigures(A_FIRST);
        const moved = await Promise.all(
          opened.map(({ player, page }) =>
            until(page, `${player} on cdn-a`, {
              verifiedFirst: 'cdn-a',
              newest: 'cdn-a',
              settled: true,
            }),
          ),
        );
        for (const [i, { player, page }] of opened.entries()) {
          seen.set(player, { start: start[i]!, moved: moved[i]! });
          await page.screenshot({
            path: join(OUT, `players-page-${player.replace(' ', '-')}.png`),
            fullPage: true,
            timeout: 0,
          });
        }
      } finally {
        steering.setFigures(B_FIRST);
        for (const { page } of opened) await page.close().catch(() => undefined);
      }
    }
    // A hang guard: each wait ends on what the pages show, bounded by its own guard.
  }, 1_800_000);

  it.each(COLUMNS)(
    '$key: each steering answer shown and verified, each segment on its pathway, a move shown',
    ({ player, content, key }) => {
      const { start, moved } = seen.get(key)!;
      expect(start.player).toMatch(new RegExp(`^${player.replace('.', '\\.')} v?[0-9]`));
      expect(start.protocol).toBe(content);
      expect(verifiedFirst(start, 'cdn-b')).toBeGreaterThanOrEqual(1);
      expect(start.segments.slice(0, 2)).toEqual(['cdn-b', 'cdn-b']);
      expect(moved.segments.slice(0, 2)).toEqual(['cdn-a', 'cdn-a']);
      // Every answer shown is a 200 that verifies: none refused, none the page could not check
      // but for want of the evidence on a network too busy to fetch it ('unfetched'); a request
      // that got no answer (status 0, the player gave up) is not an answer.
      const answers = moved.steering.filter((r) => r.status !== '0');
      expect(answers.filter((r) => r.status !== '200')).toEqual([]);
      expect(answers.filter((r) => !['accept', 'unfetched'].includes(r.verified))).toEqual([]);
      expect(answers.filter((r) => r.verified === 'accept').length).toBeGreaterThan(0);
      expect(moved.errors).toEqual([]);
    },
  );

  it('a stream the visitor names and a player script from another origin', async () => {
    const base = HOSTS.slice(0, 2).map((h) => ({
      id: h.id,
      origin: `${pathways.origins.get(h.id)!}/s/visitor`,
    }));
    pathways.documents.set(
      '/s/visitor/hls/main.m3u8',
      multivariantPlaylist(steering.tag, base, MATRIX_MEDIA),
    );
    const src = `${pathways.origins.get('cdn-b')!}/s/visitor/hls/main.m3u8`;
    const script = `${pages.origin}/lib/hls.js`;
    // The stream starts on cdn-b (its PATHWAY-ID): wait until the evidence puts cdn-b first again
    // after the move above. hls.js 1.7.4 drops a fragment in flight when a steering answer moves
    // it to another pathway before its first fragment is buffered, and then loads no other: a
    // stream on demand stays stalled (docs/players.md). That is the player's, not the page's.
    await firstPathwayIs('cdn-b');
    const page = await browser.newPage();
    try {
      await page.goto(
        `${steering.server.url}/console/players?player=hls.js&src=${encodeURIComponent(src)}&script=${encodeURIComponent(script)}`,
        { timeout: 0 },
      );
      // Two segments: on a busy machine the decoder plays slowly, and with a short forward
      // buffer the player asks for the next segment only as it plays.
      const s = await until(page, 'hls.js on the visitor stream', {
        verifiedFirst: '',
        segments: 2,
      });
      // The pathways are the visitor's description's: its hosts, named by its PATHWAY-IDs, and
      // each shown as many times at most as its host had served by then (read after the page:
      // how many more are in flight is the machine's pace, not the page's).
      const shownOn = (id: string) => s.segments.filter((p) => p === id).length;
      const servedOn = (id: string) =>
        pathways.log.filter(
          (r) => r.scenario === 'visitor' && r.path.endsWith('.ts') && r.pathway === id,
        ).length;
      // A segment is logged once its answer is handed to the kernel ('finish'), which this
      // process may learn after the browser has it and the page has shown it: wait for the log
      // to catch up, at the next request logged, bounded by a guard.
      const ids = [...new Set(s.segments)];
      const guard = performance.now() + 30_000;
      while (ids.some((id) => servedOn(id) < shownOn(id)) && performance.now() < guard) {
        await Wake.any([pathways.wake], guard - performance.now());
      }
      for (const id of ids) {
        expect(['cdn-a', 'cdn-b']).toContain(id);
        expect(servedOn(id), id).toBeGreaterThanOrEqual(shownOn(id));
      }
      expect(s.errors).toEqual([]);
    } finally {
      await page.close();
    }
  }, 600_000);
});
