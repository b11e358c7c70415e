// The behaviour matrix (docs/players.md): each player, in its own page, is given one scripted
// steering answer at a time (./scripted.ts) and the run records when it asks again, which
// pathway it fetches segments from, and whether it keeps steering. Scenarios run in parallel
// pages of one Chromium; they share the pathway servers (each under its `/s/<scenario>/`) and
// the scripted endpoint.
//
// The rows are in ./matrix-rows.ts. "Keeps steering" is: after the event, the player asked
// again and fetched its segments from the row's target.

import { writeFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { launchMany, type ManyPages } from './browser.js';
import { type BasePathway, liveMpd, livePlaylist, mpd, multivariantPlaylist } from './documents.js';
import {
  CEILING_SEGMENTS,
  CLONE_PARAM,
  RETRY_AFTER,
  ROWS,
  type Row,
  type ScenarioUris,
  TTL,
} from './matrix-rows.js';
import { ensureMedia, MATRIX_MEDIA, type Media } from './media.js';
import { type PageServer, type PlayerName, startPageServer } from './page.js';
import { type Pathways, type ServedRequest, startPathways } from './pathways.js';
import { type PageEvent, pageEvents, startPlayer } from './players.js';
import { type ScriptedEndpoint, type ScriptedRequest, startScriptedEndpoint } from './scripted.js';
import { Wake } from './wake.js';

export { CLONE_PARAM, HANG_MS, RETRY_AFTER, ROWS, type Row, TTL } from './matrix-rows.js';

export const HOSTS = [
  { id: 'cdn-a', host: '127.0.0.11' },
  { id: 'cdn-b', host: '127.0.0.12' },
  { id: 'cdn-c', host: '127.0.0.13' },
] as const;
/** A player on one protocol: a column of the matrix. */
export interface Column {
  readonly player: PlayerName;
  /** The content description it is given: the multivariant playlist or the MPD. */
  readonly content: 'hls' | 'dash';
}

/** The column's name: the player and the protocol, `video.js DASH`. */
export function columnKey(c: Column): string {
  return `${c.player} ${c.content === 'hls' ? 'HLS' : 'DASH'}`;
}

/**
 * The columns of the matrix: every player on every protocol it steers (hls.js plays HLS alone,
 * dash.js DASH alone; shaka-player and video.js both).
 */
export const MATRIX_COLUMNS: readonly Column[] = [
  { player: 'hls.js', content: 'hls' },
  { player: 'dash.js', content: 'dash' },
  { player: 'shaka-player', content: 'dash' },
  { player: 'shaka-player', content: 'hls' },
  { player: 'video.js', content: 'hls' },
  { player: 'video.js', content: 'dash' },
];

/**
 * A run that sees neither the end its row waits for nor steering stop ends after this, from the
 * player's start: a guard against a hang, which no run reaches on a busy machine (the ceilings
 * below are of media and of time after the last request, and a busy machine plays slower).
 */
const HANG_GUARD_MS = 240_000;
/** A segment requested this long after a manifest arrived was chosen under it. */
const GRACE_MS = 600;

export interface SegmentSeen {
  readonly atMs: number;
  readonly pathway: string;
  readonly url: string;
}

/** What a run saw; `docs/players.md`'s table is written from these (scripts/matrix-table.mjs). */
export interface Observation {
  readonly player: PlayerName;
  readonly content: 'hls' | 'dash';
  /** {@link columnKey}: `video.js DASH`. */
  readonly column: string;
  readonly version: string | null;
  readonly row: string;
  readonly title: string;
  /** Every steering request: ms since the player started, path after the scenario, status. */
  readonly requests: readonly { atMs: number; path: string; status: number | null }[];
  readonly segments: readonly SegmentSeen[];
  /** When the event's request arrived (ms), or null: the player never made it. */
  readonly eventAtMs: number | null;
  /** From the event's request to the next steering request (ms); null: none came. */
  readonly nextMs: number | null;
  /** The event's request's path (and query, without the steering parameters). */
  readonly eventPath: string | null;
  /** The next request's path (and query, without the steering parameters). */
  readonly nextPath: string | null;
  /** The next request's target is the event's, byte for byte (a player's retry of it). */
  readonly nextSame: boolean | null;
  /** After the event, the player fetched its segments from `target`. */
  readonly reached: boolean;
  /** The pathway of the last segment fetched, or null (none). */
  readonly on: string | null;
  /** The playlists and MPDs fetched (not segments), with their pathway. */
  readonly documents: readonly SegmentSeen[];
  /** Reloads of the content description during the run (a live stream's updates). */
  readonly updates: number;
  /** Player errors the player calls fatal (hls.js says so; dash.js and shaka do not). */
  readonly errors: readonly string[];
  /** Why the run ended: `settled` (the target reached and a request after the event seen), or a ceiling. */
  readonly ended: 'settled' | 'segments' | 'time';
  readonly ms: number;
}

export interface Matrix {
  run(column: Column, row: Row): Promise<Observation>;
  close(): Promise<void>;
}

/** A request's pathway: its host's, or the PARAMS clone's when it carries its parameter. */
function pathwayOf(s: ServedRequest): string {
  if (new URLSearchParams(s.query).get(CLONE_PARAM) === 'cdn-c') return 'cdn-c';
  return s.pathway;
}

/** The steering parameters a player adds, dropped from a path for the table. */
function bare(target: string): string {
  const [path, query] = target.split('?', 2) as [string, string | undefined];
  if (query === undefined) return path;
  const kept = query.split('&').filter((p) => !/^(_HLS_|_DASH_|CMCD=)/.test(p));
  return kept.length === 0 ? path : `${path}?${kept.join('&')}`;
}

let counter = 0;

/** Starts what every run shares: the pathways, the scripted endpoint, the pages and Chromium. */
export async function startMatrix(): Promise<Matrix> {
  const media: Media = await ensureMedia(MATRIX_MEDIA);
  const cleanup: (() => Promise<unknown>)[] = [];
  let pathways: Pathways;
  let endpoint: ScriptedEndpoint;
  let pages: PageServer;
  let browser: ManyPages;
  try {
    pathways = await startPathways(HOSTS, media.dir);
    cleanup.unshift(() => pathways.close());
    endpoint = await startScriptedEndpoint();
    cleanup.unshift(() => endpoint.close());
    pages = await startPageServer();
    cleanup.unshift(() => pages.close());
    browser = await launchMany();
    cleanup.unshift(() => browser.close());
  } catch (error) {
    for (const c of cleanup) await c().catch(() => undefined);
    throw error;
  }

  const run = async (column: Column, row: Row): Promise<Observation> => {
    const { player, content } = column;
    const id = `${row.id}-${player.replace(/[^a-z]/g, '')}-${content}-${++counter}`;
    const uris: ScenarioUris = {
      server: `${endpoint.origin}/s/${id}/steer`,
      reload: `${endpoint.origin}/s/${id}/steer/reload`,
      origin: `${endpoint.origin}/s/${id}`,
    };
    const script = row.script(uris);
    const scenario = endpoint.scenario(id, script);
    const steeringUri = row.descriptionUri?.(uris) ?? scenario.serverUri;
    const base: BasePathway[] = HOSTS.slice(0, 2).map((h) => ({
      id: h.id,
      origin: `${pathways.origins.get(h.id)!}/s/${id}`,
    }));
    // The MPD lists its default service location first: VHS starts its audio on the first
    // BaseURL, and a first manifest that then moves the audio alone leaves its video paused
    // (docs/players.md, video.js); the matrix measures the answers, not that start.
    const mpdBase = [...base].reverse();
    const startMs = Date.now();
    const prefix = `/s/${id}`;
    const tag = `#EXT-X-CONTENT-STEERING:SERVER-URI="${steeringUri}",PATHWAY-ID="cdn-b"`;
    const element = `<ContentSteering defaultServiceLocation="cdn-b" queryBeforeStart="false">${steeringUri.replaceAll('&', '&amp;')}</ContentSteering>`;
    let url: string;
    const origin = pathways.origins.get('cdn-b')!;
    if (content === 'hls') {
      pathways.documents.set(
        `${prefix}/hls/main.m3u8`,
        multivariantPlaylist(tag, base, MATRIX_MEDIA, row.live ? 'live.m3u8' : 'media.m3u8'),
      );
      if (row.live)
        pathways.documents.set(`${prefix}/hls/live.m3u8`, livePlaylist(media.durations, startMs));
      url = `${origin}${prefix}/hls/main.m3u8`;
    } else {
      pathways.documents.set(
        `${prefix}/dash/main.mpd`,
        row.live
          ? liveMpd(media.mpdTemplate, element, mpdBase, startMs, MATRIX_MEDIA.segmentSeconds)
          : mpd(media.mpdTemplate, element, mpdBase),
      );
      url = `${origin}${prefix}/dash/main.mpd`;
    }
    const description =
      content === 'hls' ? (row.live ? /\/live\.m3u8$/ : /\/main\.m3u8$/) : /\/main\.mpd$/;

    const t0 = performance.now();
    const page: Page = await browser.newPage();
    const consoleLog: string[] = [];
    if (process.env.MATRIX_CONSOLE === '1') {
      page.on('console', (m) =>
        consoleLog.push(`${Math.round(performance.now() - t0)} ${m.text()}`),
      );
    }
    const mine = () => pathways.log.filter((s) => s.scenario === id);
    const segs = () =>
      mine()
        .filter((s) => /\.(ts|m4s)$/.test(s.path) && !/\/init-/.test(s.path))
        .sort((a, b) => a.at - b.at);
    // The media's clock: HLS segments are muxed, DASH's video are representation 0.
    const videoSegs = () => segs().filter((s) => !/\/chunk-1-/.test(s.path));
    const manifestFirst = (r: ScriptedRequest): string | null => {
      const a = script[r.answer]!;
      return r.status === 200 && a.kind === 'manifest' ? a.manifest.priority[0]! : null;
    };
    const reachedNow = (): boolean => {
      const ev = scenario.requests[row.event];
      if (ev === undefined) return false;
      const m = scenario.requests.find(
        (r) => r.at >= ev.at && r.answeredAt !== null && manifestFirst(r) === row.target,
      );
      if (m === undefined) return false;
      const after = (s: ServedRequest) => s.at >= m.answeredAt! + GRACE_MS;
      if (
        row.via !== undefined &&
        !segs().some(
          (s) => s.at >= ev.answeredAt! + GRACE_MS && s.at < m.at && pathwayOf(s) === row.via,
        )
      ) {
        return false;
      }
      // A PARAMS clone changes the URIs of the content description (rfc8216bis §7.3): with HLS
      // the media playlist's, whose segments, relative to it, do not carry them.
      if (row.id === 'clone-params') {
        return mine().some((s) => s.at >= m.answeredAt! && pathwayOf(s) === row.target);
      }
      return segs().filter((s) => after(s) && pathwayOf(s) === row.target).length >= 2;
    };
    let ended: Observation['ended'] = 'time';
    let events: PageEvent[] = [];
    try {
      await startPlayer(page, pages.url(player), player, {
        url,
        content,
        debug: process.env.MATRIX_CONSOLE === '1',
      });
      // Each request the pathways or the endpoint see wakes the run, which then reads what it
      // saw; a timer only for what is about time (the ceiling's seconds, the hang guard).
      const deadline = performance.now() + HANG_GUARD_MS;
      const ceiling = row.ceiling ?? CEILING_SEGMENTS;
      for (;;) {
        let wakeAt = deadline;
        const ev = scenario.requests[row.event];
        if (ev !== undefined && reachedNow() && scenario.requests.length > row.event + 1) {
          ended = 'settled';
          break;
        }
        // From the event's request, or, while it has not come, from the last request (or the
        // start): the ceiling of media and of time. Both: a player filling its buffer fetches
        // faster than it plays, and one that asks again after Retry-After must still be seen to
        // follow. Before the event, requests come a TTL apart, far within the ceiling; a player
        // that stopped steering before the event (VHS on a live MPD) ends the run so.
        const from = ev?.at ?? scenario.requests.at(-1)?.at ?? t0;
        if (videoSegs().filter((s) => s.at > from).length >= ceiling) {
          if (performance.now() - from >= ceiling * 1000) {
            ended = 'segments';
            break;
          }
          wakeAt = Math.min(wakeAt, from + ceiling * 1000);
        }
        if (performance.now() >= deadline) break;
        await Wake.any([pathways.wake, endpoint.wake], wakeAt - performance.now());
      }
      events = await pageEvents(page).catch(() => []);
    } finally {
      await page.close().catch(() => undefined);
    }
    if (consoleLog.length > 0)
      process.stdout.write(`${columnKey(column)} ${row.id}:\n${consoleLog.join('\n')}\n`);
    const ev = scenario.requests[row.event];
    const next = scenario.requests[row.event + 1];
    const all = segs();
    const rel = (at: number) => Math.round(at - t0);
    const version = events.find((e) => e.type === 'version');
    return {
      player,
      content,
      column: columnKey(column),
      version: (version?.version as string | undefined) ?? null,
      row: row.id,
      title: row.title,
      requests: scenario.requests.map((r) => ({
        atMs: rel(r.at),
        path: bare(r.target),
        status: r.status,
      })),
      segments: all.map((s) => ({
        atMs: rel(s.at),
        pathway: pathwayOf(s),
        url: `http://${s.host}${s.path.slice(prefix.length)}${s.query === '' ? '' : `?${s.query}`}`,
      })),
      documents: mine()
        .filter((s) => /\.(m3u8|mpd)$/.test(s.path))
        .map((s) => ({
          atMs: rel(s.at),
          pathway: pathwayOf(s),
          url: `http://${s.host}${s.path.slice(prefix.length)}${s.query === '' ? '' : `?${s.query}`}`,
        })),
      eventAtMs: ev === undefined ? null : rel(ev.at),
      nextMs: ev === undefined || next === undefined ? null : Math.round(next.at - ev.at),
      eventPath: ev === undefined ? null : bare(ev.target),
      nextPath: next === undefined ? null : bare(next.target),
      nextSame: ev === undefined || next === undefined ? null : next.target === ev.target,
      reached: reachedNow(),
      on: all.length === 0 ? null : pathwayOf(all.at(-1)!),
      updates: Math.max(0, mine().filter((s) => description.test(s.path)).length - 1),
      errors: events
        .filter((e) => e.type === 'player-error' && e.fatal === true)
        .map((e) => JSON.stringify(e)),
      ended,
      ms: Math.round(performance.now() - t0),
    };
  };

  return {
    run,
    async close() {
      for (const c of cleanup) await c().catch(() => undefined);
    },
  };
}

/** Writes the observations of a run (players/captured/matrix.json). */
export function writeObservations(file: string, observations: readonly Observation[]): void {
  const sorted = [...observations].sort(
    (a, b) =>
      ROWS.findIndex((r) => r.id === a.row) - ROWS.findIndex((r) => r.id === b.row) ||
      MATRIX_COLUMNS.findIndex((c) => columnKey(c) === a.column) -
        MATRIX_COLUMNS.findIndex((c) => columnKey(c) === b.column),
  );
  writeFileSync(
    file,
    `${JSON.stringify(
      {
        columns: MATRIX_COLUMNS.map((c) => ({ ...c, key: columnKey(c) })),
        rows: ROWS.map((r) => ({
          id: r.id,
          title: r.title,
          target: r.target,
          ...(r.via === undefined ? {} : { via: r.via }),
          ttlAfter: r.ttlAfter,
        })),
        ttl: TTL,
        retryAfter: RETRY_AFTER,
        observations: sorted,
      },
      null,
      2,
    )}\n`,
  );
}
