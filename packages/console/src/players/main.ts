/**
 * The players page (`/console/players`): plays a stream through a real player chosen from a
 * list (the versions the project pins, served with the console) or loaded from a URL the visitor
 * gives, and shows, live, every steering request the player makes and what it was answered,
 * whether each manifest verifies (`fetchAndVerify` of `@wai-steering/verifier`, as the verifier
 * page does, from the manifest's bytes), and the pathway each segment came from.
 *
 * One player per page load: the form reloads the page with `?player=&src=&script=`. What the
 * player fetches is seen by wrapping `fetch` and `XMLHttpRequest` before its script loads, so a
 * player of any version, or another one driven the same way, is seen alike.
 */
import '../common/style.css';
import BUNDLED from 'virtual:wai-players';
import { readStrictJson } from '@wai-steering/config-text';
import { fetchAndVerify, VerifierCache } from '@wai-steering/verifier';
import { nobleBackend } from '@wai-steering/wire';
import { byId, fill, h } from '../common/dom.js';
import {
  type Clone,
  clonePrefixes,
  type Description,
  describeDash,
  describeHls,
  isSegment,
  type PathwayPrefix,
  pathwayOf,
} from './describe.js';

type Kind = 'hls.js' | 'dash.js' | 'shaka-player' | 'video.js';
const KINDS: readonly Kind[] = ['hls.js', 'dash.js', 'shaka-player', 'video.js'];
type Protocol = 'hls' | 'dash';
/** The protocols each player steers, its default first. */
const PROTOCOLS: Readonly<Record<Kind, readonly Protocol[]>> = {
  'hls.js': ['hls'],
  'dash.js': ['dash'],
  'shaka-player': ['dash', 'hls'],
  'video.js': ['hls', 'dash'],
};
const PROTOCOL_NAME: Readonly<Record<Protocol, string>> = { hls: 'HLS', dash: 'DASH' };
const STEERING_TYPE = 'application/vnd.apple.steering-list';
const MAX_SEGMENT_ROWS = 400;
/**
 * Each player's forward buffer, seconds: short, so that it keeps fetching as it plays and a move
 * shows within a segment or two (with their defaults, a short stream is fetched whole at once).
 */
const BUFFER_S = 6;

// biome-ignore lint/suspicious/noExplicitAny: the players' globals are untyped.
type Any = any;

const params = new URLSearchParams(location.search);
const t0 = performance.now();
const since = () => ((performance.now() - t0) / 1000).toFixed(1);

/** The protocol asked for (`?protocol=`), when the player steers it; else the player's first. */
function protocolOf(kind: Kind, asked: string | null): Protocol {
  const steers = PROTOCOLS[kind];
  return steers.find((p) => p === asked) ?? steers[0]!;
}

/** The stream this server serves in a protocol (its demo stream, on its pathways). */
function defaultSource(protocol: Protocol): string {
  const name = protocol === 'dash' ? 'main.mpd' : 'main.m3u8';
  return new URL(`players/stream/${name}`, location.href).href;
}

function setUpForm(): void {
  const select = byId<HTMLSelectElement>('player');
  for (const b of BUNDLED) {
    select.append(h('option', { value: b.kind }, `${b.kind} ${b.version}`));
  }
  const kind = (params.get('player') as Kind | null) ?? 'hls.js';
  select.value = KINDS.includes(kind) ? kind : 'hls.js';
  const protocol = byId<HTMLSelectElement>('protocol');
  // The protocols the chosen player steers, the one asked for (or its first) selected.
  const protocols = (asked: string | null) => {
    const k = select.value as Kind;
    fill(protocol, ...PROTOCOLS[k].map((p) => h('option', { value: p }, PROTOCOL_NAME[p])));
    protocol.value = protocolOf(k, asked);
    byId<HTMLInputElement>('src').placeholder = defaultSource(protocol.value as Protocol);
  };
  protocols(params.get('protocol'));
  byId<HTMLInputElement>('script').value = params.get('script') ?? '';
  byId<HTMLInputElement>('src').value = params.get('src') ?? '';
  select.addEventListener('change', () => protocols(protocol.value));
  protocol.addEventListener('change', () => {
    byId<HTMLInputElement>('src').placeholder = defaultSource(protocol.value as Protocol);
  });
}

// ---- What the player fetches -------------------------------------------------------------

interface Seen {
  readonly url: string;
  readonly status: number;
  readonly type: string | null;
  /** The body's bytes, read only for steering answers. */
  readonly body: () => Promise<Uint8Array | null>;
}

