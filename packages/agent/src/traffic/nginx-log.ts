/**
 * nginx's access log in the JSON `log_format` this package ships (`nginx/wai-steering-log.conf`),
 * followed as it grows and across rotation (a rename and a new file, or a truncation), each
 * request placed in the period of its `msec` (the time nginx logged it, when the response was
 * sent) and mapped to a track and a tier by the first route whose pattern matches its
 * `request_uri`. It states, for a period:
 * - `tracks`: for each route's track, the `bytes_sent` (headers and body, what went on the
 *   wire) of every request of the route, direction out, exactly as nginx logged them;
 * - `subscriber_us[tier]`: for each successful (2xx) request of a route with a tier, the
 *   route's segment duration when it states one, else the request's `request_time` (µs);
 * - `sessions`: the distinct clients (`remote_addr` and `http_user_agent`) among the requests.
 * A request logged after its period was cut is counted in the next period not yet cut.
 */
import { closeSync, fstatSync, openSync, readSync, statSync } from 'node:fs';
import { TRACK_DIRECTION, type TrackEntry } from '@wai-steering/wire';
import { floorScaled, parseDecimal } from '../internal/decimal.js';
import { SourceError, type Span, type Traffic } from '../types.js';
import type { TrafficSource } from './source.js';

/** A route: requests whose URI matches `pattern` are of `track`, at `tier`. */
export interface Route {
  /** A regular expression on `request_uri`; a named group `tier` gives the tier (0 to 7). */
  readonly pattern: RegExp;
  readonly track: number;
  /** C5.1 `kind`: 1 media, 2 other. */
  readonly kind: 1 | 2;
  /** A fixed tier (when the pattern has no `tier` group). */
  readonly tier?: number;
  /** The media duration of one segment of this route, µs (for `subscriber_us`). */
  readonly segmentUs?: bigint;
}

/** Options of {@link nginxLogSource}. */
export interface NginxLogOptions {
  /** The access log written with the shipped `log_format`. */
  readonly path: string;
  readonly routes: readonly Route[];
  /** How often the log is read between periods, ms (default 250). */
  readonly pollMs?: number;
}

/** A log file being read: its descriptor, inode, where reading is, and a line begun. */
interface Followed {
  readonly fd: number;
  readonly ino: number;
  offset: number;
  partial: string;
  readonly decoder: InstanceType<typeof TextDecoder>;
}

/** How long a rotated-away log is still read, ms. */
const RETIRED_MS = 10_000;

interface Bucket {
  bytes: Map<number, bigint>;
  us: bigint[];
  clients: Set<string>;
}

function newBucket(): Bucket {
  return { bytes: new Map(), us: new Array<bigint>(8).fill(0n), clients: new Set() };
}

/** A log line's fields, as the shipped format writes them. */
interface LogLine {
  readonly msec: string;
  readonly request_uri: string;
  readonly status: number | string;
  readonly bytes_sent: number | string;
  readonly request_time: string | number;
  readonly remote_addr?: string;
  readonly http_user_agent?: string;
}

/** The nginx log source; see the module's comment for what it states. */
export class NginxLogSource implements TrafficSource {
  readonly describe: string;
  private file: Followed | undefined;
  private retired: (Followed & { until: number })[] = [];
  private from = 0n;
  private period = 1n;
  /** Periods before this are cut: a late line goes to this one. */
  private open = 0n;
  private readonly buckets = new Map<bigint, Bucket>();
  private timer: NodeJS.Timeout | undefined;
  /** Lines that matched no route, or did not read. */
  unmatched = 0;
  unreadable = 0;
  late = 0;

  constructor(private readonly o: NginxLogOptions) {
    this.describe = `nginx ${o.path}`;
    const tracks = new Map<number, number>();
    for (const r of o.routes) {
      const k = tracks.get(r.track);
      if (k !== undefined && k !== r.kind) {
        throw new SourceError(`track ${r.track} is given two kinds by its routes`);
      }
      tracks.set(r.track, r.kind);
    }
  }

  async start(from: bigint, period: bigint): Promise<void> {
    this.from = from;
    this.period = period;
    this.open = from;
    this.reopen(true);
    this.poll();
    this.timer = setInterval(() => {
      try {
        this.poll();
      } catch {
        // An unreadable log is reported when a period is taken.
      }
    }, this.o.pollMs ?? 250);
    this.timer.unref();
  }

  private reopen(mustExist: boolean): boolean {
    let ino: number;
    try {
      ino = statSync(this.o.path).ino;
    } catch (e) {
      if (!mustExist) return false;
      throw new SourceError(
        `cannot read ${this.o.path}: ${(e as NodeJS.ErrnoException).code ?? e}`,
      );
    }
    if (this.file !== undefined) {
      // A worker may still write to the old file until it has reopened the log: it is read
      // on for a while before it is closed.
      this.retired.push({ ...this.file, until: Date.now() + RETIRED_MS });
    }
    this.file = {
      fd: openSync(this.o.path, 'r'),
      ino,
      offset: 0,
      partial: '',
      decoder: new TextDecoder(),
    };
    return true;
  }

