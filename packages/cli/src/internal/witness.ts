/**
 * `wai-steer log witness`: a tlog-witness (C2SP tlog-witness, tlog-cosignature). It serves
 * `POST <prefix>/add-checkpoint` (the decision of `@wai-steering/tlog`'s `decideAddCheckpoint`)
 * and `GET <prefix>/<origin hash>/checkpoint` (the latest checkpoint it cosigned per origin, with
 * its cosignature). Its state (per origin: the size, root and checkpoint it cosigned last) is a
 * JSON file replaced atomically; the check of the old size and the write of the new state are one
 * step per origin (a request waits for the one before it of the same origin), so that two
 * requests never both pass the check of one size (tlog-witness: "the witness MUST … ensure that
 * the old size … is checked and the new state persisted atomically").
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { dirname, isAbsolute, join } from 'node:path';
import { readStrictJson } from '@wai-steering/config-text';
import {
  type Cosigner,
  cosigner,
  decideAddCheckpoint,
  formatVerifierKey,
  originHash,
  parseAddCheckpoint,
  parseVerifierKey,
  SIGNATURE_TYPE,
  type VerifierKey,
  verifierKey,
  type WitnessState,
} from '@wai-steering/tlog';
import { nodeBackend } from '@wai-steering/wire/node';
import YAML from 'yaml';
import { z } from 'zod';
import { removeStaleTemporaries, writeAtomic } from './atomic.js';
import { UserError } from './errors.js';
import { readSecretKeyFile } from './keys.js';

/** The most bytes of an add-checkpoint body (63 proof lines and a checkpoint with cosignatures). */
const MAX_BODY = 64 * 1024;
/**
 * Requests of one log waiting for their turn (the one under way included): past it, `503` with
 * `Retry-After`. A log sends one checkpoint at a time; a few more are a retry racing its answer.
 */
export const MAX_PER_LOG = 8;
/**
 * Add-checkpoint requests being read or decided at once, whatever their origin: past it, `503`
 * with `Retry-After` before the body is read (memory: at most this many bodies of `MAX_BODY`).
 */
export const MAX_CONCURRENT = 64;

