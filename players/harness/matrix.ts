// The behaviour matrix (docs/players.md): each player, in its own page, is given one scripted
// steering answer at a time (./scripted.ts) and the run records when it asks again, which
// pathway it fetches segments from, and whether it keeps steering. Scenarios run in parallel
// pages of one Chromium; they share the pathway servers (each under its `/s/<scenario>/`) and
// the scripted endpoint.
//
// Every row has the same shape: the player starts on `cdn-b` (the content description's
// pathway), is answered `before` (manifests putting cdn-b first, TTL `ttl` s) until the `event`
// answer, whose effect the row measures, and then `after`: manifests that put `target` first.
// "Keeps steering" is: after the event, the player asked again and fetched its segments from
// `target`.

import { writeFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { launchMany, type ManyPages } from './browser.js';
import { type BasePathway, liveMpd, livePlaylist, mpd, multivariantPlaylist } from './documents.js';
import { ensureMedia, MATRIX_MEDIA, type Media } from './media.js';
import { type PageServer, type PlayerName, startPageServer } from './page.js';
import { type Pathways, type ServedRequest, startPathways } from './pathways.js';
import { type PageEvent, pageEvents, startPlayer } from './players.js';
import {
  type Answer,
  type ManifestSpec,
  type ScriptedEndpoint,
  type ScriptedRequest,
  startScriptedEndpoint,
} from './scripted.js';
import { Wake } from './wake.js';

export const HOSTS = [
  { id: 'cdn-a', host: '127.0.0.11' },
  { id: 'cdn-b', host: '127.0.0.12' },
  { id: 'cdn-c', host: '127.0.0.13' },
] as const;
/** The query parameter a PARAMS clone adds, which marks its segments. */
export const CLONE_PARAM = 'wai-clone';
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

/** TTL of the manifests before the event, seconds. */
export const TTL = 4;
/**
 * The Retry-After the 429 and 503 rows send, seconds: far enough from the TTL, as the TTL is
 * from the players' own 1 s retries, that they tell apart on a busy machine, whose timers run
 * seconds late.
 */
export const RETRY_AFTER = 10;
/** How long the timeout row holds the request before closing its connection, ms. */
export const HANG_MS = 15_000;
/**
 * After the event, a run ends once this many video segments (seconds of media) came, and as many
 * seconds passed, with no sign of steering; the timeout row waits for the connection to close
 * and a TTL beyond it.
 */
const CEILING_SEGMENTS = 16;
/** A run ends after this in any case (the row then says what it saw). */
const CEILING_MS = 50_000;
/** A segment requested this long after a manifest arrived was chosen under it. */
const GRACE_MS = 600;

/** A session as §8.1 writes it in `RELOAD-URI` (32 hexadecimal digits). */
const SESSION = '5e55105e55105e55105e55105e55105e';

const before: ManifestSpec = { priority: ['cdn-b', 'cdn-a'], ttl: TTL };
const toA: ManifestSpec = { priority: ['cdn-a', 'cdn-b'], ttl: TTL };
const toB: ManifestSpec = { priority: ['cdn-b', 'cdn-a'], ttl: TTL };
const ok = (m: ManifestSpec): Answer => ({ kind: 'manifest', manifest: m });
const cloneOfB = (replacement: { HOST?: string; PARAMS?: Record<string, string> }) => ({
  priority: ['cdn-c', 'cdn-b', 'cdn-a'],
  ttl: TTL,
  clones: [{ 'BASE-ID': 'cdn-b', ID: 'cdn-c', 'URI-REPLACEMENT': replacement }],
});

/** A scenario's URIs on the scripted endpoint. */
export interface ScenarioUris {
  /** The steering URI the content description names by default, `…/s/<id>/steer`. */
  readonly server: string;
  /** The `RELOAD-URI` the manifests name by default, `…/s/<id>/steer/reload`. */
  readonly reload: string;
  /** `…/s/<id>`. */
  readonly origin: string;
}

export interface Row {
  readonly id: string;
  /** The answer, as the table's first column says it. */
  readonly title: string;
  readonly live?: boolean;
  /** The answers, in order; the last repeats. */
  readonly script: (uris: ScenarioUris) => Answer[];
  /**
   * The steering URI the content description names, when not the scenario's server URI (the
   * row of a description that names a session's `RELOAD-URI`).
   */
  readonly descriptionUri?: (uris: ScenarioUris) => string;
  /** The index of the answer whose effect the row measures. */
  readonly event: number;
  /** The pathway the manifests after the event put first. */
  readonly target: string;
  /** A pathway the player must have fetched from after the event, before `target` (a first move). */
  readonly via?: string;
  /** The TTL in force for the request after the event, seconds (what a client waits by). */
  readonly ttlAfter: number;
  /** The TTL before the event, when the row changes it, seconds. */
  readonly ttlBefore?: number;
  /** Video segments after the event before the run gives up (default CEILING_SEGMENTS). */
  readonly ceiling?: number;
}

// An error to the first request is followed by the tag's order (no move) and, a TTL later, the
// move: hls.js, given a move while it loads its very first fragment, drops that fragment and
// stalls for good (docs/players.md), which a retry after about 1 s would meet on a slow machine.
// Such a row waits for a Retry-After, a TTL and a few segments before it gives up.
const errorRow = (id: string, title: string, event: Answer, first = false): Row => ({
  id,
  title,
  script: () => (first ? [event, ok(before), ok(toA)] : [ok(before), event, ok(toA)]),
  event: first ? 0 : 1,
  target: 'cdn-a',
  ttlAfter: TTL,
  ...(first ? { ceiling: RETRY_AFTER + TTL + 8 } : {}),
});

/**
 * Two moves (`cdn-a` first, then `cdn-b` first again) after a manifest that keeps `cdn-b`: the
 * row measures the request after the first move and whether the player then follows the second.
 * `uri`: the `RELOAD-URI` of every manifest, and (when `described`) the steering URI of the
 * content description too.
 */
const twoMoves = (
  id: string,
  title: string,
  uri?: (uris: ScenarioUris) => string,
  described = true,
): Row => ({
  id,
  title,
  ...(uri !== undefined && described ? { descriptionUri: uri } : {}),
  script: (uris) => {
    const reload = uri === undefined ? {} : { reload: uri(uris) };
    return [ok({ ...before, ...reload }), ok({ ...toA, ...reload }), ok({ ...toB, ...reload })];
  },
  event: 1,
  target: 'cdn-b',
  via: 'cdn-a',
  ttlAfter: TTL,
});

const retryHeaders = (exposed: boolean) => ({
  'Retry-After': String(RETRY_AFTER),
  ...(exposed ? { 'Access-Control-Expose-Headers': 'Retry-After' } : {}),
});

export const ROWS: readonly Row[] = [
  {
    id: 'priority',
    title: '200, a new priority (`cdn-a` first)',
    script: () => [ok(before), ok(toA)],
    event: 1,
    target: 'cdn-a',
    ttlAfter: TTL,
  },
  {
    id: 'pathway-gone',
    title: "200, the client's pathway gone from the priority (`[cdn-a]`)",
    script: () => [ok(before), ok({ priority: ['cdn-a'], ttl: TTL })],
    event: 1,
    target: 'cdn-a',
    ttlAfter: TTL,
  },
  {
    id: 'priority-clones',
    title: '200, a new priority (`cdn-a` first), the clone `cdn-c` listed last in every manifest',
    script: () => [
      ok({ ...cloneOfB({ HOST: '127.0.0.13' }), priority: ['cdn-b', 'cdn-a', 'cdn-c'] }),
      ok({ ...cloneOfB({ HOST: '127.0.0.13' }), priority: ['cdn-a', 'cdn-b', 'cdn-c'] }),
    ],
    event: 1,
    target: 'cdn-a',
    ttlAfter: TTL,
  },
  {
    id: 'clone-host',
    title: '200, a clone `cdn-c` of `cdn-b`, `HOST` `127.0.0.13` (no scheme), first',
    script: () => [ok(before), ok(cloneOfB({ HOST: '127.0.0.13' }))],
    event: 1,
    target: 'cdn-c',
    ttlAfter: TTL,
  },
  {
    id: 'clone-host-scheme',
    title: '200, the same clone with `HOST` `http://127.0.0.13` (a scheme)',
    script: () => [ok(before), ok(cloneOfB({ HOST: 'http://127.0.0.13' }))],
    event: 1,
    target: 'cdn-c',
    ttlAfter: TTL,
  },
  {
    id: 'clone-host-params',
    title: `200, the clone with \`HOST\` \`127.0.0.13\` and \`PARAMS\` (\`${CLONE_PARAM}=cdn-c\`), first`,
    script: () => [
      ok(before),
      ok(cloneOfB({ HOST: '127.0.0.13', PARAMS: { [CLONE_PARAM]: 'cdn-c' } })),
    ],
    event: 1,
    target: 'cdn-c',
    ttlAfter: TTL,
  },
  {
    id: 'clone-params',
    title: `200, a clone \`cdn-c\` of \`cdn-b\` with \`PARAMS\` only (\`${CLONE_PARAM}=cdn-c\`), first`,
    script: () => [ok(before), ok(cloneOfB({ PARAMS: { [CLONE_PARAM]: 'cdn-c' } }))],
    event: 1,
    target: 'cdn-c',
    ttlAfter: TTL,
  },
  {
    id: 'ttl-short',
    title: 'TTL 6 s, then TTL 1 s (shorter)',
    script: () => [ok({ ...before, ttl: 6 }), ok({ ...before, ttl: 1 }), ok(toA)],
    event: 1,
    target: 'cdn-a',
    ttlAfter: 1,
    ttlBefore: 6,
  },
  {
    id: 'ttl-long',
    title: 'TTL 2 s, then TTL 8 s (longer)',
    script: () => [ok({ ...before, ttl: 2 }), ok({ ...before, ttl: 8 }), ok(toA)],
    event: 1,
    target: 'cdn-a',
    ttlAfter: 8,
    ceiling: CEILING_SEGMENTS + 6,
  },
  {
    id: 'reload-uri',
    title: '`RELOAD-URI` moved to another absolute URI (`…/moved?k=1`)',
    script: ({ origin }) => [
      ok(before),
      ok({ ...before, reload: `${origin}/moved?k=1` }),
      ok({ ...toA, reload: `${origin}/moved?k=1` }),
    ],
    event: 1,
    target: 'cdn-a',
    ttlAfter: TTL,
  },
  {
    id: 'reload-uri-relative',
    title: '`RELOAD-URI` relative (`moved?k=2`)',
    script: () => [
      ok(before),
      ok({ ...before, reload: 'moved?k=2' }),
      ok({ ...toA, reload: 'moved?k=2' }),
    ],
    event: 1,
    target: 'cdn-a',
    ttlAfter: TTL,
  },
  errorRow('429', `429 with \`Retry-After: ${RETRY_AFTER}\` (exposed to scripts)`, {
    kind: 'status',
    status: 429,
    headers: retryHeaders(true),
  }),
  errorRow(
    '429-hidden',
    '429 with `Retry-After` not exposed (no `Access-Control-Expose-Headers`)',
    {
      kind: 'status',
      status: 429,
      headers: retryHeaders(false),
    },
  ),
  errorRow('503', `503 with \`Retry-After: ${RETRY_AFTER}\` (exposed)`, {
    kind: 'status',
    status: 503,
    headers: retryHeaders(true),
  }),
  errorRow(
    '503-first',
    `503 with \`Retry-After: ${RETRY_AFTER}\` to the first request`,
    { kind: 'status', status: 503, headers: retryHeaders(true) },
    true,
  ),
  errorRow(
    '429-first',
    `429 with \`Retry-After: ${RETRY_AFTER}\` (exposed) to the first request`,
    { kind: 'status', status: 429, headers: retryHeaders(true) },
    true,
  ),
  errorRow('410', '410', { kind: 'status', status: 410 }),
  errorRow('500', '500', { kind: 'status', status: 500 }),
  {
    ...errorRow('timeout', `no answer (the connection closed after ${HANG_MS / 1000} s)`, {
      kind: 'hang',
      ms: HANG_MS,
    }),
    ceiling: HANG_MS / 1000 + 8,
  },
  errorRow('bad-body', 'a 200 whose body does not parse (`{"VERSION":1,`)', {
    kind: 'garbage',
    body: '{"VERSION":1,',
  }),
  {
    id: 'live',
    title: 'a live stream: the manifest updated (MPD every 2 s, HLS media playlist each segment)',
    live: true,
    script: () => [ok(before), ok(before), ok(before), ok(toA)],
    event: 3,
    target: 'cdn-a',
    ttlAfter: TTL,
  },
  // Two moves, a TTL apart: video.js on DASH (VHS 3.17) follows the first and, the MPD's
  // steering URI not being the manifests' RELOAD-URI, re-creates its steering controller without
  // the listener that switches segments (docs/players.md): it never follows the second. The two
  // rows after it are the content descriptions that keep it steering.
  twoMoves(
    'two-moves',
    '200, a new priority (`cdn-a` first), then the first one again (`cdn-b` first)',
  ),
  twoMoves(
    'session-description',
    "the same two moves, the content description naming the session's `RELOAD-URI` (`…/steer/reload?wai_session=…`) as every manifest does",
    ({ reload }) => `${reload}?wai_session=${SESSION}`,
  ),
  twoMoves(
    'reload-is-server',
    "the same two moves, every `RELOAD-URI` the content description's own steering URI (no session in it)",
    ({ server }) => server,
    false,
  ),
];

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
      const deadline = performance.now() + CEILING_MS;
      for (;;) {
        let wakeAt = deadline;
        const ev = scenario.requests[row.event];
        if (ev !== undefined) {
          if (reachedNow() && scenario.requests.length > row.event + 1) {
            ended = 'settled';
            break;
          }
          // Both the media and the clock: a player filling its buffer fetches faster than it
          // plays, and one that asks again after Retry-After must still be seen to follow.
          const ceiling = row.ceiling ?? CEILING_SEGMENTS;
          if (videoSegs().filter((s) => s.at > ev.at).length >= ceiling) {
            if (performance.now() - ev.at >= ceiling * 1000) {
              ended = 'segments';
              break;
            }
            wakeAt = Math.min(wakeAt, ev.at + ceiling * 1000);
          }
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
