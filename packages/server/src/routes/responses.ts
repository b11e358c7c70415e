/**
 * Every response of the server, built here: statuses, headers (content type, caching, CORS) and
 * bodies. A route decides which; this file decides how it looks on the wire.
 */
import { STEERING_MEDIA_TYPE } from '@wai-steering/manifest';
import { toHex } from '@wai-steering/wire';
import { METRICS_MEDIA_TYPE } from '../metrics.js';
import type { AppResponse } from './types.js';

const JSON_TYPE = 'application/json; charset=utf-8';
const OCTETS = 'application/octet-stream';
const IMMUTABLE = 'public, max-age=31536000, immutable';
const CORS = { 'access-control-allow-origin': '*' } as const;
/** §8.1: the manifest's media type; no caching; CORS, since players fetch it cross-origin. */
const STEERING_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': STEERING_MEDIA_TYPE,
  'cache-control': 'no-store',
  ...CORS,
});

/** A JSON body, not cached, with CORS. */
export function json(
  status: number,
  value: unknown,
  extra: Record<string, string> = {},
): AppResponse {
  return {
    status,
    headers: { 'content-type': JSON_TYPE, 'cache-control': 'no-store', ...CORS, ...extra },
    body: `${JSON.stringify(value)}\n`,
  };
}

/** An error: `{"error": <code>, "message": <text>}`. */
export function problem(
  status: number,
  error: string,
  message: string,
  extra?: Record<string, string>,
): AppResponse {
  return json(status, { error, message }, extra);
}

/** 404: `no such <what>`. */
export function notFound(what: string): AppResponse {
  return problem(404, 'not_found', `no such ${what}`);
}

/** 404 of a key log: the room names no origin. */
export function noKeyLog(): AppResponse {
  return problem(404, 'not_found', 'the room names no origin, so it has no key log');
}

/** 405 with `Allow`. */
export function notAllowed(allow: string): AppResponse {
  return problem(405, 'method_not_allowed', `allowed: ${allow}`, { allow });
}

/** 414: the target is over the limit. */
export function uriTooLong(max: number): AppResponse {
  return problem(414, 'uri_too_long', `the request target is over ${max} bytes`);
}

/** 400: the target is neither origin-form nor absolute-form. */
export function badTarget(): AppResponse {
  return problem(400, 'bad_target', 'the request target is neither origin-form nor absolute-form');
}

/** 500: a failure of the server itself (never for bad input). */
export function internal(): AppResponse {
  return problem(500, 'internal', 'the server failed to answer this request');
}

/**
 * `Retry-After`, readable by a player's script: it is not a CORS-safelisted response header, so
 * without `Access-Control-Expose-Headers` a cross-origin player reads none (dash.js then reads
 * its TTL as NaN and never asks again; video.js asks again at once).
 */
function retryAfter(seconds: number): Record<string, string> {
  return {
    'retry-after': String(seconds),
    'access-control-expose-headers': 'Retry-After',
  };
}

/** `overloaded` with `Retry-After`: the engine declined the work for now (see {@link BackOff}). */
export function overloaded(why: string, status: BackOff = 503): AppResponse {
  return problem(status, 'overloaded', `${why}; retry in 1 s`, retryAfter(1));
}

/** 413, closing the connection (the rest of the body is not read). */
export function tooLarge(limit: number, what = 'a record'): AppResponse {
  return { ...problem(413, 'too_large', `${what} is at most ${limit} bytes`), close: true };
}

/** 400, closing the connection: the client went away mid-body. */
export function incompleteBody(): AppResponse {
  return { ...problem(400, 'incomplete_body', 'the request body ended early'), close: true };
}

/** A record refused: companion C7's reason and where, and a sentence for people. */
export function refused(
  reason: string,
  where: Readonly<Record<string, unknown>>,
  message?: string,
): AppResponse {
  const said = SENTENCES[reason] ?? message;
  return json(400, {
    reason,
    where,
    message: said === undefined || said === '' ? `the record is refused: ${reason}` : said,
  });
}

