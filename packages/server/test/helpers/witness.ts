// A witness for the tests (C2SP tlog-witness `add-checkpoint`): a small HTTP server on
// `@wai-steering/tlog`'s witness decision, its state in memory, the check of the old size and
// the update of the state in one synchronous step (so that no two requests race).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import {
  cosigner,
  decideAddCheckpoint,
  formatVerifierKey,
  parseAddCheckpoint,
  type VerifierKey,
  type WitnessState,
} from '@wai-steering/tlog';
import { nodeBackend } from '@wai-steering/wire/node';

export interface TestWitness {
  /** The submission prefix, `http://127.0.0.1:<port>/witness`. */
  readonly url: string;
  /** Its cosignature vkey (type 0x04). */
  readonly key: VerifierKey;
  readonly vkey: string;
  /** The state per origin (the latest checkpoint cosigned). */
  readonly state: Map<string, WitnessState>;
  /** The statuses it answered, in order. */
  readonly answers: number[];
  /** `ok` answers; `hang` never answers (a slow witness); `refuse` answers 403 to everything. */
  mode: 'ok' | 'hang' | 'refuse';
  close(): Promise<void>;
}

/** A witness named `name` trusting `logKeys` for their origins. */
export async function startWitness(
  name: string,
  secret: Uint8Array,
  logKeys: readonly VerifierKey[],
): Promise<TestWitness> {
  const c = cosigner(name, secret, nodeBackend);
  const state = new Map<string, WitnessState>();
  const answers: number[] = [];
  const hanging: ServerResponse[] = [];
  let mode: TestWitness['mode'] = 'ok';

  const handle = (req: IncomingMessage, res: ServerResponse, body: Uint8Array): void => {
    const answer = (status: number, type: string, text: string) => {
      answers.push(status);
      res.writeHead(status, { 'content-type': type });
      res.end(text);
    };
    if (mode === 'hang') {
      hanging.push(res);
      return;
    }
    if (req.method !== 'POST' || req.url !== '/witness/add-checkpoint') {
      answer(404, 'text/plain', 'not found\n');
      return;
    }
    if (mode === 'refuse') {
      answer(403, 'text/plain', 'refused\n');
      return;
    }
    const read = parseAddCheckpoint(body);
    if (!read.ok) {
      answer(400, 'text/plain', `${read.refusal.message}\n`);
      return;
    }
    const origin = read.value.parsed.origin;
    const keys = logKeys.filter((k) => k.name === origin);
    // The check of the old size and the new state, in one synchronous step.
    const decided = decideAddCheckpoint(read.value, {
      logKeys: keys.length === 0 ? undefined : keys,
      state: state.get(origin),
      cosigners: [c],
      timestamp: BigInt(Math.floor(Date.now() / 1000)),
      backend: nodeBackend,
    });
    if (decided.status === 200) state.set(origin, decided.state);
    answer(decided.status, decided.contentType, decided.body);
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (d: Buffer) => chunks.push(d));
    req.on('end', () => handle(req, res, new Uint8Array(Buffer.concat(chunks))));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}/witness`,
    key: c.verifierKey,
    vkey: formatVerifierKey(c.verifierKey),
    state,
    answers,
    get mode() {
      return mode;
    },
    set mode(m) {
      mode = m;
    },
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