  /** Reads what the log gained; follows a rotation (a new file at the path, or a truncation). */
  poll(): void {
    for (const old of this.retired) this.drain(old);
    const now = Date.now();
    for (const old of this.retired.filter((r) => r.until < now)) closeSync(old.fd);
    this.retired = this.retired.filter((r) => r.until >= now);
    if (this.file === undefined && !this.reopen(false)) return;
    const file = this.file!;
    this.drain(file);
    let st: { ino: number; size: number } | undefined;
    try {
      st = statSync(this.o.path);
    } catch {
      st = undefined; // rotated away, the new file not yet created
    }
    if (st !== undefined && st.ino !== file.ino) {
      this.reopen(false);
      this.drain(this.file!);
    } else if (st !== undefined && st.size < file.offset) {
      // copytruncate: the file was emptied in place.
      file.offset = 0;
      file.partial = '';
      this.drain(file);
    }
  }

  private drain(file: Followed): void {
    const size = fstatSync(file.fd).size;
    const chunk = Buffer.alloc(64 * 1024);
    while (file.offset < size) {
      const n = readSync(file.fd, chunk, 0, chunk.length, file.offset);
      if (n === 0) break;
      file.offset += n;
      const text = file.partial + file.decoder.decode(chunk.subarray(0, n), { stream: true });
      const lines = text.split('\n');
      file.partial = lines.pop() ?? '';
      for (const line of lines) this.line(line);
    }
  }

  private line(text: string): void {
    if (text.trim() === '') return;
    let l: LogLine;
    try {
      l = JSON.parse(text) as LogLine;
    } catch {
      this.unreadable++;
      return;
    }
    const msec = parseDecimal(String(l.msec ?? ''));
    const sent = parseDecimal(String(l.bytes_sent ?? ''));
    if (typeof msec === 'string' || typeof sent === 'string' || typeof l.request_uri !== 'string') {
      this.unreadable++;
      return;
    }
    const at = floorScaled(msec, 6);
    if (at < this.from) return;
    const route = this.o.routes.find((r) => r.pattern.test(l.request_uri));
    if (route === undefined) {
      this.unmatched++;
      return;
    }
    let start = this.from + ((at - this.from) / this.period) * this.period;
    if (start < this.open) {
      this.late++;
      start = this.open;
    }
    let b = this.buckets.get(start);
    if (b === undefined) {
      b = newBucket();
      this.buckets.set(start, b);
    }
    b.bytes.set(route.track, (b.bytes.get(route.track) ?? 0n) + floorScaled(sent, 0));
    b.clients.add(`${l.remote_addr ?? ''} ${l.http_user_agent ?? ''}`);
    const status = Number(l.status);
    const group = route.pattern.exec(l.request_uri)?.groups?.tier;
    const tier = group !== undefined ? Number(group) : route.tier;
    if (status >= 200 && status < 300 && tier !== undefined && tier >= 0 && tier < 8) {
      let us = route.segmentUs;
      if (us === undefined) {
        const t = parseDecimal(String(l.request_time ?? '0'));
        us = typeof t === 'string' ? 0n : floorScaled(t, 6);
      }
      b.us[tier] = b.us[tier]! + us;
    }
  }

  async take(span: Span): Promise<Traffic | undefined> {
    this.poll();
    const b = this.buckets.get(span.start) ?? newBucket();
    this.buckets.delete(span.start);
    for (const k of this.buckets.keys()) {
      // A later bucket keeps its lines; an earlier one (late lines) joins this period's next.
      if (k < span.start) this.buckets.delete(k);
    }
    if (span.end > this.open) this.open = span.end;
    const kinds = new Map<number, number>();
    for (const r of this.o.routes) kinds.set(r.track, r.kind);
    const tracks: TrackEntry[] = [...kinds.entries()]
      .sort((x, y) => x[0] - y[0])
      .map(([track, kind]) => ({
        track,
        kind,
        direction: TRACK_DIRECTION.out,
        bytes: b.bytes.get(track) ?? 0n,
      }));
    return { sessions: b.clients.size, subscriber_us: b.us, tracks };
  }

  async close(): Promise<void> {
    if (this.timer !== undefined) clearInterval(this.timer);
    for (const f of [this.file, ...this.retired]) if (f !== undefined) closeSync(f.fd);
    this.file = undefined;
    this.retired = [];
  }
}

/** An nginx log source (see {@link NginxLogSource}). */
export function nginxLogSource(o: NginxLogOptions): NginxLogSource {
  return new NginxLogSource(o);
}