/** The refusals of a hop's operator, in words (the others carry the reader's own message). */
const SENTENCES: Readonly<Record<string, string>> = {
  hop_not_authorised:
    "the room's key log does not let this hop sign it: its entry needs live/hop, and energy/<class> for the class it states",
  hop_revoked: "the room's key log revokes this hop",
  wrong_room: 'the record is of another room than the one this server steers',
  bad_signature: "the record's signature does not verify with its hop key",
  bad_key: "the record's hop key is not a valid Ed25519 key",
};

/**
 * A record stored: 201 when new, 200 when held already, with its digest; `used: false` and why
 * when no decision will name it.
 */
export function stored(digest: Uint8Array, inserted: boolean, unused?: string): AppResponse {
  const body: Record<string, unknown> = { digest: toHex(digest) };
  if (unused !== undefined) {
    body.used = false;
    body.why = unused;
  }
  return json(inserted ? 201 : 200, body);
}

/** A capacity report taken (201) or ignored as no newer than the one held (200). */
export function capacityTaken(
  taken: boolean,
  report: { readonly pathway: number; readonly hop: string; readonly gas: number },
  rotated: Uint8Array | undefined,
): AppResponse {
  const body: Record<string, unknown> = taken
    ? { taken: true, hop: report.hop, gas: report.gas }
    : { taken: false, why: 'no newer than the report held for this hop' };
  if (rotated !== undefined) body.policy = toHex(rotated);
  return json(taken ? 201 : 200, body);
}

/** A capacity report refused: a server reason (`docs/live-policy.md`) and a sentence. */
export function capacityRefused(reason: string, message: string): AppResponse {
  return json(400, { reason, message });
}

/** 404: the configuration takes no capacity reports. */
export function capacityOff(): AppResponse {
  return problem(404, 'not_found', "this server's configuration takes no capacity reports (live)");
}

/** 401 with its challenge (`guard/auth.ts`). */
export function unauthorised(challenge: string, message: string): AppResponse {
  return problem(401, 'unauthorised', message, { 'www-authenticate': challenge });
}

/** §8.1: the steering manifest. */
export function manifest(body: string): AppResponse {
  return { status: 200, headers: STEERING_HEADERS, body };
}

/** Bytes served by digest: they never change, so they are cached for good. */
export function immutable(bytes: Uint8Array): AppResponse {
  return {
    status: 200,
    headers: { 'content-type': OCTETS, 'cache-control': IMMUTABLE, ...CORS },
    body: bytes,
  };
}

/** Bytes that may change (the key log head, when the origin appends): revalidated. */
export function current(bytes: Uint8Array): AppResponse {
  return {
    status: 200,
    headers: { 'content-type': OCTETS, 'cache-control': 'no-cache', ...CORS },
    body: bytes,
  };
}

/**
 * The decision log's checkpoint (tlog-tiles: `text/plain; charset=utf-8`, not cached beyond a
 * few seconds).
 */
export function logCheckpoint(text: string): AppResponse {
  return {
    status: 200,
    headers: {
      'content-type': 'text/plain; charset=utf-8',
      'cache-control': 'public, max-age=1',
      ...CORS,
    },
    body: text,
  };
}

/**
 * A tile or an entry bundle of the decision log (tlog-tiles: immutable, long-cached); a bundle
 * gzipped when the client takes it (`content-encoding: gzip`).
 */
export function logTile(bytes: Uint8Array, gzipped = false): AppResponse {
  return {
    status: 200,
    headers: {
      'content-type': OCTETS,
      'cache-control': IMMUTABLE,
      ...(gzipped ? { 'content-encoding': 'gzip', vary: 'accept-encoding' } : {}),
      ...CORS,
    },
    body: bytes,
  };
}

/** 404 of a tile below the log's minimum index (tlog-tiles, *Pruning*). */
export function logPruned(minIndex: bigint): AppResponse {
  return problem(
    404,
    'pruned',
    `the decision log is pruned below index ${minIndex}: this tile's entries are gone`,
  );
}

/** An entry's proof, `c2sp.org/tlog-proof@v1` (against the latest checkpoint: revalidated). */
export function logProof(text: string): AppResponse {
  return {
    status: 200,
    headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-cache', ...CORS },
    body: text,
  };
}

