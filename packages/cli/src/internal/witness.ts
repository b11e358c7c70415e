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
import { writeAtomic } from './atomic.js';
import { UserError } from './errors.js';
import { readSecretKeyFile } from './keys.js';

/** The most bytes of an add-checkpoint body (63 proof lines and a checkpoint with cosignatures). */
const MAX_BODY = 64 * 1024;

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
  const states = readState(config.statePath);
  /** Per origin, the add-checkpoint under way: the next one waits for it. */
  const turns = new Map<string, Promise<unknown>>();
  const hashes = new Map<string, string>();
  for (const origin of config.logs.keys()) hashes.set(originHash(origin, nodeBackend), origin);

  const answer = (res: ServerResponse, status: number, type: string, body: string): void => {
    res.writeHead(status, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
  };

  async function addCheckpoint(body: Uint8Array, res: ServerResponse): Promise<void> {
    const read = parseAddCheckpoint(body);
    if (!read.ok) {
      answer(res, 400, 'text/plain; charset=utf-8', `${read.refusal.message}\n`);
      return;
    }
    const origin = read.value.parsed.origin;
    const before = turns.get(origin) ?? Promise.resolve();
    const turn = before.then(async () => {
      const decided = decideAddCheckpoint(read.value, {
        logKeys: config.logs.get(origin),
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
    turns.set(
      origin,
      turn.catch(() => {}),
    );
    await turn;
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
      const chunks: Buffer[] = [];
      let size = 0;
      req.on('data', (c: Buffer) => {
        size += c.length;
        if (size > MAX_BODY) {
          answer(res, 413, 'text/plain; charset=utf-8', `a body of more than ${MAX_BODY} bytes\n`);
          req.destroy();
          return;
        }
        chunks.push(c);
      });
      req.on('end', () => {
        if (size > MAX_BODY) return;
        addCheckpoint(new Uint8Array(Buffer.concat(chunks)), res).catch(done);
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
      await Promise.all([...turns.values()]);
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
