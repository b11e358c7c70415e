// The behaviour matrix (docs/players.md, "What each player does with each answer"): every row is
// a test, per player, asserting what the row says: when the player asks again after the answer,
// and whether it then fetches its segments from the pathway the next manifests put first (it
// keeps steering). The expectations are read from each player's steering code (the lines are in
// docs/players.md), not from a run; a run writes players/captured/matrix.json, from which
// `node players/scripts/matrix-table.mjs` writes the table.

import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  columnKey,
  HANG_MS,
  MATRIX_COLUMNS,
  type Matrix,
  type Observation,
  RETRY_AFTER,
  ROWS,
  type Row,
  startMatrix,
  TTL,
  writeObservations,
} from '../harness/matrix.js';

const CAPTURED_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'captured');

/**
 * When the next steering request comes after the event's request:
 * - `ttl`: after the TTL in force (the row's `ttlAfter`);
 * - `retry-after`: after the answer's Retry-After;
 * - `retry`: at once or after the player's own short retry delay (about 1 s);
 * - `own-timeout`: the player gives up waiting for the answer after 10 s (hls.js's time to first
 *   byte, shaka's connection timeout) and asks again;
 * - `after-close`: once the held connection is closed (HANG_MS), within a TTL and a retry;
 * - `never`: no request before the run's end (16 s after the event, of media and of time, or more);
 * - `reset`: VHS on DASH, once it followed a move, re-creates its steering controller: it asks
 *   the MPD's own steering URI (`/steer`, with no session) when the video element next reports
 *   `canplay`, or, when it does not, never again.
 */
type Next = 'ttl' | 'retry-after' | 'retry' | 'own-timeout' | 'after-close' | 'never' | 'reset';

interface Expected {
  readonly next: Next;
  /**
   * The player fetched its segments from the row's target after the event; null: either, as the
   * player's own timing has it (VHS on a live MPD, below).
   */
  readonly reached: boolean | null;
  /** The path of the next request, when the row moves the RELOAD-URI. */
  readonly path?: string;
}

const go = (next: Next, path?: string): Expected => ({
  next,
  reached: true,
  ...(path === undefined ? {} : { path }),
});
const stays = (next: Next): Expected => ({ next, reached: false });

