/**
 * The steering server's application: every route, as a function from a request (method, target,
 * headers, body) to a response, so that the HTTP adapter (`http.ts`) stays thin and the handlers
 * can be fuzzed without sockets.
 */
import { hash, randomBytes } from 'node:crypto';
import {
  type Evidence,
  EvidenceCache,
  inWindow,
  MemoryEvidenceStore,
  windowAt,
} from '@wai-steering/evidence';
import { STEERING_MEDIA_TYPE, writeManifest } from '@wai-steering/manifest';
import { assembleDecision, type Protocol, REASON_NAME, readReport } from '@wai-steering/rule';
import { openHopRecord, type RoomContext } from '@wai-steering/verifier';
import {
  bytesEqual,
  type CryptoBackend,
  type DecisionFields,
  type KeyLog,
  type Policy,
  type Room,
  readHopRecord,
  signDecision,
  toHex,
} from '@wai-steering/wire';
import { CommitQueue } from './commit.js';
import { ConsoleActivity } from './console/activity.js';
import { type ConsoleOptions, ConsoleRoutes } from './console/routes.js';
import { DecisionEncoder } from './encode.js';
import { Metrics } from './metrics.js';
import { SessionTable } from './sessions.js';
import { joinDecision } from './store/compact.js';
import type { SteeringStore, StoredDecision } from './store/store.js';

/** A request as the application reads it. */
export interface AppRequest {
  readonly method: string;
  /** The request target as received (origin-form, or absolute-form). */
  readonly target: string;
  /** Header fields, names in lowercase (as `node:http` gives them). */
  readonly headers: Readonly<Record<string, string | readonly string[] | undefined>>;
  /**
   * The body, read on demand up to `limit` bytes: `'too_large'` past it. Absent for a request
   * that has none.
   */
  readonly body?: (limit: number) => Promise<Uint8Array | 'too_large'>;
}

/** A response. */
export interface AppResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | Uint8Array;
  /** Close the connection after answering (a body left unread). */
  readonly close?: boolean;
}

/** What the server serves under: the room, the policy and the steering key, read and checked. */
export interface AppMaterials {
  readonly room: RoomContext;
  readonly roomBytes: Uint8Array;
  readonly keyLogBytes: Uint8Array | null;
  readonly policy: Policy;
  readonly policyBytes: Uint8Array;
  readonly policyDigest: Uint8Array;
  /** The steering key: its public key signs each decision (§3.5). */
  readonly publicKey: Uint8Array;
  readonly secretKey: Uint8Array;
}

/** What the application needs: its materials, the store and its limits. */
export interface AppOptions extends AppMaterials {
  readonly store: SteeringStore;
  readonly backend: CryptoBackend;
  /** Grace after a decision's TTL during which its session still counts (ms). */
  readonly graceMs: number;
  readonly maxSessions: number;
  readonly maxQueue: number;
  readonly maxRecordBytes: number;
  readonly maxTargetBytes: number;
  /** The room clock: µs since the epoch. */
  readonly clock?: () => bigint;
  /** `fast` (default): the server's encoder (`encode.ts`); `wire`: wire's `signDecision`. */
  readonly encoder?: 'fast' | 'wire';
  /** The operator console (`/status`, `/console/`); off when absent. */
  readonly console?: ConsoleOptions;
}

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
const HEX64 = /^[0-9a-fA-F]{64}$/;
const SESSION = /^[0-9a-f]{32}$/;

function json(status: number, value: unknown, extra: Record<string, string> = {}): AppResponse {
  return {
    status,
    headers: { 'content-type': JSON_TYPE, 'cache-control': 'no-store', ...CORS, ...extra },
    body: `${JSON.stringify(value)}\n`,
  };
}

function problem(status: number, error: string, message: string, extra?: Record<string, string>) {
  return json(status, { error, message }, extra);
}

/** The bytes of a hexadecimal string already checked to be one (either case). */
function bytesOf(hex: string): Uint8Array {
  const b = Buffer.from(hex, 'hex');
  return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
}

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

