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
 * A request logged after its period was taken is counted in the next period not yet taken. The
 * log is followed across a rename (logrotate with `USR1`) and a truncation in place (logrotate's
 * `copytruncate`: the lines written since the last read are read from the copy). A period whose
 * lines the source may have lost, or that it could not read, is stated as unknown (a
 * `SourceError`), never short.
 */
import { closeSync, fstatSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { readStrictJson } from '@wai-steering/config-text';
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
  /** The clock nginx's `msec` is read against, µs since the epoch (default the system clock). */
  readonly clock?: () => bigint;
}

/** A log file being read: its descriptor, inode, where reading is, and a line begun. */
interface Followed {
  readonly fd: number;
  readonly ino: number;
  offset: number;
  partial: string;
  decoder: InstanceType<typeof TextDecoder>;
  /**
   * The last bytes read (up to {@link TAIL}): still at `offset` in the file unless it was
   * truncated, and at `offset` in a copy of it (logrotate's `copytruncate`).
   */
  tail: Buffer;
}

/** How long a rotated-away log is still read, ms. */
const RETIRED_MS = 10_000;
/** The bytes kept before the read position to recognise the file there. */
const TAIL = 256;
/** The periods signed without traffic kept, whose late lines are not moved to a later one. */
const UNSTATED_KEPT = 1024;

interface Bucket {
  bytes: Map<number, bigint>;
  us: bigint[];
  clients: Set<string>;
  /** Set when the period was taken with its traffic unknown (lines lost, a read failing). */
  unknown?: string;
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

function codeOf(e: unknown): string {
  return (e as NodeJS.ErrnoException).code ?? String((e as Error).message ?? e);
}

/** The nginx log source; see the module's comment for what it states. */
export class NginxLogSource implements TrafficSource {
  readonly describe: string;
  private file: Followed | undefined;
  private retired: (Followed & { until: number })[] = [];
  private from = 0n;
  private period = 1n;
  /** Periods before this are taken: a late line goes to this one. */
  private open = 0n;
  /** The lines of the periods not yet taken, by period start. */
  private readonly buckets = new Map<bigint, Bucket>();
  /** Periods taken whose record is not yet durable: given again by `take` until committed. */
  private readonly taken = new Map<bigint, Bucket>();
  /** Periods some of whose lines were lost (a truncation with no copy found), and why. */
  private readonly lost = new Map<bigint, string>();
  /** Periods signed without traffic: their late lines are dropped rather than moved on. */
  private readonly unstated = new Set<bigint>();
  /** Why the log cannot be read now, until a read succeeds. */
  private readError: string | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly now: () => bigint;
  /** Lines that matched no route, or did not read. */
  unmatched = 0;
  unreadable = 0;
  late = 0;
  /** Lines of a period signed without traffic, read after it was signed. */
  dropped = 0;
  /** Truncations in place seen, and those followed through a copy of the file. */
  truncations = 0;
  copies = 0;

  constructor(private readonly o: NginxLogOptions) {
    this.describe = `nginx ${o.path}`;
    this.now = o.clock ?? (() => BigInt(Date.now()) * 1000n);
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
    this.timer = setInterval(() => this.poll(), this.o.pollMs ?? 250);
    this.timer.unref();
  }

  private reopen(mustExist: boolean): boolean {
    let ino: number;
    let fd: number;
    try {
      ino = statSync(this.o.path).ino;
      fd = openSync(this.o.path, 'r');
    } catch (e) {
      if (!mustExist && codeOf(e) === 'ENOENT') return false;
      throw new SourceError(`cannot read ${this.o.path}: ${codeOf(e)}`);
    }
    if (this.file !== undefined) {
      // A worker may still write to the old file until it has reopened the log: it is read
      // on for a while before it is closed.
      this.retired.push({ ...this.file, until: Date.now() + RETIRED_MS });
    }
    this.file = {
      fd,
      ino,
      offset: 0,
      partial: '',
      decoder: new TextDecoder(),
      tail: Buffer.alloc(0),
    };
    return true;
  }

  /**
   * Reads what the log gained; follows a rotation (a new file at the path, or a truncation in
   * place). A log that cannot be read is remembered (`take` then says so) until it can.
   */
  poll(): void {
    try {
      this.pollOnce();
      this.readError = undefined;
    } catch (e) {
      this.readError =
        e instanceof SourceError ? e.message : `cannot read ${this.o.path}: ${codeOf(e)}`;
    }
  }

  private pollOnce(): void {
    for (const old of this.retired) this.drain(old);
    const now = Date.now();
    for (const old of this.retired.filter((r) => r.until < now)) closeSync(old.fd);
    this.retired = this.retired.filter((r) => r.until >= now);
    if (this.file === undefined && !this.reopen(false)) return;
    const file = this.file!;
    if (this.truncated(file)) this.followTruncation(file);
    this.drain(file);
    let st: { ino: number } | undefined;
    try {
      st = statSync(this.o.path);
    } catch {
      st = undefined; // rotated away, the new file not yet created
    }
    if (st !== undefined && st.ino !== file.ino && this.reopen(false)) this.drain(this.file!);
  }