/** 404 with `Retry-After`: a decision no checkpoint holds yet. */
export function logPending(retryAfterS: number): AppResponse {
  return problem(
    404,
    'not_logged_yet',
    'the decision is not in a checkpoint of the decision log yet',
    { 'retry-after': String(retryAfterS) },
  );
}

/**
 * `/healthz`: 200 `ok`, 503 `closing`, 503 `starting` (the session table being rebuilt: no
 * decision yet), 503 `degraded` with its causes, or 200 `damaged` with its cause when the store
 * holds damaged rows and nothing else is wrong (`health.ts`).
 */
export function health(
  closing: boolean,
  causes: readonly { readonly cause: string }[] = [],
  starting = false,
  worker?: number,
): AppResponse {
  const of = worker === undefined ? {} : { worker };
  if (closing) return json(503, { status: 'closing', ...of });
  if (starting) return json(503, { status: 'starting', ...of });
  if (causes.some((c) => c.cause !== 'store_damaged')) {
    return json(503, { status: 'degraded', causes, ...of });
  }
  if (causes.length > 0) return json(200, { status: 'damaged', causes, ...of });
  return json(200, { status: 'ok', ...of });
}

/**
 * 500 `store_damaged`: the store keeps a row under this digest that does not rebuild it (altered
 * inside the database). Not a 404: the server did sign something under it, and says it cannot
 * serve it, rather than that it never did.
 */
export function storeDamaged(what: string): AppResponse {
  return problem(
    500,
    'store_damaged',
    `the store keeps a damaged ${what} row under this digest: it cannot be served (the operator is told)`,
  );
}

/**
 * The status that makes a player come back later rather than stop steering, by the protocol of
 * its request (docs/players.md, the behaviour matrix): an HLS client is answered 503, after which
 * hls.js asks again (its loader's 1 s retry, then the TTL), since a 429 ends hls.js's steering;
 * any other is answered 429, which dash.js and video.js honour by waiting for `Retry-After` and
 * shaka by its own backoff, while a 503 on a session's first request ends dash.js's steering.
 * Records and reports (hop agents, sites) are answered 503: every agent retries it.
 */
export type BackOff = 429 | 503;

/**
 * `over_budget` with `Retry-After` for one client past its budget (`guard/budget.ts`), retried
 * once the budget holds a token again.
 */
export function overBudget(
  over: { readonly why: string; readonly waitS: number },
  status: BackOff = 503,
): AppResponse {
  return problem(
    status,
    'over_budget',
    `${over.why}; retry in ${over.waitS} s`,
    retryAfter(over.waitS),
  );
}

/**
 * `store_unavailable` with `Retry-After` while the store cannot keep what would be served
 * (§8.4), or read what was: 10 s when its file is gone (until an operator acts: a player polls
 * gently meanwhile), 5 s when a write or a read failed.
 */
export function storeUnavailable(
  u: { readonly cause: 'file' | 'commit' | 'query'; readonly why: string },
  status: BackOff = 503,
): AppResponse {
  const seconds = u.cause === 'file' ? 10 : 5;
  return problem(
    status,
    'store_unavailable',
    `${u.why}; retry in ${seconds} s`,
    retryAfter(seconds),
  );
}

/** 400: a query that does not read. */
export function badQuery(message: string): AppResponse {
  return problem(400, 'bad_query', message);
}

/**
 * A record outside the records' horizon (`guard/horizon.ts`): 422 `outside_horizon`, or 409
 * `too_many_records` (a server refusal, not a companion C7 code).
 */
export function outsideHorizon(error: string, message: string): AppResponse {
  return json(error === 'outside_horizon' ? 422 : 409, { error, message });
}

/** `/metrics`: Prometheus text. */
export function metricsText(body: string): AppResponse {
  return {
    status: 200,
    headers: { 'content-type': METRICS_MEDIA_TYPE, 'cache-control': 'no-store' },
    body,
  };
}

/** CORS preflight (any path). */
export function preflight(): AppResponse {
  return {
    status: 204,
    headers: {
      ...CORS,
      'access-control-allow-methods': 'GET, HEAD, POST, OPTIONS',
      'access-control-allow-headers':
        'content-type, authorization, cmcd-request, cmcd-object, cmcd-session, cmcd-status',
      'access-control-max-age': '86400',
    },
    body: '',
  };
}