/** §4: DASH when any `_DASH_` parameter is present (its name percent-decoded), HLS otherwise. */
export function protocolOf(query: string): Protocol {
  if (query.indexOf('_DASH_') < 0 && query.indexOf('%') < 0) return 'hls';
  for (const part of query.split('&')) {
    const eq = part.indexOf('=');
    let name = eq < 0 ? part : part.slice(0, eq);
    if (name.includes('%')) {
      try {
        name = decodeURIComponent(name);
      } catch {
        continue; // §4.1: a part with a bad `%` is skipped
      }
    }
    if (name.startsWith('_DASH_')) return 'dash';
  }
  return 'hls';
}

/** The `wai_session` parameter, when it is exactly 32 lowercase hexadecimal digits (§8.1). */
export function sessionOf(query: string): Uint8Array | undefined {
  if (query.indexOf('wai_session=') < 0) return undefined;
  for (const part of query.split('&')) {
    if (!part.startsWith('wai_session=')) continue;
    // §4.1: of the parts with a name the server reads, the first is read.
    const value = part.slice('wai_session='.length);
    return SESSION.test(value) ? bytesOf(value) : undefined;
  }
  return undefined;
}

function headerValue(v: string | readonly string[] | undefined): string | undefined {
  if (v === undefined) return undefined;
  return typeof v === 'string' ? v : v.join(', ');
}

/** The room clock from the process's monotonic clock, calibrated once against the wall clock. */
export function monotonicClock(): () => bigint {
  const baseUs = BigInt(Date.now()) * 1000n;
  const baseHr = process.hrtime.bigint();
  return () => baseUs + (process.hrtime.bigint() - baseHr) / 1000n;
}

/** The steering application. */
export class SteeringApp {
  readonly metrics = new Metrics();
  readonly sessions: SessionTable;
  readonly queue: CommitQueue;
  readonly evidence: MemoryEvidenceStore;
  /** What the console shows over time (recent decisions, ingest tallies, 15 minutes of samples). */
  readonly activity: ConsoleActivity;
  private readonly consoleRoutes: ConsoleRoutes | undefined;
  private readonly cache: EvidenceCache;
  private readonly clock: () => bigint;
  private readonly pathwayIds: string[];
  private readonly steeringPaths: Set<string>;
  private readonly decisionPrefix: string;
  private readonly policyHex: string;
  private readonly roomHex: string;
  private room: RoomContext;
  private keyLogBytes: Uint8Array | null;
  private readonly graceS: number;
  private readonly encoder: DecisionEncoder | undefined;
  private closed = false;

  constructor(private readonly o: AppOptions) {
    const policy = o.policy;
    this.room = o.room;
    this.keyLogBytes = o.keyLogBytes;
    this.clock = o.clock ?? monotonicClock();
    this.pathwayIds = policy.pathways.map((p) => p.id);
    this.steeringPaths = new Set([pathOfUri(policy.server_uri), pathOfUri(policy.reload_uri)]);
    this.decisionPrefix = pathOfUri(policy.decision_uri);
    this.policyHex = toHex(o.policyDigest);
    this.roomHex = toHex(o.room.roomId);
    this.graceS = Math.ceil(o.graceMs / 1000);
    this.sessions = new SessionTable(policy.pathways.length, {
      maxSessions: o.maxSessions,
      base: Number(this.clock() / 1000n),
    });
    this.evidence = new MemoryEvidenceStore();
    this.cache = new EvidenceCache(policy, this.evidence);
    this.activity = new ConsoleActivity(policy.pathways.length);
    this.consoleRoutes = o.console === undefined ? undefined : this.makeConsole(o.console);
    this.queue = new CommitQueue(o.store, {
      maxPending: o.maxQueue,
      onCommit: (size, ok, error) => {
        this.metrics.commits.inc({ outcome: ok ? 'ok' : 'error' });
        this.metrics.batch.observe(size);
        if (!ok) console.error('wai-steering: a group commit failed:', error);
      },
    });
    // The blobs a verifier fetches by digest, kept so that they outlive a configuration change.
    o.store.putBlob('policy', o.policyDigest, o.policyBytes);
    o.store.putBlob('room', o.room.roomId, o.roomBytes);
    this.encoder =
      o.encoder === 'wire'
        ? undefined
        : new DecisionEncoder(o.room.roomId, o.publicKey, o.policyDigest, o.secretKey);
    this.loadEvidence();
    this.registerGauges();
    this.selfCheck();
  }

