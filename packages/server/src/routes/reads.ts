/**
 * The reads by digest a verifier makes (§9.1, `docs/server.md`): a decision (§8.4), a per-hop
 * record, a policy, the room's descriptor and its key log head.
 */
import type { StoredRead } from '../engine/types.js';
import {
  current,
  immutable,
  noKeyLog,
  notFound,
  storeDamaged,
  storeUnavailable,
} from './responses.js';
import { bytesOfHex } from './target.js';
import type { AppResponse, RouteContext } from './types.js';

function served(result: StoredRead, what: string): AppResponse {
  switch (result.kind) {
    case 'found':
      return immutable(result.bytes);
    case 'absent':
      return notFound(what);
    case 'store_damaged':
      return storeDamaged(result.what);
    case 'store_unavailable':
      return storeUnavailable(result);
  }
}

/** The policy's `decision_uri` then a digest: the decision's exact bytes. */
export async function decision(ctx: RouteContext): Promise<AppResponse> {
  return served(await ctx.engine.decision(bytesOfHex(ctx.param)), 'decision');
}

/** `/records/<digest>`. */
export async function record(ctx: RouteContext): Promise<AppResponse> {
  return served(await ctx.engine.record(bytesOfHex(ctx.param)), 'record');
}

/** `/policies/<digest>`. */
export async function policy(ctx: RouteContext): Promise<AppResponse> {
  return served(await ctx.engine.policyOf(bytesOfHex(ctx.param)), 'policy');
}

/** `/rooms/<room id>/descriptor`. */
export function roomDescriptor(ctx: RouteContext): AppResponse {
  return served(ctx.engine.roomDescriptorOf(bytesOfHex(ctx.param)), 'room');
}

/** `/rooms/<room id>/key-log`: the current head, which changes when the origin appends. */
export function keyLog(ctx: RouteContext): AppResponse {
  const result = ctx.engine.keyLogHeadOf(bytesOfHex(ctx.param));
  if (result.kind === 'no_key_log') return noKeyLog();
  return result.kind === 'found' ? current(result.bytes) : notFound('room');
}
