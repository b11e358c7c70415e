// How each player is started in its page: the configuration the suite runs it with, and the
// player events it records into `window.__events`. Each function runs in the page
// (`page.evaluate`), so it uses only the page's globals.

import type { Page } from 'playwright-core';
import type { PlayerName } from './page.js';

/** A short forward buffer, so that the player keeps fetching segments while steering moves. */
export const FORWARD_BUFFER_S = 4;

export interface PageEvent {
  readonly type: string;
  readonly at: number;
  readonly [key: string]: unknown;
}

// biome-ignore lint/suspicious/noExplicitAny: the page's globals are untyped.
type Win = any;

function startHls(args: { url: string; buffer: number; debug: boolean }): void {
  const w = window as Win;
  const Hls = w.Hls;
  const hls = new Hls({
    debug: args.debug,
    maxBufferLength: args.buffer,
    maxMaxBufferLength: args.buffer + 2,
    backBufferLength: 0,
    startLevel: 0,
  });
  w.__player = hls;
  w.__push('version', { version: Hls.version });
  hls.on(Hls.Events.STEERING_MANIFEST_LOADED, (_e: unknown, d: Win) =>
    w.__push('steering', { url: d.url, manifest: d.steeringManifest }),
  );
  hls.on(Hls.Events.LEVELS_UPDATED, (_e: unknown, d: Win) =>
    w.__push('levels', {
      pathways: d.levels.map((l: Win) => l.attrs['PATHWAY-ID']),
      urls: d.levels.map((l: Win) => l.url),
    }),
  );
  hls.on(Hls.Events.FRAG_LOADING, (_e: unknown, d: Win) =>
    w.__push('fragment', { url: d.frag.url }),
  );
  hls.on(Hls.Events.ERROR, (_e: unknown, d: Win) =>
    w.__push('player-error', { details: d.details, fatal: d.fatal, url: d.url ?? d.frag?.url }),
  );
  const video = document.getElementById('video') as HTMLVideoElement;
  hls.attachMedia(video);
  hls.loadSource(args.url);
  video.play().catch((e: Error) => w.__push('play-error', { message: String(e) }));
}

function startDash(args: {
  url: string;
  buffer: number;
  cmcd: 'query' | 'headers';
  cmcdVersion: 1 | 2;
}): void {
  const w = window as Win;
  const dashjs = w.dashjs;
  const player = dashjs.MediaPlayer().create();
  w.__player = player;
  w.__push('version', { version: player.getVersion() });
  player.updateSettings({
    debug: { logLevel: dashjs.Debug.LOG_LEVEL_WARNING },
    streaming: {
      applyContentSteering: true,
      buffer: {
        bufferTimeDefault: args.buffer,
        bufferTimeAtTopQuality: args.buffer,
        bufferTimeAtTopQualityLongForm: args.buffer,
        bufferToKeep: args.buffer,
        initialBufferLevel: 2,
      },
      cmcd: {
        enabled: true,
        mode: args.cmcd,
        version: args.cmcdVersion,
        cid: 'wai-players',
        includeInRequests: ['segment', 'mpd', 'steering'],
      },
    },
  });
  const events = dashjs.MediaPlayer.events;
  player.on(events.CONTENT_STEERING_REQUEST_COMPLETED, (d: Win) =>
    w.__push('steering', {
      url: d.url,
      manifest: JSON.parse(JSON.stringify(d.currentSteeringResponseData ?? null)),
    }),
  );
  player.on(events.FRAGMENT_LOADING_STARTED, (d: Win) =>
    w.__push('fragment', { url: d.request?.url, serviceLocation: d.request?.serviceLocation }),
  );
  player.on(events.ERROR, (d: Win) =>
    w.__push('player-error', { code: d.error?.code, message: d.error?.message }),
  );
  const video = document.getElementById('video') as HTMLVideoElement;
  player.initialize(video, args.url, true);
}