  /** The policy served. */
  get policy(): Policy {
    return this.o.policy;
  }

  /** The current key log head, `undefined` when the room names no origin. */
  get keyLog(): KeyLog | undefined {
    return this.room.keyLog;
  }

  /** The room descriptor. */
  get roomDescriptor(): Room {
    return this.room.room;
  }

  /** Replaces the room context (a new key log head); the head then served is `keyLogBytes`. */
  setRoom(room: RoomContext, keyLogBytes: Uint8Array | null): void {
    this.room = room;
    this.keyLogBytes = keyLogBytes;
  }

  /** The console's routes over this application's state (read only). */
  private makeConsole(options: ConsoleOptions): ConsoleRoutes {
    const app = this;
    return new ConsoleRoutes(options, {
      get policy() {
        return app.o.policy;
      },
      policyDigest: this.o.policyDigest,
      get room() {
        return app.room;
      },
      now: () => this.clock(),
      evidenceAt: (t) => this.cache.at(t),
      get loads() {
        return app.sessions.loads;
      },
      get sessions() {
        return app.sessions.size;
      },
      records: this.evidence,
      activity: this.activity,
      decisionsByReason: () =>
        Object.fromEntries(
          Object.entries(REASON_NAME).map(([code, name]) => [
            name,
            this.metrics.decisions.get({ reason: name ?? code }),
          ]),
        ),
    });
  }

  /** Closes the console's current second (one sample a second, `startServer`'s timer). */
  sampleActivity(): void {
    this.activity.sample(Number(this.clock() / 1_000_000n), this.sessions.loads);
  }

  /** The records of the store a current or later window may name, into the evidence index. */
  private loadEvidence(): void {
    const { a } = windowAt(this.o.policy, this.clock());
    for (const r of this.o.store.recordsEndingAfter(a)) {
      const read = readHopRecord(r.bytes);
      if (read.ok) this.evidence.add(read.value, r.digest);
    }
  }

  private registerGauges(): void {
    const m = this.metrics;
    m.gauge(
      'wai_steering_load',
      'Sessions steered first to each pathway (§6), the loads decisions state.',
      () => this.pathwayIds.map((id, i) => [{ pathway: id }, this.sessions.loads[i]!] as const),
    );
    m.gauge('wai_steering_sessions', 'Live sessions held by the session table.', () => [
      [{}, this.sessions.size],
    ]);
    m.gauge(
      'wai_steering_commit_queue',
      'Decisions and records awaiting their group commit.',
      () => [[{}, this.queue.pending]],
    );
    m.gauge('wai_steering_evidence_records', 'Records held in the evidence index.', () => [
      [{}, this.evidence.size],
    ]);
    m.gauge(
      'wai_steering_pathway_status',
      'Each pathway status (§5.3: 0 figure, 1 unmetered, 2 mixed, 3 stale, 4 empty) in the current window.',
      () => {
        const ev = this.cache.at(this.clock());
        return this.pathwayIds.map((id, i) => [{ pathway: id }, ev.pathways[i]!.status] as const);
      },
    );
  }

  /** Drops sessions past their TTL and grace, and evidence no later window can name. */
  sweep(budget: number): void {
    const now = this.clock();
    this.sessions.sweep(budget, this.sessions.secondsAt(Number(now / 1000n)));
    const { a } = windowAt(this.o.policy, now);
    this.evidence.prune(a);
  }

  /**
   * Prunes the store by age (§8.4: a record named by a kept decision stays). A record that a
   * current or later window may still name (one that ends after the current window's start) is
   * kept whatever its age, so that the evidence index never names a record the store dropped.
   */
  prune(recordsMs: number, decisionsMs: number): ReturnType<SteeringStore['prune']> {
    const now = this.clock();
    const { a } = windowAt(this.o.policy, now);
    let recordsBefore = now - BigInt(recordsMs) * 1000n;
    if (recordsBefore > a) recordsBefore = a;
    return this.o.store.prune(recordsBefore, now - BigInt(decisionsMs) * 1000n);
  }

  /** Stops accepting work and writes what is queued. */
  close(): void {
    this.closed = true;
    this.queue.close();
  }