// What each player's code says it does (docs/players.md names the lines).
const EXPECTED: Readonly<Record<string, Readonly<Record<string, Expected>>>> = {
  'hls.js HLS': {
    priority: go('ttl'),
    'priority-clones': go('ttl'),
    'pathway-gone': go('ttl'),
    'clone-host': go('ttl'),
    'clone-host-scheme': stays('ttl'),
    'clone-host-params': go('ttl'),
    'clone-params': go('ttl'),
    'ttl-short': go('ttl'),
    'ttl-long': go('ttl'),
    'reload-uri': go('ttl', '/moved?k=1'),
    'reload-uri-relative': go('ttl', '/steer/moved?k=2'),
    '429': stays('never'),
    '429-hidden': stays('never'),
    '503': go('retry'),
    '503-first': go('retry'),
    '429-first': stays('never'),
    '410': stays('never'),
    '500': go('retry'),
    timeout: go('own-timeout'),
    'bad-body': go('retry'),
    live: go('ttl'),
    'two-moves': go('ttl'),
    'session-description': go('ttl'),
    'reload-is-server': go('ttl'),
  },
  'dash.js DASH': {
    priority: go('ttl'),
    'priority-clones': go('ttl'),
    'pathway-gone': go('ttl'),
    'clone-host': go('ttl'),
    'clone-host-scheme': go('ttl'),
    'clone-host-params': go('ttl'),
    'clone-params': stays('ttl'),
    'ttl-short': go('ttl'),
    'ttl-long': go('ttl'),
    'reload-uri': go('ttl', '/moved?k=1'),
    'reload-uri-relative': go('ttl', '/moved?k=2'),
    '429': go('retry-after'),
    '429-hidden': stays('never'),
    '503': go('ttl'),
    '503-first': stays('never'),
    '429-first': go('retry-after'),
    '410': stays('never'),
    '500': go('ttl'),
    timeout: go('after-close'),
    'bad-body': go('ttl'),
    live: go('ttl'),
    'two-moves': go('ttl'),
    'session-description': go('ttl'),
    'reload-is-server': go('ttl'),
  },
  'shaka-player DASH': {
    priority: go('ttl'),
    'priority-clones': go('ttl'),
    'pathway-gone': go('ttl'),
    'clone-host': go('ttl'),
    'clone-host-scheme': stays('ttl'),
    'clone-host-params': go('ttl'),
    'clone-params': stays('ttl'),
    'ttl-short': go('ttl'),
    'ttl-long': go('ttl'),
    'reload-uri': go('ttl', '/moved?k=1'),
    'reload-uri-relative': stays('never'),
    '429': go('retry'),
    '429-hidden': go('retry'),
    '503': go('retry'),
    '503-first': go('retry'),
    '429-first': go('retry'),
    '410': go('retry'),
    '500': go('retry'),
    timeout: go('own-timeout'),
    'bad-body': go('ttl'),
    live: go('ttl'),
    'two-moves': go('ttl'),
    'session-description': go('ttl'),
    'reload-is-server': go('ttl'),
  },
  'video.js HLS': {
    priority: go('ttl'),
    'priority-clones': stays('ttl'),
    'pathway-gone': go('ttl'),
    'clone-host': stays('ttl'),
    'clone-host-scheme': stays('ttl'),
    'clone-host-params': stays('ttl'),
    'clone-params': stays('ttl'),
    'ttl-short': go('ttl'),
    'ttl-long': go('ttl'),
    'reload-uri': go('ttl', '/moved?k=1'),
    'reload-uri-relative': go('ttl', '/steer/moved?k=2'),
    '429': go('retry-after'),
    '429-hidden': go('retry'),
    '503': go('ttl'),
    '503-first': go('retry'),
    '429-first': go('retry-after'),
    '410': stays('never'),
    '500': go('ttl'),
    timeout: go('after-close'),
    'bad-body': stays('never'),
    live: go('ttl'),
    'two-moves': go('ttl'),
    'session-description': go('ttl'),
    'reload-is-server': go('ttl'),
  },
  'shaka-player HLS': {
    priority: go('ttl'),
    'priority-clones': go('ttl'),
    'pathway-gone': go('ttl'),
    'clone-host': go('ttl'),
    'clone-host-scheme': stays('ttl'),
    'clone-host-params': go('ttl'),
    'clone-params': stays('ttl'),
    'ttl-short': go('ttl'),
    'ttl-long': go('ttl'),
    'reload-uri': go('ttl', '/moved?k=1'),
    'reload-uri-relative': stays('never'),
    '429': go('retry'),
    '429-hidden': go('retry'),
    '503': go('retry'),
    '503-first': go('retry'),
    '429-first': go('retry'),
    '410': go('retry'),
    '500': go('retry'),
    timeout: go('own-timeout'),
    'bad-body': go('ttl'),
    live: go('ttl'),
    'two-moves': go('ttl'),
    'session-description': go('ttl'),
    'reload-is-server': go('ttl'),
  },
  // VHS on DASH: as on HLS, but each move it follows is its last (docs/players.md): when the
  // MPD's loader next reports a playlist, VHS finds the MPD's steering URI unlike the manifests'
  // RELOAD-URI and re-creates its steering controller without the listener that switches
  // segments ('reset').
  'video.js DASH': {
    priority: go('reset'),
    'priority-clones': go('reset'),
    'pathway-gone': go('reset'),
    'clone-host': stays('ttl'),
    'clone-host-scheme': stays('ttl'),
    'clone-host-params': stays('ttl'),
    'clone-params': stays('ttl'),
    'ttl-short': go('ttl'),
    'ttl-long': go('ttl'),
    'reload-uri': go('ttl', '/moved?k=1'),
    'reload-uri-relative': go('ttl', '/steer/moved?k=2'),
    '429': go('retry-after'),
    '429-hidden': go('retry'),
    '503': go('ttl'),
    '503-first': go('retry'),
    '429-first': go('retry-after'),
    '410': stays('never'),
    '500': go('ttl'),
    timeout: go('after-close'),
    'bad-body': stays('never'),
    // A live MPD's update resets it too, moved or not: before the move's request (which it then
    // never makes), or after it.
    live: { next: 'reset', reached: null },
    'two-moves': stays('reset'),
    'session-description': go('ttl'),
    'reload-is-server': go('ttl'),
  },
};