type Listener = (seen: Seen) => void;

/** Wraps fetch and XMLHttpRequest so that `listen` sees every answer the page's scripts get. */
function tap(listen: Listener): void {
  const encoder = new TextEncoder();
  const original = window.fetch.bind(window);
  window.fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const raw = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const url = new URL(raw, location.href).href;
    const res = await original(input, init);
    const copy = res.clone();
    listen({
      url,
      status: res.status,
      type: res.headers.get('content-type'),
      body: async () => new Uint8Array(await copy.arrayBuffer()),
    });
    return res;
  };
  const open = XMLHttpRequest.prototype.open;
  const send = XMLHttpRequest.prototype.send;
  XMLHttpRequest.prototype.open = function (
    this: Any,
    method: string,
    url: string | URL,
    ...rest: Any[]
  ) {
    this.__waiUrl = new URL(String(url), location.href).href;
    return (open as Any).call(this, method, url, ...rest);
  } as Any;
  XMLHttpRequest.prototype.send = function (this: Any, body?: Any) {
    const xhr = this as XMLHttpRequest & { __waiUrl?: string };
    xhr.addEventListener('loadend', () => {
      listen({
        url: xhr.__waiUrl ?? '',
        status: xhr.status,
        type: xhr.getResponseHeader('content-type'),
        body: async () => {
          const r: unknown = xhr.response;
          if (xhr.responseType === '' || xhr.responseType === 'text') {
            return encoder.encode(xhr.responseText);
          }
          if (r instanceof ArrayBuffer) return new Uint8Array(r);
          // A player that asked for JSON gets it parsed; the server's manifest is plain JSON,
          // so serialising it again gives its bytes (§8.1), which the verification compares.
          if (xhr.responseType === 'json' && r !== null) return encoder.encode(JSON.stringify(r));
          return null;
        },
      });
    });
    return send.call(this, body);
  } as Any;
}

// ---- The tables ----------------------------------------------------------------------------

function queryOf(url: string): string {
  const u = new URL(url);
  const parts = [...u.searchParams.entries()].map(([k, v]) => `${k}=${v}`);
  return `${u.pathname}${parts.length > 0 ? `\n${parts.join('\n')}` : ''}`;
}

interface State {
  description: Description | null;
  prefixes: PathwayPrefix[];
  steeringPaths: Set<string>;
  steering: number;
  segments: number;
  byPathway: Map<string, number>;
}

const state: State = {
  description: null,
  prefixes: [],
  steeringPaths: new Set(),
  steering: 0,
  segments: 0,
  byPathway: new Map(),
};