const schema = z
  .object({
    listen: z
      .object({
        host: z.string().default('127.0.0.1'),
        port: z.number().int().min(0).max(65535).default(8090),
      })
      .strict()
      .prefault({}),
    prefix: z
      .string()
      .regex(/^(\/[^/?#\s]+)*$/, 'expected a path prefix: empty, or /a/b without a trailing /')
      .default(''),
    key: z.string({ error: 'expected the path of the witness key (an Ed25519 JWK with "d")' }),
    name: z
      .string({ error: "expected the witness's name (its cosignatures' key name)" })
      .regex(/^[^\s+]+$/, 'expected a key name: no spaces, no +'),
    state: z.string({ error: 'expected the path of the state file' }),
    logs: z
      .array(
        z
          .object({
            origin: z.string().min(1),
            vkey: z.string(),
          })
          .strict(),
      )
      .min(1, 'expected at least one log: [{ origin, vkey }]'),
  })
  .strict();

/** A witness's configuration, read and checked. */
export interface WitnessConfig {
  readonly host: string;
  readonly port: number;
  readonly prefix: string;
  readonly name: string;
  readonly cosigner: Cosigner;
  /** Its vkey (cosignature/v1): what a log's `log.witnesses` names. */
  readonly vkey: string;
  readonly statePath: string;
  /** The log keys it trusts, by origin. */
  readonly logs: ReadonlyMap<string, readonly VerifierKey[]>;
}

/** Reads the witness's config (YAML, or JSON): paths relative to its directory. */
export function loadWitnessConfig(path: string): WitnessConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new UserError(`--config ${path}: cannot read (${(e as NodeJS.ErrnoException).code})`);
  }
  let raw: unknown;
  try {
    raw = YAML.parse(text);
  } catch (e) {
    throw new UserError(`${path}: does not parse (${(e as Error).message.split('\n')[0]})`);
  }
  const read = schema.safeParse(raw);
  if (!read.success) {
    throw new UserError(
      `${path}: ${read.error.issues.map((i) => `${i.path.join('.') || '(top)'}: ${i.message}`).join('; ')}`,
    );
  }
  const c = read.data;
  const abs = (p: string) => (isAbsolute(p) ? p : join(dirname(path), p));
  const key = readSecretKeyFile(abs(c.key), 'key');
  const logs = new Map<string, VerifierKey[]>();
  c.logs.forEach((l, i) => {
    const vkey = parseVerifierKey(l.vkey, nodeBackend);
    if (!vkey.ok) throw new UserError(`${path}: logs.${i}.vkey: ${vkey.refusal.message}`);
    if (vkey.value.type !== SIGNATURE_TYPE.ed25519) {
      throw new UserError(`${path}: logs.${i}.vkey: a log's key is of type 0x01 (Ed25519)`);
    }
    if (vkey.value.name !== l.origin) {
      throw new UserError(
        `${path}: logs.${i}.vkey: its key name is ${vkey.value.name}, not the origin ${l.origin}`,
      );
    }
    logs.set(l.origin, [...(logs.get(l.origin) ?? []), vkey.value]);
  });
  const signer = cosigner(c.name, key.secretKey, nodeBackend);
  const vkey = formatVerifierKey(
    verifierKey(
      c.name,
      SIGNATURE_TYPE.cosignatureV1,
      nodeBackend.publicKey(key.secretKey),
      nodeBackend,
    ),
  );
  return {
    host: c.listen.host,
    port: c.listen.port,
    prefix: c.prefix,
    name: c.name,
    cosigner: signer,
    vkey,
    statePath: abs(c.state),
    logs,
  };
}

/** The state file: per origin, `{"size": "<decimal>", "root": "<base64>", "checkpoint": "…"}`. */
function readState(path: string): Map<string, WitnessState> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return new Map();
    throw new UserError(`state ${path}: cannot read (${(e as NodeJS.ErrnoException).code})`);
  }
  const out = new Map<string, WitnessState>();
  try {
    const read = readStrictJson(text);
    if (!read.ok) throw new Error(read.problem);
    const o = read.value as Record<string, { size: string; root: string; checkpoint: string }>;
    for (const [origin, s] of Object.entries(o)) {
      if (!/^[0-9]{1,20}$/.test(s.size) || typeof s.checkpoint !== 'string')
        throw new Error(origin);
      const root = new Uint8Array(Buffer.from(s.root, 'base64'));
      if (root.length !== 32) throw new Error(origin);
      out.set(origin, { size: BigInt(s.size), root, checkpoint: s.checkpoint });
    }
  } catch (e) {
    throw new UserError(`state ${path}: not a witness's state (${(e as Error).message})`);
  }
  return out;
}

function stateJson(states: ReadonlyMap<string, WitnessState>): string {
  const o: Record<string, { size: string; root: string; checkpoint: string }> = {};
  for (const [origin, s] of states) {
    o[origin] = {
      size: s.size.toString(),
      root: Buffer.from(s.root).toString('base64'),
      checkpoint: s.checkpoint,
    };
  }
  return `${JSON.stringify(o, null, 2)}\n`;
}

/** A running witness. */
export interface RunningWitness {
  readonly url: string;
  readonly server: Server;
  close(): Promise<void>;
}