async function startShaka(args: { url: string; buffer: number }): Promise<void> {
  const w = window as Win;
  const shaka = w.shaka;
  shaka.polyfill.installAll();
  const video = document.getElementById('video') as HTMLVideoElement;
  const player = new shaka.Player();
  w.__player = player;
  w.__push('version', {
    version: shaka.Player.version,
    supported: shaka.Player.isBrowserSupported(),
  });
  await player.attach(video);
  player.configure({
    streaming: { bufferingGoal: args.buffer, rebufferingGoal: 1, bufferBehind: args.buffer },
  });
  const types = shaka.net.NetworkingEngine.RequestType;
  player.getNetworkingEngine().registerResponseFilter((type: number, response: Win) => {
    if (type === types.CONTENT_STEERING) {
      let manifest = null;
      try {
        manifest = JSON.parse(new TextDecoder().decode(response.data));
      } catch {}
      w.__push('steering', { url: response.uri, manifest });
    }
  });
  player.getNetworkingEngine().registerRequestFilter((type: number, request: Win) => {
    if (type === types.SEGMENT) w.__push('fragment', { url: request.uris[0] });
    if (type === types.CONTENT_STEERING) w.__push('steering-request', { url: request.uris[0] });
  });
  player.addEventListener('error', (e: Win) =>
    w.__push('player-error', { code: e.detail?.code, message: String(e.detail?.message ?? '') }),
  );
  try {
    await player.load(args.url);
    await video.play();
  } catch (e) {
    w.__push('player-error', { message: String((e as Win)?.code ?? e) });
  }
}

function startVideojs(args: {
  url: string;
  buffer: number;
  content: 'hls' | 'dash';
  debug: boolean;
}): void {
  const w = window as Win;
  const videojs = w.videojs;
  if (args.debug) videojs.log.level('debug');
  const video = document.getElementById('video') as HTMLVideoElement;
  // VHS, video.js's HTTP streaming engine, plays both; native HLS (Chromium has it) is
  // overridden, since only VHS steers.
  const player = videojs(video, {
    muted: true,
    autoplay: 'muted',
    html5: { vhs: { overrideNative: true }, nativeAudioTracks: false, nativeVideoTracks: false },
  });
  w.__player = player;
  w.__push('version', { version: videojs.VERSION, vhs: videojs.VhsHandler?.version?.() ?? null });
  videojs.Vhs.GOAL_BUFFER_LENGTH = args.buffer;
  videojs.Vhs.MAX_GOAL_BUFFER_LENGTH = args.buffer + 2;
  player.on('error', () =>
    w.__push('player-error', { code: player.error()?.code, message: player.error()?.message }),
  );
  player.src({
    src: args.url,
    type: args.content === 'hls' ? 'application/x-mpegURL' : 'application/dash+xml',
  });
  player.play()?.catch?.((e: Error) => w.__push('play-error', { message: String(e) }));
}

export interface StartOptions {
  /** The content description: the multivariant playlist or the MPD. */
  readonly url: string;
  /** dash.js: CMCD in the query (the default) or in headers. */
  readonly cmcd?: 'query' | 'headers';
  /** dash.js: the CMCD version it sends (CTA-5004 1, or CTA-5004-B 2); default 1. */
  readonly cmcdVersion?: 1 | 2;
  /** The player's own debug log, to the page's console. */
  readonly debug?: boolean;
  /** video.js: the content description's kind (HLS by default). */
  readonly content?: 'hls' | 'dash';
}

/** Opens the player's page and starts it on `url`. */
export async function startPlayer(
  page: Page,
  pageUrl: string,
  player: PlayerName,
  options: StartOptions,
): Promise<void> {
  // No timeout of its own: on a busy machine eight pages loading their bundles at once take
  // their time; the test's own timeout bounds it.
  await page.goto(pageUrl, { timeout: 0 });
  const args = { url: options.url, buffer: FORWARD_BUFFER_S, debug: options.debug ?? false };
  if (player === 'hls.js') await page.evaluate(startHls, args);
  else if (player === 'dash.js')
    await page.evaluate(startDash, {
      ...args,
      cmcd: options.cmcd ?? 'query',
      cmcdVersion: options.cmcdVersion ?? 1,
    });
  else if (player === 'video.js')
    await page.evaluate(startVideojs, { ...args, content: options.content ?? 'hls' });
  else await page.evaluate(startShaka, args);
}

/** The events the page recorded so far. */
export function pageEvents(page: Page): Promise<PageEvent[]> {
  return page.evaluate(() => (window as Win).__events as PageEvent[]);
}
