/** The request target (RFC 9112 §3.2) and the paths of the policy's URIs, as the routes read them. */

/**
 * The path of a URI of the policy (§3.1 `server_uri`, `reload_uri`, `decision_uri`): what follows
 * its authority, before any `?` or `#`; `/` when it has none. A relative reference is its own
 * path.
 */
export function pathOfUri(uri: string): string {
  let rest = uri;
  const scheme = /^[A-Za-z][A-Za-z0-9+.-]*:/.exec(rest);
  if (scheme !== null) rest = rest.slice(scheme[0].length);
  if (rest.startsWith('//')) {
    const slash = rest.indexOf('/', 2);
    const q = rest.search(/[?#]/);
    if (slash < 0 || (q >= 0 && q < slash)) return '/';
    rest = rest.slice(slash);
  }
  const end = rest.search(/[?#]/);
  const path = end < 0 ? rest : rest.slice(0, end);
  return path === '' ? '/' : path;
}

/** The path and query of a request target (origin-form or absolute-form); `undefined` if neither. */
export function splitTarget(target: string): { path: string; query: string } | undefined {
  let t = target;
  if (!t.startsWith('/')) {
    // absolute-form (RFC 9112 §3.2.2): scheme "://" authority path-abempty [ "?" query ]
    const m = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*/.exec(t);
    if (m === null) return undefined;
    t = t.slice(m[0].length);
    if (t === '' || t.startsWith('?')) t = `/${t}`;
    else if (!t.startsWith('/')) return undefined;
  }
  const hash = t.indexOf('#');
  if (hash >= 0) t = t.slice(0, hash);
  const q = t.indexOf('?');
  return q < 0 ? { path: t, query: '' } : { path: t.slice(0, q), query: t.slice(q + 1) };
}

const HEX64 = /^[0-9a-fA-F]{64}$/;

/** Whether a path segment is a digest: 64 hexadecimal digits, either case. */
export function isDigestHex(s: string): boolean {
  return HEX64.test(s);
}

/** The bytes of a hexadecimal string already checked to be one (either case). */
export function bytesOfHex(hex: string): Uint8Array {
  const b = Buffer.from(hex, 'hex');
  return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
}

/** A header's value, its field lines combined with `, `. */
export function headerValue(v: string | readonly string[] | undefined): string | undefined {
  if (v === undefined) return undefined;
  return typeof v === 'string' ? v : v.join(', ');
}
