// The rows of the behaviour matrix (docs/players.md): every answer a steering server can give,
// each scripted (./scripted.ts) in the same shape. The player starts on `cdn-b` (the content
// description's pathway), is answered `before` (manifests putting cdn-b first, TTL `TTL` s) until
// the `event` answer, whose effect the row measures, and then manifests that put `target` first.

import type { Answer, ManifestSpec } from './scripted.js';

/** The query parameter a PARAMS clone adds, which marks its segments. */
export const CLONE_PARAM = 'wai-clone';

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
export const CEILING_SEGMENTS = 16;
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
    // From the TTL of the other rows: shaka stops steering for good when a first TTL runs out
    // before its start has made its ABR manager (docs/players.md), which 2 s did on a busy machine.
    title: 'TTL 4 s, then TTL 10 s (longer)',
    script: () => [ok(before), ok({ ...before, ttl: 10 }), ok(toA)],
    event: 1,
    target: 'cdn-a',
    ttlAfter: 10,
    ceiling: CEILING_SEGMENTS + 8,
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
