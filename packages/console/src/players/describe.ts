/**
 * What the players page reads from a content description and from the steering manifests a
 * player receives, to say which pathway each request went to: the base pathways with the URL
 * prefix their media is under (HLS: each variant's `PATHWAY-ID` and URI; DASH: each `BaseURL`
 * and its `serviceLocation`), the steering server's URI, and the clones the manifests add
 * (`URI-REPLACEMENT`: `HOST` replaces the host, `PARAMS` add query parameters).
 */

export interface PathwayPrefix {
  readonly id: string;
  /** The absolute URL the pathway's media is under (up to the last `/`). */
  readonly prefix: string;
  /** A clone's query parameters (a request carrying all of them is the clone's). */
  readonly params?: Readonly<Record<string, string>>;
}

export interface Description {
  readonly protocol: 'hls' | 'dash';
  /** The steering server's URI, absolute; null when the description names none. */
  readonly steering: string | null;
  /** The pathway the description starts on (the tag's `PATHWAY-ID`, the element's default). */
  readonly initial: string | null;
  readonly pathways: readonly PathwayPrefix[];
}

function resolve(uri: string, base: string): string | null {
  try {
    return new URL(uri, base).href;
  } catch {
    return null;
  }
}

function dirOf(url: string): string {
  const u = new URL(url);
  u.search = '';
  u.hash = '';
  return u.href.slice(0, u.href.lastIndexOf('/') + 1);
}

/** An HLS attribute list's attributes (quoted strings unquoted). */
function attributes(list: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of list.matchAll(/([A-Z0-9-]+)=("[^"]*"|[^,]*)/g)) {
    const v = m[2]!;
    out.set(m[1]!, v.startsWith('"') ? v.slice(1, -1) : v);
  }
  return out;
}

/** An HLS multivariant playlist's pathways and steering server, its URIs resolved on `url`. */
export function describeHls(text: string, url: string): Description {
  const lines = text.split(/\r?\n/);
  let steering: string | null = null;
  let initial: string | null = null;
  const pathways: PathwayPrefix[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line.startsWith('#EXT-X-CONTENT-STEERING:')) {
      const a = attributes(line.slice(line.indexOf(':') + 1));
      const server = a.get('SERVER-URI');
      steering = server === undefined ? null : resolve(server, url);
      initial = a.get('PATHWAY-ID') ?? null;
    } else if (line.startsWith('#EXT-X-STREAM-INF:')) {
      const a = attributes(line.slice(line.indexOf(':') + 1));
      const id = a.get('PATHWAY-ID') ?? '.';
      let next = i + 1;
      while (next < lines.length && (lines[next]!.trim() === '' || lines[next]!.startsWith('#')))
        next++;
      const uri = next < lines.length ? resolve(lines[next]!.trim(), url) : null;
      if (uri !== null && !pathways.some((p) => p.id === id && p.prefix === dirOf(uri))) {
        pathways.push({ id, prefix: dirOf(uri) });
      }
    }
  }
  return { protocol: 'hls', steering, initial, pathways };
}

function xmlText(el: Element): string {
  return (el.textContent ?? '').trim();
}

/** A DASH MPD's pathways (BaseURLs with a serviceLocation) and steering server. */
export function describeDash(doc: Document, url: string): Description {
  const mpd = doc.documentElement;
  const pathways: PathwayPrefix[] = [];
  // The MPD's own BaseURLs (its children), where the service locations are.
  for (const el of Array.from(mpd.children)) {
    if (el.localName !== 'BaseURL') continue;
    const id = el.getAttribute('serviceLocation');
    const prefix = resolve(xmlText(el), url);
    if (id !== null && prefix !== null) pathways.push({ id, prefix: dirOf(prefix) });
  }
  const cs = Array.from(mpd.children).find((el) => el.localName === 'ContentSteering');
  const steering = cs === undefined ? null : resolve(xmlText(cs), url);
  const initial = cs?.getAttribute('defaultServiceLocation') ?? null;
  return { protocol: 'dash', steering, initial, pathways };
}

/** A clone of a steering manifest (`PATHWAY-CLONES`), as far as this page reads it. */
export interface Clone {
  readonly 'BASE-ID'?: unknown;
  readonly ID?: unknown;
  readonly 'URI-REPLACEMENT'?: { readonly HOST?: unknown; readonly PARAMS?: unknown };
}

/**
 * The clones' prefixes: the base's with `HOST` as its host (the port kept, as content steering
 * says), and `PARAMS` as the parameters its requests carry. A clone whose base is unknown, or
 * whose `HOST` is not a host, is left out.
 */
export function clonePrefixes(
  base: readonly PathwayPrefix[],
  clones: readonly Clone[],
): PathwayPrefix[] {
  const out: PathwayPrefix[] = [];
  for (const c of clones) {
    if (typeof c.ID !== 'string' || typeof c['BASE-ID'] !== 'string') continue;
    const of = base.find((p) => p.id === c['BASE-ID']);
    if (of === undefined) continue;
    const r = c['URI-REPLACEMENT'] ?? {};
    const u = new URL(of.prefix);
    if (typeof r.HOST === 'string' && r.HOST !== '') {
      const before = u.hostname;
      u.hostname = r.HOST;
      if (u.hostname === before && r.HOST !== before) continue;
    }
    const params =
      typeof r.PARAMS === 'object' && r.PARAMS !== null
        ? Object.fromEntries(
            Object.entries(r.PARAMS as Record<string, unknown>).filter(
              (e): e is [string, string] => typeof e[1] === 'string',
            ),
          )
        : {};
    out.push({
      id: c.ID,
      prefix: u.href,
      ...(Object.keys(params).length > 0 ? { params } : {}),
    });
  }
  return out;
}

/**
 * The pathway of a request's URL: of the prefixes it is under, the longest; a clone with
 * parameters only when the URL carries them all (then before a base of the same prefix).
 */
export function pathwayOf(url: string, prefixes: readonly PathwayPrefix[]): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  const bare = `${parsed.origin}${parsed.pathname}`;
  let best: PathwayPrefix | null = null;
  let bestScore = -1;
  for (const p of prefixes) {
    if (!bare.startsWith(p.prefix)) continue;
    const params = p.params ?? {};
    const keys = Object.keys(params);
    if (!keys.every((k) => parsed.searchParams.get(k) === params[k])) continue;
    const score = p.prefix.length * 2 + (keys.length > 0 ? 1 : 0);
    if (score > bestScore) {
      best = p;
      bestScore = score;
    }
  }
  return best?.id ?? null;
}

/** Whether a URL's path is a media segment's (not a playlist, an MPD or an init segment). */
export function isSegment(url: string): boolean {
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    return false;
  }
  if (/\/init[-_.][^/]*$/.test(path)) return false;
  return /\.(ts|m4s|mp4|m4v|m4a|aac|cmfv|cmfa|webm|mp3)$/i.test(path);
}