  /**
   * §7.3: the signed decision. The server's encoder writes the evidence of a window once
   * (`encode.ts`); with `encoder: 'wire'`, wire's `signDecision` writes every field every time.
   * Both give the same bytes (Ed25519 is deterministic), which the start-up check compares.
   */
  private sign(fields: DecisionFields, evidence: Evidence): StoredDecision {
    if (this.encoder !== undefined) return this.encoder.encodeCompact(fields, evidence);
    const bytes = signDecision(fields, this.o.secretKey, { backend: this.o.backend, check: false });
    // §7.3: the digest, SHA-256 over the bytes before `sig`.
    return { bytes, digest: hash('sha256', bytes.subarray(0, bytes.length - 64), 'buffer') };
  }

  /** Signs one decision over the current evidence both ways and requires the same bytes. */
  private selfCheck(): void {
    if (this.encoder === undefined) return;
    const o = this.o;
    const t = this.clock();
    const evidence = this.cache.at(t);
    const fields = assembleDecision({
      roomId: this.room.roomId,
      signer: o.publicKey,
      policy: o.policy,
      policyDigest: o.policyDigest,
      t,
      session: new Uint8Array(16),
      protocol: 'hls',
      report: { pathway: null, throughput: null, buffer: null },
      evidence,
      loads: Array.from(this.sessions.loads),
      backend: o.backend,
    });
    const fast = this.encoder.encode(fields, evidence).bytes;
    const compact = this.encoder.encodeCompact(fields, evidence);
    const wire = signDecision(fields, o.secretKey, { backend: o.backend, check: true });
    if (
      !bytesEqual(fast, wire) ||
      !bytesEqual(joinDecision(compact.set, compact.tail), wire) ||
      !bytesEqual(compact.digest, hash('sha256', wire.subarray(0, wire.length - 64), 'buffer'))
    ) {
      throw new Error("the server's decision encoder disagrees with wire's signDecision");
    }
  }

  /** Answers one request; never throws for any input. */
  async handle(req: AppRequest): Promise<AppResponse> {
    const started = process.hrtime.bigint();
    let route = 'other';
    let res: AppResponse;
    try {
      [route, res] = await this.route(req);
    } catch (e) {
      console.error('wai-steering: internal error:', e);
      route = route === 'other' ? 'error' : route;
      res = problem(500, 'internal', 'the server failed to answer this request');
    }
    const status = res.status;
    this.metrics.requests.incKey(`${route} ${status}`, () => ({ route, code: String(status) }));
    if (route === 'steering' && res.status === 200) {
      this.metrics.latency.observe(Number(process.hrtime.bigint() - started) / 1e9);
    }
    return res;
  }

