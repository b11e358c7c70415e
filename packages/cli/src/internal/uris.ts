/**
 * `serve`: do the policy's URIs (§3.1 `server_uri`, `reload_uri`, `decision_uri`) reach this
 * server? Players ask `server_uri` and `reload_uri`, and verifiers fetch decisions under
 * `decision_uri`: a server listening elsewhere answers none of them. Each URI is compared with
 * the server's public URL when the config gives one (a proxy or load balancer in front), with
 * its listen address otherwise.
 */

/** The policy fields compared. */
export interface PolicyUris {
  readonly server_uri: string;
  readonly reload_uri: string;
  readonly decision_uri: string;
}

const WILDCARD = new Set(['', '0.0.0.0', '::', '[::]']);

function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h);
}

function isIpLiteral(host: string): boolean {
  return /^\d+\.\d+\.\d+\.\d+$/.test(host) || host.includes(':') || host.startsWith('[');
}

function portOf(url: URL): number {
  if (url.port !== '') return Number(url.port);
  return url.protocol === 'https:' ? 443 : 80;
}

/**
 * Each URI of the policy that does not reach the server, as a message naming it and what it
 * should be; none when all do. `listen` is the config's address (port 0: any free port, not
 * compared); `publicUrl` the config's `public_url`, when given.
 */
export function uriMismatches(
  policy: PolicyUris,
  listen: { readonly host: string; readonly port: number },
  publicUrl?: string | null,
): string[] {
  const out: string[] = [];
  const pub = publicUrl === undefined || publicUrl === null ? undefined : new URL(publicUrl);
  for (const field of ['server_uri', 'reload_uri', 'decision_uri'] as const) {
    const text = policy[field];
    if (!URL.canParse(text)) {
      out.push(`the policy's ${field} ${text} is not a URL`);
      continue;
    }
    const uri = new URL(text);
    if (pub !== undefined) {
      const prefix = pub.pathname.endsWith('/') ? pub.pathname : `${pub.pathname}/`;
      if (
        uri.origin !== pub.origin ||
        !(`${uri.pathname}/`.startsWith(prefix) || pub.pathname === '/')
      ) {
        out.push(`the policy's ${field} ${text} is not under public_url ${publicUrl}`);
      }
      continue;
    }
    const where = `${listen.host}:${listen.port}`;
    if (uri.protocol !== 'http:') {
      out.push(
        `the policy's ${field} ${text} is ${uri.protocol.slice(0, -1)}, but the server listens on http://${where} (set public_url to the address a proxy serves it at)`,
      );
      continue;
    }
    if (listen.port !== 0 && portOf(uri) !== listen.port) {
      out.push(
        `the policy's ${field} ${text} is port ${portOf(uri)}, but the server listens on ${where}`,
      );
      continue;
    }
    const host = uri.hostname;
    if (WILDCARD.has(listen.host)) continue;
    const sameHost =
      host.toLowerCase() === listen.host.toLowerCase() ||
      (isLoopback(host) && isLoopback(listen.host)) ||
      !(isIpLiteral(host) || isLoopback(host)) ||
      !(isIpLiteral(listen.host) || isLoopback(listen.host));
    if (!sameHost) {
      out.push(`the policy's ${field} ${text} is host ${host}, but the server listens on ${where}`);
    }
  }
  return out;
}
