// `wai-steer log witness` with a steering server that sends it every new checkpoint: the server
// serves its checkpoints with the witness's cosignature; the witness refuses what tlog-witness
// says it must (409 with the size it holds, 422 for an inconsistent checkpoint, 403, 404, 400),
// and its state survives a restart.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig, startServer } from '@wai-steering/server';
import { setupDemo } from '@wai-steering/server/testkit';
import {
  ed25519Signer,
  emptyLogState,
  encodeEntry,
  formatAddCheckpoint,
  formatVerifierKey,
  integrate,
  originHash,
  SIGNATURE_TYPE,
  signCheckpoint,
  verifierKey,
} from '@wai-steering/tlog';
import { nodeBackend } from '@wai-steering/wire/node';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../src/cli.js';
import { cli, expectUserError, freePort, tempDir } from './helpers.js';

const closers: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const c of closers.reverse()) await c();
});

async function until(what: string, ok: () => Promise<boolean>, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Runs `wai-steer log witness` in-process until its stop is called. */
async function runWitness(config: string, cwd: string) {
  let err = '';
  let stop: (() => Promise<void>) | undefined;
  const exited = main(['log', 'witness', '--config', config], {
    stdout: { write: () => true },
    stderr: {
      write: (c: string | Uint8Array) => {
        err += typeof c === 'string' ? c : new TextDecoder().decode(c);
        return true;
      },
    },
    cwd,
    onStop: (s) => {
      stop = s;
    },
  });
  await until('the witness listening', async () => / at (http:\S+) /.test(err));
  const url = / at (http:\S+) /.exec(err)![1]!;
  return {
    url,
    err: () => err,
    stop: async () => {
      await stop!();
      return exited;
    },
  };
}

function jwkSecret(path: string): Uint8Array {
  return new Uint8Array(Buffer.from(JSON.parse(readFileSync(path, 'utf8')).d, 'base64url'));
}

describe('log witness', () => {
  it('cosigns the server checkpoints, refuses an inconsistent one, and keeps its state across a restart', async () => {
    const dir = tempDir();
    const port = await freePort();
    const setup = setupDemo(join(dir, 'room'), { port, periodMs: 500, budgets: false });
    const origin = `127.0.0.1:${port}/log`;
    const steer = jwkSecret(join(setup.dir, 'keys', 'steering.jwk'));
    const logVkey = formatVerifierKey(
      verifierKey(origin, SIGNATURE_TYPE.ed25519, nodeBackend.publicKey(steer)),
    );
    await cli(['keygen', '--out', 'witness.jwk'], dir);
    const witnessKey = jwkSecret(join(dir, 'witness.jwk'));
    const name = 'witness.test/w1';
    const witnessVkey = formatVerifierKey(
      verifierKey(name, SIGNATURE_TYPE.cosignatureV1, nodeBackend.publicKey(witnessKey)),
    );
    const config = join(dir, 'witness.yaml');
    writeFileSync(
      config,
      [
        'listen: { host: 127.0.0.1, port: 0 }',
        'prefix: /w1',
        'key: witness.jwk',
        `name: ${name}`,
        'state: witness-state.json',
        'logs:',
        `  - origin: ${origin}`,
        `    vkey: ${logVkey}`,
        '',
      ].join('\n'),
    );
    let witness = await runWitness(config, dir);
    expect(witness.err()).toContain(`(vkey ${witnessVkey};`);

    const base = loadConfig(setup.configPath);
    const server = await startServer({
      ...base,
      log: {
        ...base.log!,
        interval: 100,
        maxDelay: 500,
        witnesses: [{ url: witness.url, vkey: witnessVkey }],
      },
    });
    closers.push(() => server.close());
    for (let i = 0; i < 4; i++) await fetch(`${server.url}/steer`);

    // The server serves its checkpoint with the witness's cosignature, and the witness serves
    // the same checkpoint it cosigned.
    const monitor = `${witness.url}/${originHash(origin)}/checkpoint`;
    await until('a cosigned checkpoint of the four decisions', async () => {
      const text = await (await fetch(`${server.url}/log/checkpoint`)).text();
      return Number(text.split('\n')[1]) >= 4 && text.includes(`\n— ${name} `);
    });
    const held = await (await fetch(monitor)).text();
    const [, sizeLine] = held.split('\n');
    const size = BigInt(sizeLine!);
    expect(size).toBeGreaterThanOrEqual(4n);
    expect(held).toContain(`— ${origin} `);
    expect(held).toContain(`— ${name} `);

    // Stop the server's sending, then ask the witness directly.
    await server.close();
    const post = (body: string) =>
      fetch(`${witness.url}/add-checkpoint`, { method: 'POST', body }).then(async (r) => ({
        status: r.status,
        type: r.headers.get('content-type'),
        body: await r.text(),
      }));
    const other = (n: number, key = steer, o = origin) => {
      const entries = Array.from({ length: n }, (_, i) =>
        encodeEntry({ t: BigInt(i), digest: new Uint8Array(32).fill(9) }),
      );
      const ig = integrate(emptyLogState(), entries);
      return signCheckpoint({ origin: o, size: ig.size, root: ig.root, extensions: [] }, [
        ed25519Signer(o, key),
      ]);
    };
    const held409 = { status: 409, type: 'text/x.tlog.size', body: `${size}\n` };
    // A wrong old size: 409 with the size held.
    expect(
      await post(
        formatAddCheckpoint({ oldSize: 0n, proof: [], checkpoint: other(Number(size) + 2) }),
      ),
    ).toEqual(held409);
    // The same size with another root: 422.
    const fork = await post(
      formatAddCheckpoint({ oldSize: size, proof: [], checkpoint: other(Number(size)) }),
    );
    expect(fork.status).toBe(422);
    // A larger one whose proof does not verify: 422.
    const bad = await post(
      formatAddCheckpoint({
        oldSize: size,
        proof: [new Uint8Array(32)],
        checkpoint: other(Number(size) + 3),
      }),
    );
    expect(bad.status).toBe(422);
    // Signed by a key the witness does not know for the origin: 403; an unknown origin: 404;
    // a body that does not read: 400.
    expect(
      (
        await post(
          formatAddCheckpoint({
            oldSize: size,
            proof: [],
            checkpoint: other(Number(size), witnessKey),
          }),
        )
      ).status,
    ).toBe(403);
    expect(
      (
        await post(
          formatAddCheckpoint({
            oldSize: 0n,
            proof: [],
            checkpoint: other(1, steer, 'elsewhere/log'),
          }),
        )
      ).status,
    ).toBe(404);
    expect((await post('old x\n\n')).status).toBe(400);
    expect((await fetch(`${witness.url}/add-checkpoint`)).status).toBe(405);
    expect(await (await fetch(monitor)).text()).toBe(held);

    // A restart: the state file kept the size cosigned.
    const state = JSON.parse(readFileSync(join(dir, 'witness-state.json'), 'utf8'));
    expect(state[origin]).toMatchObject({ size: size.toString(), checkpoint: held });
    expect(await witness.stop()).toBe(0);
    witness = await runWitness(config, dir);
    closers.push(() => witness.stop());
    const monitor2 = `${witness.url}/${originHash(origin)}/checkpoint`;
    expect(await (await fetch(monitor2)).text()).toBe(held);
    expect(
      await post(formatAddCheckpoint({ oldSize: 0n, proof: [], checkpoint: other(1) })),
    ).toEqual(held409);
  });

  it('refuses a config that names no log, or a vkey of another name, in one line', async () => {
    const dir = tempDir();
    await cli(['keygen', '--out', 'w.jwk'], dir);
    writeFileSync(join(dir, 'a.yaml'), 'key: w.jwk\nname: w\nstate: s.json\nlogs: []\n');
    expectUserError(
      await cli(['log', 'witness', '--config', 'a.yaml'], dir),
      /a\.yaml: logs: expected at least one log/,
    );
    writeFileSync(
      join(dir, 'b.yaml'),
      'key: w.jwk\nname: w\nstate: s.json\nlogs: [{ origin: a/log, vkey: "b/log+4afbb0f7+AeGbn1Uo5vhAt+cmTOPuVVOJk7X1M530cxlrefT77uhG" }]\n',
    );
    expectUserError(
      await cli(['log', 'witness', '--config', 'b.yaml'], dir),
      /b\.yaml: logs\.0\.vkey: /,
    );
  });
});