  private async route(req: AppRequest): Promise<[string, AppResponse]> {
    const target = req.target;
    if (target.length > this.o.maxTargetBytes) {
      return [
        'other',
        problem(414, 'uri_too_long', `the request target is over ${this.o.maxTargetBytes} bytes`),
      ];
    }
    const split = splitTarget(target);
    if (split === undefined) {
      return [
        'other',
        problem(400, 'bad_target', 'the request target is neither origin-form nor absolute-form'),
      ];
    }
    const { path, query } = split;
    const method = req.method.toUpperCase();
    if (method === 'OPTIONS') return ['cors', this.preflight()];
    const read = method === 'GET' || method === 'HEAD';

    if (this.steeringPaths.has(path)) {
      if (method !== 'GET') return ['steering', this.notAllowed('GET, OPTIONS')];
      return ['steering', await this.steer(target, query, req)];
    }
    if (path.startsWith(this.decisionPrefix)) {
      const hex = path.slice(this.decisionPrefix.length);
      if (HEX64.test(hex)) {
        if (!read) return ['decision', this.notAllowed('GET, HEAD, OPTIONS')];
        const bytes = this.o.store.getDecision(bytesOf(hex));
        return [
          'decision',
          bytes === undefined ? this.notFound('decision') : this.immutable(bytes),
        ];
      }
    }
    if (path === '/records') {
      if (method !== 'POST') return ['ingest', this.notAllowed('POST, OPTIONS')];
      return ['ingest', await this.ingest(req)];
    }
    if (path.startsWith('/records/')) {
      const hex = path.slice('/records/'.length);
      if (!HEX64.test(hex)) return ['record', this.notFound('record')];
      if (!read) return ['record', this.notAllowed('GET, HEAD, OPTIONS')];
      const bytes = this.o.store.getRecord(bytesOf(hex));
      return ['record', bytes === undefined ? this.notFound('record') : this.immutable(bytes)];
    }
    if (path.startsWith('/policies/')) {
      const hex = path.slice('/policies/'.length);
      if (!HEX64.test(hex)) return ['policy', this.notFound('policy')];
      if (!read) return ['policy', this.notAllowed('GET, HEAD, OPTIONS')];
      const bytes =
        hex.toLowerCase() === this.policyHex
          ? this.o.policyBytes
          : this.o.store.getBlob('policy', bytesOf(hex));
      return ['policy', bytes === undefined ? this.notFound('policy') : this.immutable(bytes)];
    }
    const rooms = /^\/rooms\/([0-9a-fA-F]{64})\/(descriptor|key-log)$/.exec(path);
    if (rooms !== null) {
      const kind = rooms[2]!;
      const route = kind === 'descriptor' ? 'room' : 'key_log';
      if (!read) return [route, this.notAllowed('GET, HEAD, OPTIONS')];
      if (rooms[1]!.toLowerCase() !== this.roomHex) return [route, this.notFound('room')];
      if (kind === 'descriptor') return [route, this.immutable(this.o.roomBytes)];
      if (this.keyLogBytes === null || this.room.keyLog === undefined) {
        return [route, problem(404, 'not_found', 'the room names no origin, so it has no key log')];
      }
      // The current head: it changes when the origin appends to its log.
      return [
        route,
        {
          status: 200,
          headers: { 'content-type': OCTETS, 'cache-control': 'no-cache', ...CORS },
          body: this.keyLogBytes,
        },
      ];
    }
    if (path === '/healthz') {
      if (!read) return ['healthz', this.notAllowed('GET, HEAD')];
      return ['healthz', json(this.closed ? 503 : 200, { status: this.closed ? 'closing' : 'ok' })];
    }
    if (path === '/metrics') {
      if (!read) return ['metrics', this.notAllowed('GET, HEAD')];
      return [
        'metrics',
        {
          status: 200,
          headers: {
            'content-type': 'text/plain; version=0.0.4; charset=utf-8',
            'cache-control': 'no-store',
          },
          body: this.metrics.render(),
        },
      ];
    }
    const consoleAnswer = this.consoleRoutes?.handle(method, path, query, req.headers);
    if (consoleAnswer !== undefined) return [consoleAnswer.route, consoleAnswer.response];
    return ['other', this.notFound('resource')];
  }

  private preflight(): AppResponse {
    return {
      status: 204,
      headers: {
        ...CORS,
        'access-control-allow-methods': 'GET, HEAD, POST, OPTIONS',
        'access-control-allow-headers':
          'content-type, cmcd-request, cmcd-object, cmcd-session, cmcd-status',
        'access-control-max-age': '86400',
      },
      body: '',
    };
  }

  private notFound(what: string): AppResponse {
    return problem(404, 'not_found', `no such ${what}`);
  }

  private notAllowed(allow: string): AppResponse {
    return problem(405, 'method_not_allowed', `allowed: ${allow}`, { allow });
  }

  private immutable(bytes: Uint8Array): AppResponse {
    return {
      status: 200,
      headers: { 'content-type': OCTETS, 'cache-control': IMMUTABLE, ...CORS },
      body: bytes,
    };
  }

  private overloaded(why: string): AppResponse {
    this.metrics.overload.inc();
    return problem(503, 'overloaded', why, { 'retry-after': '1' });
  }