function pathOf(url: string): string | null {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}`;
  } catch {
    return null;
  }
}

function isSteering(seen: Seen): boolean {
  if (seen.type?.startsWith(STEERING_TYPE) === true) return true;
  const p = pathOf(seen.url);
  return p !== null && state.steeringPaths.has(p);
}

const cache = new VerifierCache();

async function onSteering(seen: Seen): Promise<void> {
  state.steering++;
  const verdict = h('td', { class: 'muted' }, seen.status === 200 ? 'verifying…' : '—');
  const row = h(
    'tr',
    { 'data-kind': 'steering', 'data-status': String(seen.status), 'data-verified': 'pending' },
    h('td', {}, String(state.steering)),
    h('td', {}, `${since()} s`),
    h('td', { class: 'mono wrap' }, queryOf(seen.url)),
    h('td', {}, String(seen.status)),
  );
  const ttl = h('td', {});
  const priority = h('td', { class: 'mono' });
  row.append(ttl, priority, verdict);
  byId('steering-rows').append(row);
  updateSummary();
  const bytes = await seen.body().catch(() => null);
  if (seen.status !== 200 || bytes === null) {
    row.setAttribute('data-verified', seen.status === 200 ? 'unread' : 'none');
    if (bytes !== null && seen.status !== 200) {
      fill(verdict, new TextDecoder().decode(bytes).slice(0, 200));
    }
    return;
  }
  const read = readStrictJson(new TextDecoder().decode(bytes));
  if (!read.ok || read.value === null || typeof read.value !== 'object') {
    row.setAttribute('data-verified', 'unparsed');
    fill(verdict, read.ok ? 'not a JSON object' : read.problem);
    return;
  }
  const manifest = read.value as Any;
  fill(ttl, `${manifest.TTL ?? '—'} s`);
  const first = Array.isArray(manifest['PATHWAY-PRIORITY']) ? manifest['PATHWAY-PRIORITY'] : [];
  fill(priority, first.join(' › '));
  row.setAttribute('data-first', String(first[0] ?? ''));
  if (typeof manifest['RELOAD-URI'] === 'string') {
    const reload = pathOf(new URL(manifest['RELOAD-URI'], seen.url).href);
    if (reload !== null) state.steeringPaths.add(reload);
  }
  if (Array.isArray(manifest['PATHWAY-CLONES']) && state.description !== null) {
    const clones = clonePrefixes(state.description.pathways, manifest['PATHWAY-CLONES'] as Clone[]);
    state.prefixes = [
      ...state.description.pathways,
      ...clones,
      ...state.prefixes.filter(
        (p) => !state.description!.pathways.includes(p) && !clones.some((c) => c.id === p.id),
      ),
    ];
  }
  // A fetch of the evidence that failed on the network (no HTTP status) says nothing of the
  // manifest: it is tried again, once, and then said so, apart from a refusal.
  const unfetched = (e: unknown) =>
    e instanceof Error &&
    e.name === 'FetchError' &&
    (e as { status?: number }).status === undefined;
  const verify = () => fetchAndVerify({ manifest: bytes }, { backend: nobleBackend, cache });
  try {
    const v = await verify().catch((e: unknown) => (unfetched(e) ? verify() : Promise.reject(e)));
    const o = v.outcome;
    row.setAttribute('data-verified', o.outcome);
    if (o.outcome === 'accept') {
      fill(verdict, h('span', { class: 'ok' }, `verified: ${o.reason}`));
    } else {
      fill(verdict, h('span', { class: 'bad' }, `refused: ${o.reason} at ${o.where.at}`));
    }
    verdict.className = '';
  } catch (e) {
    row.setAttribute('data-verified', unfetched(e) ? 'unfetched' : 'error');
    fill(
      verdict,
      h(
        'span',
        { class: 'bad' },
        unfetched(e)
          ? `not verified: the evidence could not be fetched (${(e as Error).message})`
          : `not verified: ${(e as Error).message}`,
      ),
    );
    verdict.className = '';
  }
}

function onSegment(seen: Seen): void {
  state.segments++;
  const pathway = pathwayOf(seen.url, state.prefixes) ?? `? ${new URL(seen.url).host}`;
  state.byPathway.set(pathway, (state.byPathway.get(pathway) ?? 0) + 1);
  const body = byId('segment-rows');
  body.prepend(
    h(
      'tr',
      { 'data-kind': 'segment', 'data-pathway': pathway, 'data-status': String(seen.status) },
      h('td', {}, `${since()} s`),
      h('td', {}, pathway),
      h('td', {}, String(seen.status)),
      h('td', { class: 'mono wrap' }, seen.url),
    ),
  );
  while (body.children.length > MAX_SEGMENT_ROWS) body.lastElementChild?.remove();
  updateSummary();
}

function updateSummary(): void {
  const parts = [...state.byPathway.entries()].map(([p, n]) => `${p}: ${n}`);
  fill(
    byId('summary'),
    `${state.steering} steering requests · ${state.segments} segments${parts.length > 0 ? ` (${parts.join(', ')})` : ''}`,
  );
}

function note(text: string, kind: 'info' | 'error' = 'info'): void {
  byId('events').append(h('li', { class: kind === 'error' ? 'bad' : '' }, `${since()} s ${text}`));
}

// ---- The players ---------------------------------------------------------------------------

function loadScript(src: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const s = document.createElement('script');
    s.src = src;
    s.onload = () => resolve();
    s.onerror = () => reject(new Error(`the player script did not load: ${src}`));
    document.head.append(s);
  });
}

async function startPlayer(
  kind: Kind,
  src: string,
  protocol: Protocol,
  video: HTMLVideoElement,
): Promise<string> {
  const w = window as Any;
  switch (kind) {
    case 'hls.js': {
      const hls = new w.Hls({ maxBufferLength: BUFFER_S, maxMaxBufferLength: BUFFER_S + 2 });
      w.__waiPlayer = hls;
      hls.on(w.Hls.Events.ERROR, (_e: unknown, d: Any) => {
        if (d.fatal) note(`hls.js: ${d.details}`, 'error');
      });
      hls.attachMedia(video);
      hls.loadSource(src);
      return `hls.js ${w.Hls.version}`;
    }
    case 'dash.js': {
      const player = w.dashjs.MediaPlayer().create();
      w.__waiPlayer = player;
      player.updateSettings({
        streaming: {
          applyContentSteering: true,
          buffer: {
            bufferTimeDefault: BUFFER_S,
            bufferTimeAtTopQuality: BUFFER_S,
            bufferTimeAtTopQualityLongForm: BUFFER_S,
          },
        },
      });
      player.on(w.dashjs.MediaPlayer.events.ERROR, (d: Any) =>
        note(`dash.js: ${d.error?.message ?? d.error?.code ?? 'error'}`, 'error'),
      );
      player.initialize(video, src, true);
      return `dash.js ${player.getVersion()}`;
    }
    case 'shaka-player': {
      w.shaka.polyfill.installAll();
      const player = new w.shaka.Player();
      w.__waiPlayer = player;
      await player.attach(video);
      player.configure({ streaming: { bufferingGoal: BUFFER_S, rebufferingGoal: 2 } });
      player.addEventListener('error', (e: Any) =>
        note(`shaka-player: error ${e.detail?.code ?? ''}`, 'error'),
      );
      await player.load(src);
      return `shaka-player ${w.shaka.Player.version}`;
    }
    case 'video.js': {
      w.videojs.Vhs.GOAL_BUFFER_LENGTH = BUFFER_S;
      w.videojs.Vhs.MAX_GOAL_BUFFER_LENGTH = BUFFER_S + 2;
      const player = w.videojs(video, {
        html5: {
          vhs: { overrideNative: true },
          nativeAudioTracks: false,
          nativeVideoTracks: false,
        },
      });
      w.__waiPlayer = player;
      player.on('error', () => note(`video.js: ${player.error()?.message ?? 'error'}`, 'error'));
      player.src({
        src,
        type: protocol === 'dash' ? 'application/dash+xml' : 'application/x-mpegURL',
      });
      return `video.js ${w.videojs.VERSION}`;
    }
  }
}

async function describe(src: string): Promise<Description> {
  const res = await fetch(src, { cache: 'no-store' });
  if (!res.ok) throw new Error(`${src}: ${res.status}`);
  const text = await res.text();
  if (text.trimStart().startsWith('#EXTM3U')) return describeHls(text, res.url || src);
  const doc = new DOMParser().parseFromString(text, 'application/xml');
  if (doc.documentElement.localName !== 'MPD') throw new Error(`${src}: neither HLS nor DASH`);
  return describeDash(doc, res.url || src);
}

async function run(kind: Kind): Promise<void> {
  const src = params.get('src') || defaultSource(protocolOf(kind, params.get('protocol')));
  const bundled = BUNDLED.find((b) => b.kind === kind);
  const script =
    params.get('script') || (bundled === undefined ? '' : new URL(bundled.url, location.href).href);
  byId('player-area').hidden = false;
  let protocol: Protocol;
  try {
    const d = await describe(src);
    protocol = d.protocol;
    state.description = d;
    state.prefixes = [...d.pathways];
    if (d.steering !== null) state.steeringPaths.add(pathOf(d.steering)!);
    fill(
      byId('description'),
      `${d.protocol === 'hls' ? 'HLS' : 'DASH'} · steering server ${d.steering ?? 'none'} · starts on ${d.initial ?? '—'} · pathways ${d.pathways.map((p) => `${p.id} (${p.prefix})`).join(', ')}`,
    );
  } catch (e) {
    note(`the stream: ${(e as Error).message}`, 'error');
    return;
  }
  tap((seen) => {
    if (isSteering(seen)) void onSteering(seen);
    else if (isSegment(seen.url)) onSegment(seen);
  });
  try {
    await loadScript(script);
    const video = byId<HTMLVideoElement>('video');
    const name = await startPlayer(kind, src, protocol, video);
    fill(byId('player-name'), `${name} · ${PROTOCOL_NAME[protocol]}`);
    document.body.setAttribute('data-player', name);
    document.body.setAttribute('data-protocol', protocol);
    // dash.js plays by itself (`initialize(…, true)`); a play() before it has read the MPD
    // starts playback with no steering data, and it then makes no first steering request.
    if (kind !== 'dash.js') video.play().catch(() => undefined);
  } catch (e) {
    note(`${kind}: ${(e as Error).message}`, 'error');
  }
}

setUpForm();
const chosen = params.get('player') as Kind | null;
if (chosen !== null && KINDS.includes(chosen)) void run(chosen);
