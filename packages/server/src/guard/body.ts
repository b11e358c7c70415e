/**
 * Reading a request's body up to a limit, for every route that takes one (`POST /records`,
 * `POST /capacity`): a `Content-Length` past the limit is refused before a byte is read, a body
 * that grows past it is cut off (the rest is not read), and one that ends early (the client went
 * away) is told apart.
 */
import type { AppRequest } from '../routes/types.js';

/** A body read, or why not. */
export type BodyRead = Uint8Array | 'too_large' | 'incomplete';

const DECIMAL = /^\d+$/;

/** The request's body, at most `limit` bytes. */
export async function readBody(request: AppRequest, limit: number): Promise<BodyRead> {
  const declared = request.headers['content-length'];
  if (typeof declared === 'string' && DECIMAL.test(declared) && Number(declared) > limit) {
    return 'too_large';
  }
  if (request.body === undefined) return new Uint8Array(0);
  try {
    return await request.body(limit);
  } catch {
    return 'incomplete';
  }
}
