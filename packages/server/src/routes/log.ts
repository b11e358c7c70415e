/**
 * The decision log under `/log/` (C2SP tlog-tiles, `docs/server.md`, *The decision log*):
 *
 * - `GET /log/checkpoint`: the latest checkpoint, with the witnesses' cosignatures;
 * - `GET /log/tile/<L>/<N>[.p/<W>]` and `GET /log/tile/entries/<N>[.p/<W>]`: tiles and entry
 *   bundles, their paths read strictly (`parseTilePath`);
 * - `GET /log/proof/<digest hex>`: the proof (tlog-proof@v1) of a decision's entry against the
 *   latest checkpoint; 404 with `Retry-After` while no checkpoint holds it.
 */
import { gzipSync } from 'node:zlib';
import { parseTilePath } from '@wai-steering/tlog';
import type { LogReader } from '../log/reader.js';
import { logCheckpoint, logPending, logProof, logPruned, logTile, notFound } from './responses.js';
import { bytesOfHex, headerValue } from './target.js';
import type { AppResponse, RouteContext } from './types.js';

/** `/log/checkpoint`. */
export async function checkpoint(reader: LogReader): Promise<AppResponse> {
  const c = await reader.checkpoint();
  return c === undefined
    ? notFound('checkpoint (the log has not signed one yet)')
    : logCheckpoint(c.text);
}

/** Whether an `Accept-Encoding` value takes gzip (a `q` of 0 refuses it). */
export function takesGzip(accept: string | undefined): boolean {
  if (accept === undefined) return false;
  for (const part of accept.toLowerCase().split(',')) {
    const [coding, ...params] = part.split(';').map((x) => x.trim());
    if (coding !== 'gzip' && coding !== 'x-gzip') continue;
    const q = params.find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  }
  return false;
}

/** `/log/tile/…`: `param` is the path after `/log/`. */
export async function tile(reader: LogReader, ctx: RouteContext): Promise<AppResponse> {
  const read = parseTilePath(ctx.param);
  if (!read.ok) return notFound('tile');
  const answer = await reader.tile(read.value);
  if (answer.kind === 'pruned') return logPruned(answer.minIndex);
  if (answer.kind === 'absent') return notFound('tile');
  // tlog-tiles: "Entry bundles SHOULD be compressed at the HTTP layer".
  if (
    read.value.level === 'entries' &&
    takesGzip(headerValue(ctx.request.headers['accept-encoding']))
  ) {
    return logTile(new Uint8Array(gzipSync(answer.bytes)), true);
  }
  return logTile(answer.bytes);
}

/** `/log/proof/<digest hex>`. */
export async function proof(reader: LogReader, ctx: RouteContext): Promise<AppResponse> {
  const answer = await reader.proof(bytesOfHex(ctx.param));
  if (answer.kind === 'pending') return logPending(answer.retryAfterS);
  if (answer.kind === 'absent') return notFound('decision');
  return logProof(answer.text);
}