/**
 * The bounds of each kind of delay, ms: 300 ms early at most (a timer's own rounding; 1 s for
 * the player's own timeout, which starts before the request arrives), and late
 * by as much as what it must be told from allows, since a page's timers run seconds late on a
 * busy machine (seen: 4.8 s, with a load average of 48): a retry comes before the TTL (4 s), or
 * before Retry-After when it follows the first request (no TTL told yet), the TTL before
 * Retry-After (10 s), a shorter TTL before the longer one it replaced.
 */
function bounds(next: Next, row: Row): [number, number] | null {
  const ttl = row.ttlAfter * 1000;
  const ra = RETRY_AFTER * 1000;
  switch (next) {
    case 'ttl':
      return [
        ttl - 300,
        Math.min(
          // A row that sends Retry-After: before it.
          /^(429|503)/.test(row.id) ? ra - 300 : Number.POSITIVE_INFINITY,
          (row.ttlBefore ?? Number.POSITIVE_INFINITY) * 1000 - 300,
          ttl + 6000,
        ),
      ];
    case 'retry-after':
      return [ra - 300, ra + 6000];
    case 'retry':
      // Sooner than the TTL; sooner than Retry-After when the event answers the first request,
      // before which no TTL was told (a page loading its first segments runs its timers late:
      // seen, shaka's retry after 1 s came 3.8 s after the first request's 503).
      return [0, row.event === 0 ? ra - 300 : TTL * 1000 - 300];
    case 'own-timeout':
      // The player's timer starts when it sends the request, not when the request arrives: a
      // busy machine's page sends it hundreds of ms before it arrives (seen: 364 ms early).
      return [9000, HANG_MS - 300];
    case 'after-close':
      return [HANG_MS - 100, HANG_MS + ttl + 6000];
    case 'never':
    case 'reset':
      return null;
  }
}

let matrix: Matrix | undefined;
const observations: Observation[] = [];

beforeAll(async () => {
  matrix = await startMatrix();
});

afterAll(async () => {
  await matrix?.close();
  if (observations.length > 0) {
    mkdirSync(CAPTURED_DIR, { recursive: true });
    writeObservations(join(CAPTURED_DIR, 'matrix.json'), observations);
  }
});

describe.each(MATRIX_COLUMNS.map((column) => ({ column, key: columnKey(column) })))(
  '$key',
  ({ column, key }) => {
    it.concurrent.each(ROWS.map((row) => ({ row, id: row.id })))(
      '$id',
      async ({ row }) => {
        const o = await matrix!.run(column, row);
        observations.push(o);
        const expected = EXPECTED[key]![row.id]!;
        const seen = `${key} ${row.id}: ${JSON.stringify({ ...o, segments: o.segments.length })}`;
        if (!(expected.next === 'reset' && expected.reached === null)) {
          expect(o.eventAtMs, `the event's request was made: ${seen}`).not.toBeNull();
        }
        const range = bounds(expected.next, row);
        if (expected.next === 'reset') {
          // At the MPD's own URI, which the manifests' RELOAD-URI had replaced, or never.
          if (o.nextMs !== null) expect(o.nextPath, seen).toBe('/steer');
        } else if (range === null) {
          expect(o.nextMs, seen).toBeNull();
        } else {
          expect(o.nextMs, seen).not.toBeNull();
          expect(o.nextMs!, seen).toBeGreaterThanOrEqual(range[0]);
          // A player's own retry of a request sends the same target (hls.js's loader, shaka's
          // networking engine), where a request after the TTL states the throughput of then:
          // that tells a retry apart on a machine busy enough to run its timer past the TTL.
          if (!(expected.next === 'retry' && o.nextSame === true)) {
            expect(o.nextMs!, seen).toBeLessThanOrEqual(range[1]);
          }
        }
        if (expected.path !== undefined) expect(o.nextPath, seen).toBe(expected.path);
        if (expected.reached !== null) expect(o.reached, seen).toBe(expected.reached);
        if (row.live) expect(o.updates, seen).toBeGreaterThanOrEqual(2);
        // A steering answer never stops playback: segments went on after the event.
        const since = o.eventAtMs ?? o.requests.at(-1)?.atMs ?? 0;
        expect(o.segments.filter((s) => s.atMs > since).length, seen).toBeGreaterThan(0);
        // A guard against a hang alone (a run ends on what it sees, HANG_GUARD_MS at the most).
      },
      300_000,
    );
  },
);