/** Starts the witness of `config`: its state read, its HTTP server listening. */
export async function startWitness(
  config: WitnessConfig,
  log: (line: string) => void = () => {},
): Promise<RunningWitness> {
  for (const path of removeStaleTemporaries(config.statePath)) {
    log(`removed ${path}, a temporary state file of a witness that stopped while writing it`);
  }
  const states = readState(config.statePath);
  /**
   * Per log it knows (never an origin it does not: those are answered at once, nothing kept), the
   * last add-checkpoint under way, which the next one waits for, and how many wait.
   */
  const turns = new Map<string, { last: Promise<unknown>; waiting: number }>();
  let concurrent = 0;
  /**
   * The bytes of a body's head that name its log: the header (`old N`, at most 63 proof lines
   * of 44 characters, a blank line), then the checkpoint's origin line, at most the longest
   * origin it knows and its newline.
   */
  const longest = Math.max(...[...config.logs.keys()].map((o) => Buffer.byteLength(o)));
  const headMax = 4 + 20 + 1 + 63 * 45 + 1 + longest + 1;
  /**
   * The origin a body's head names: `undefined` while more bytes are needed; `null` when its
   * origin line is longer than any origin it knows; the origin read otherwise, or the empty
   * string when the head does not read as one (the whole body is then read, and refused by
   * its parse).
   */
  const originAtHead = (head: Buffer, size: number): string | null | undefined => {
    const blank = head.indexOf('\n\n');
    if (blank < 0) return size >= headMax ? '' : undefined;
    const start = blank + 2;
    const end = head.indexOf('\n', start);
    if (end < 0) return head.length - start > longest ? null : size >= headMax ? '' : undefined;
    return end - start > longest ? null : head.toString('utf8', start, end);
  };
  const shown = (origin: string): string =>
    origin.length <= 128 ? origin : `${origin.slice(0, 128)}…`;
  const hashes = new Map<string, string>();
  for (const origin of config.logs.keys()) hashes.set(originHash(origin, nodeBackend), origin);

  const answer = (
    res: ServerResponse,
    status: number,
    type: string,
    body: string,
    headers: Record<string, string> = {},
  ): void => {
    res.writeHead(status, {
      ...headers,
      'Content-Type': type,
      'Content-Length': Buffer.byteLength(body),
    });
    res.end(body);
  };
  const busy = (res: ServerResponse, why: string): void =>
    answer(res, 503, 'text/plain; charset=utf-8', `${why}; retry later\n`, { 'Retry-After': '1' });

  async function addCheckpoint(body: Uint8Array, res: ServerResponse): Promise<void> {
    const read = parseAddCheckpoint(body);
    if (!read.ok) {
      answer(res, 400, 'text/plain; charset=utf-8', `${read.refusal.message}\n`);
      return;
    }
    const origin = read.value.parsed.origin;
    const logKeys = config.logs.get(origin);
    if (logKeys === undefined) {
      // A log it does not know: answered (404) with nothing kept for its origin.
      const decided = decideAddCheckpoint(read.value, {
        logKeys,
        state: undefined,
        cosigners: [config.cosigner],
        timestamp: BigInt(Math.floor(Date.now() / 1000)),
        backend: nodeBackend,
      });
      answer(res, decided.status, decided.contentType, decided.body);
      return;
    }
    const queue = turns.get(origin) ?? { last: Promise.resolve(), waiting: 0 };
    if (queue.waiting >= MAX_PER_LOG) {
      busy(res, `${MAX_PER_LOG} checkpoints of this log wait already`);
      return;
    }
    queue.waiting++;
    turns.set(origin, queue);
    const turn = queue.last.then(async () => {
      const decided = decideAddCheckpoint(read.value, {
        logKeys,
        state: states.get(origin),
        cosigners: [config.cosigner],
        timestamp: BigInt(Math.floor(Date.now() / 1000)),
        backend: nodeBackend,
      });
      if (decided.status === 200) {
        // Persisted before the answer: a cosignature is never given for a state not kept.
        const next = new Map(states);
        next.set(origin, decided.state);
        writeAtomic(config.statePath, stateJson(next));
        states.set(origin, decided.state);
        log(`cosigned ${origin} at size ${decided.state.size}`);
      } else if (decided.status !== 409) {
        log(`refused ${origin}: ${decided.status} ${decided.body.trim()}`);
      }
      answer(res, decided.status, decided.contentType, decided.body);
    });
    const last = turn.catch(() => {});
    queue.last = last;
    try {
      await turn;
    } finally {
      queue.waiting--;
      // Nothing waits: the log's entry goes (a log it knows, at most one entry each).
      if (queue.waiting === 0 && queue.last === last) turns.delete(origin);
    }
  }

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const done = (e: unknown): void => {
      if (!res.headersSent) answer(res, 500, 'text/plain; charset=utf-8', 'internal error\n');
      log(`internal error: ${(e as Error).message}`);
    };
    if (path === `${config.prefix}/add-checkpoint`) {
      if (req.method !== 'POST') {
        res.setHeader('Allow', 'POST');
        answer(res, 405, 'text/plain; charset=utf-8', 'POST only\n');
        return;
      }
      if (Number(req.headers['content-length'] ?? 0) > MAX_BODY) {
        res.setHeader('Connection', 'close');
        answer(res, 413, 'text/plain; charset=utf-8', `a body of more than ${MAX_BODY} bytes\n`);
        req.destroy();
        return;
      }
      if (concurrent >= MAX_CONCURRENT) {
        res.setHeader('Connection', 'close');
        busy(res, `${MAX_CONCURRENT} checkpoints are being read already`);
        req.destroy();
        return;
      }
      concurrent++;
      let released = false;
      const release = (): void => {
        if (released) return;
        released = true;
        concurrent--;
      };
      res.once('close', release);
      const chunks: Buffer[] = [];
      let size = 0;
      /** Whether the origin was read at the body's head: known, or answered 404 there. */
      let headRead = false;
      let answered = false;
      req.on('data', (c: Buffer) => {
        if (size > MAX_BODY || answered) return;
        size += c.length;
        if (size > MAX_BODY) {
          chunks.length = 0;
          res.setHeader('Connection', 'close');
          answer(res, 413, 'text/plain; charset=utf-8', `a body of more than ${MAX_BODY} bytes\n`);
          req.destroy();
          return;
        }
        chunks.push(c);
        if (!headRead) {
          const origin = originAtHead(Buffer.concat(chunks, Math.min(size, headMax)), size);
          if (origin === undefined) return;
          headRead = true;
          if (origin === '' || (origin !== null && config.logs.has(origin))) return;
          // A log it does not know: answered at once, the rest of the body not kept.
          answered = true;
          chunks.length = 0;
          if (origin === null) answer(res, 404, 'text/plain; charset=utf-8', 'unknown origin\n');
          else answer(res, 404, 'text/plain; charset=utf-8', `unknown origin ${shown(origin)}\n`);
        }
      });
      req.on('end', () => {
        if (size > MAX_BODY || answered) return;
        const body = new Uint8Array(Buffer.concat(chunks));
        chunks.length = 0;
        addCheckpoint(body, res).catch(done).finally(release);
      });
      return;
    }
    const m = /^\/([0-9a-f]{64})\/checkpoint$/.exec(path.slice(config.prefix.length));
    if (path.startsWith(config.prefix) && m !== null) {
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.setHeader('Allow', 'GET, HEAD');
        answer(res, 405, 'text/plain; charset=utf-8', 'GET only\n');
        return;
      }
      const origin = hashes.get(m[1]!);
      const state = origin === undefined ? undefined : states.get(origin);
      if (state === undefined) answer(res, 404, 'text/plain; charset=utf-8', 'no checkpoint\n');
      else answer(res, 200, 'text/plain; charset=utf-8', state.checkpoint);
      return;
    }
    answer(res, 404, 'text/plain; charset=utf-8', 'not found\n');
  });
  // A body held back does not hold its place for long: 30 s for a request, 10 s for its head.
  server.requestTimeout = 30_000;
  server.headersTimeout = 10_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) =>
      reject(new UserError(`listen ${config.host}:${config.port}: ${e.code ?? e.message}`)),
    );
    server.listen(config.port, config.host, resolve);
  });
  const port = (server.address() as { port: number }).port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  return {
    url: `http://${host}:${port}${config.prefix}`,
    server,
    close: async () => {
      await Promise.all([...turns.values()].map((t) => t.last));
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