  /**
   * A steering request (§4, §6, §7, §8.1): the report, the session, the decision over the current
   * evidence and loads, signed, archived (durable), then the manifest.
   */
  private async steer(target: string, query: string, req: AppRequest): Promise<AppResponse> {
    if (this.closed) return this.overloaded('the server is closing');
    if (this.queue.full) return this.overloaded('too many decisions await their commit');
    const o = this.o;
    const policy = o.policy;
    const protocol = protocolOf(query);
    const given = sessionOf(query);
    const session = given ?? new Uint8Array(randomBytes(16));
    const cmcd = headerValue(req.headers['cmcd-request']);
    const report = readReport(
      { protocol, target, headers: cmcd === undefined ? {} : { 'cmcd-request': cmcd } },
      this.pathwayIds,
    );
    const t = this.clock();
    const now = this.sessions.secondsAt(Number(t / 1000n));
    // §6: the loads as they stand, this session's own count included (§6.1: c's load already
    // counts the client); a session past its TTL and grace no longer counts.
    const previous = this.sessions.current(session, now);
    if (previous < 0 && this.sessions.size >= o.maxSessions) {
      return this.overloaded('the session table is full');
    }
    const evidence = this.cache.at(t);
    const fields = assembleDecision({
      roomId: this.room.roomId,
      signer: o.publicKey,
      policy,
      policyDigest: o.policyDigest,
      t,
      session,
      protocol,
      report,
      evidence,
      loads: Array.from(this.sessions.loads),
      backend: o.backend,
    });
    const signed = this.sign(fields, evidence);
    const digest = signed.digest;
    // After deciding, the session counts in its new first pathway until TTL + grace.
    this.sessions.place(session, fields.priority[0]!, now + fields.ttl + this.graceS);
    try {
      await this.queue.addDecision(signed);
    } catch {
      return this.overloaded('the decision could not be archived');
    }
    const reason = fields.reason;
    this.activity.noteDecision({ digest, t, session, first: fields.priority[0]!, reason });
    this.metrics.decisions.incKey(String(reason), () => ({
      reason: REASON_NAME[reason] ?? String(reason),
    }));
    const manifest = writeManifest(
      policy,
      { session, ttl: fields.ttl, priority: fields.priority },
      digest,
    );
    return { status: 200, headers: STEERING_HEADERS, body: manifest };
  }

  /** `POST /records`: a hop's `WMH1`, verified (companion C5), archived, then evidence. */
  private async ingest(req: AppRequest): Promise<AppResponse> {
    if (this.closed) return this.overloaded('the server is closing');
    const limit = this.o.maxRecordBytes;
    const declared = headerValue(req.headers['content-length']);
    if (declared !== undefined && /^\d+$/.test(declared) && Number(declared) > limit) {
      return { ...problem(413, 'too_large', `a record is at most ${limit} bytes`), close: true };
    }
    let body: Uint8Array | 'too_large';
    try {
      body = req.body === undefined ? new Uint8Array(0) : await req.body(limit);
    } catch {
      // The client went away mid-body.
      return { ...problem(400, 'incomplete_body', 'the request body ended early'), close: true };
    }
    if (body === 'too_large') {
      return { ...problem(413, 'too_large', `a record is at most ${limit} bytes`), close: true };
    }
    if (this.queue.full) return this.overloaded('too many writes await their commit');
    const opened = openHopRecord(this.room, body, { backend: this.o.backend });
    if (!opened.ok) {
      const { reason, where } = opened.refusal;
      this.metrics.refused.inc({ reason });
      const read = readHopRecord(body);
      this.activity.noteIngest(read.ok ? toHex(read.value.hop) : '', { refused: reason });
      return json(400, { reason, where: { ...where } });
    }
    const { record, digest } = opened.value;
    let inserted: boolean;
    try {
      inserted = await this.queue.addRecord({
        digest,
        bytes: body,
        hop: record.hop,
        start: record.start,
        end: record.end,
      });
    } catch {
      return this.overloaded('the record could not be archived');
    }
    // Durable now: the next window move may name it. A record of the window in use arrived
    // after its lag L (or before the server's first request of the window, after a restart):
    // the evidence is selected again, so that the window's later decisions name it.
    if (
      this.evidence.add(record, digest) &&
      inWindow(record, windowAt(this.o.policy, this.clock()))
    ) {
      this.cache.invalidate();
    }
    this.metrics.ingested.inc({ result: inserted ? 'new' : 'duplicate' });
    this.activity.noteIngest(toHex(record.hop), inserted ? 'new' : 'duplicate');
    return json(inserted ? 201 : 200, { digest: toHex(digest) });
  }
}