  /** Whether the file no longer holds what was read up to `offset`: it was truncated in place. */
  private truncated(file: Followed): boolean {
    if (file.offset === 0) return false;
    const size = fstatSync(file.fd).size;
    if (size < file.offset) return true;
    // Truncated and written past where reading was since (a busy log): the bytes before the
    // read position are no longer the ones read.
    const at = Buffer.alloc(file.tail.length);
    const n = readSync(file.fd, at, 0, at.length, file.offset - file.tail.length);
    return n !== at.length || !at.equals(file.tail);
  }

  /**
   * A truncation in place (logrotate's `copytruncate`: the file copied, then emptied). What was
   * written after the last read and before the copy is read from the copy (a file beside the
   * log whose name begins with the log's, and which holds the bytes last read at the read
   * position); without one, the lines of the periods still open may be lost, and those periods
   * are stated as unknown rather than short. Then the file is read again from its start.
   */
  private followTruncation(file: Followed): void {
    this.truncations++;
    const copy = this.findCopy(file);
    if (copy !== undefined) {
      this.copies++;
      try {
        const f: Followed = { ...file, fd: copy.fd, ino: copy.ino };
        this.drain(f);
        if (f.partial.trim() !== '') this.unreadable++;
      } finally {
        closeSync(copy.fd);
      }
    } else {
      const why = `lines may have been lost: ${this.o.path} was truncated in place and no copy of it holding the lines read last was found beside it (with logrotate's copytruncate, keep the copy uncompressed for a while: delaycompress)`;
      const now = this.now();
      if (now >= this.from) {
        const last = this.from + ((now - this.from) / this.period) * this.period;
        for (let p = this.open; p <= last && this.lost.size < 1024; p += this.period) {
          this.lost.set(p, why);
        }
      }
    }
    file.offset = 0;
    file.partial = '';
    file.decoder = new TextDecoder();
    file.tail = Buffer.alloc(0);
  }

  private findCopy(file: Followed): { fd: number; ino: number } | undefined {
    const dir = dirname(this.o.path);
    const base = basename(this.o.path);
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return undefined;
    }
    const candidates: { path: string; ino: number; mtime: number }[] = [];
    for (const n of names) {
      if (n === base || !n.startsWith(base) || /\.(gz|bz2|xz|zst|lz4|lzo|z|zip)$/i.test(n))
        continue;
      try {
        const st = statSync(join(dir, n));
        if (st.isFile() && st.size >= file.offset && st.ino !== file.ino) {
          candidates.push({ path: join(dir, n), ino: st.ino, mtime: st.mtimeMs });
        }
      } catch {
        // gone meanwhile
      }
    }
    candidates.sort((a, b) => b.mtime - a.mtime);
    for (const c of candidates) {
      let fd: number;
      try {
        fd = openSync(c.path, 'r');
      } catch {
        continue;
      }
      const at = Buffer.alloc(file.tail.length);
      const n = readSync(fd, at, 0, at.length, file.offset - file.tail.length);
      if (n === at.length && at.equals(file.tail)) return { fd, ino: c.ino };
      closeSync(fd);
    }
    return undefined;
  }

  private drain(file: Followed): void {
    const size = fstatSync(file.fd).size;
    const chunk = Buffer.alloc(64 * 1024);
    while (file.offset < size) {
      const n = readSync(file.fd, chunk, 0, chunk.length, file.offset);
      if (n === 0) break;
      file.offset += n;
      const got = chunk.subarray(0, n);
      file.tail =
        n >= TAIL
          ? Buffer.from(got.subarray(n - TAIL))
          : Buffer.from(Buffer.concat([file.tail, got]).subarray(-TAIL));
      const text = file.partial + file.decoder.decode(got, { stream: true });
      const lines = text.split('\n');
      file.partial = lines.pop() ?? '';
      for (const line of lines) this.line(line);
    }
  }

  private line(text: string): void {
    if (text.trim() === '') return;
    // Strictly: a line naming a field twice states two things, and is not counted.
    const read = readStrictJson(text);
    if (!read.ok || read.value === null || typeof read.value !== 'object') {
      this.unreadable++;
      return;
    }
    const l = read.value as LogLine;
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
    if (this.unstated.has(start)) {
      this.dropped++;
      return;
    }
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

  /**
   * The period's traffic, from what the log holds now; lines logged later go to the next
   * period. Given again until {@link commit}. A `SourceError` when the log cannot be read or
   * lines of the period were lost.
   */
  async take(span: Span): Promise<Traffic | undefined> {
    this.poll();
    if (span.end > this.open) this.open = span.end;
    let b = this.taken.get(span.start);
    if (b === undefined) {
      b = this.buckets.get(span.start) ?? newBucket();
      this.buckets.delete(span.start);
      this.taken.set(span.start, b);
    }
    const unknown = this.readError ?? this.lost.get(span.start);
    if (unknown !== undefined) {
      b.unknown = unknown;
      throw new SourceError(unknown);
    }
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
    return { sessions: b.clients.size, subscriber_us: [...b.us], tracks };
  }

  commit(span: Span): void {
    const b = this.taken.get(span.start);
    this.taken.delete(span.start);
    this.lost.delete(span.start);
    if (b?.unknown !== undefined) {
      this.unstated.add(span.start);
      if (this.unstated.size > UNSTATED_KEPT) {
        this.unstated.delete(this.unstated.values().next().value!);
      }
    }
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
