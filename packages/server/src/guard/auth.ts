/**
 * Who may use a protected route (the admin route, the console's data): an `Authorization` header
 * carrying a bearer token (RFC 6750 §2.1) or basic credentials (RFC 7617), with one behaviour for
 * every route. The scheme is case-insensitive (RFC 9110 §11.1); secrets are compared in constant
 * time over their SHA-256, so that neither their content nor their length leaks through timing;
 * with basic credentials both the user and the password are compared whatever the first gives.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

/** What a protected route asks for. */
export type Credentials =
  | { readonly bearer: string }
  | { readonly basic: { readonly user: string; readonly password: string } };

type Headers = Readonly<Record<string, string | readonly string[] | undefined>>;

function sha(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/** Compares two secrets in constant time (over their SHA-256, so lengths do not leak). */
function same(given: string, expected: string): boolean {
  return timingSafeEqual(sha(given), sha(expected));
}

const BEARER = /^Bearer +(\S+) *$/i;
const BASIC = /^Basic +([A-Za-z0-9+/]+=*) *$/i;

/** Whether the request's `Authorization` carries the credentials asked for. */
export function authorised(headers: Headers, wanted: Credentials): boolean {
  const field = headers.authorization;
  // Two `Authorization` fields are no credentials.
  if (typeof field !== 'string') return false;
  if ('bearer' in wanted) {
    const m = BEARER.exec(field);
    return m !== null && same(m[1]!, wanted.bearer);
  }
  const m = BASIC.exec(field);
  if (m === null) return false;
  const decoded = new TextDecoder().decode(Buffer.from(m[1]!, 'base64'));
  const colon = decoded.indexOf(':');
  if (colon < 0) return false;
  const user = same(decoded.slice(0, colon), wanted.basic.user);
  const password = same(decoded.slice(colon + 1), wanted.basic.password);
  return user && password;
}

/** The `WWW-Authenticate` challenge of a 401 for `wanted` in `realm`. */
export function challenge(wanted: Credentials, realm: string): string {
  return `${'bearer' in wanted ? 'Bearer' : 'Basic'} realm="${realm}", charset="UTF-8"`;
}
