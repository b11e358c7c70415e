// The log's witnesses (C2SP tlog-witness): real witnesses over HTTP, built on
// `@wai-steering/tlog`'s witness decision, cosign each new checkpoint; the server serves the
// cosignatures it verified; a witness that is down, hangs or refuses never stops the log.
import { openCheckpoint } from '@wai-steering/tlog';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig, type ServerConfig } from '../../src/config/read.js';
import { setupDemo } from '../../src/demo/setup.js';
import { type RunningServer, startServer } from '../../src/server.js';
import { logKeyOf, until } from '../helpers/log.js';
import { freePort, tempDir } from '../helpers/setup.js';
import { startWitness, type TestWitness } from '../helpers/witness.js';

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

/** A demo room's config, its log on a short interval, and its log's origin and key. */
async function room(witnesses: { url: string; vkey: string }[]) {
  const t = tempDir('wai-witness-');
  cleanup.push(t.remove);
  const port = await freePort();
  const setup = setupDemo(t.dir, { port, periodMs: 2000, budgets: false });
  const origin = `127.0.0.1:${port}/log`;
  const config: ServerConfig = {
    ...loadConfig(setup.configPath),
    log: { origin: null, interval: 100, maxDelay: 1000, witnesses },
  };
  return { config, origin, key: logKeyOf(origin, setup.steering.publicKey) };
}

async function start(config: ServerConfig): Promise<RunningServer> {
  const lines: string[] = [];
  const server = await startServer(config, { log: (l) => lines.push(l) });
  cleanup.push(() => server.close());
  return server;
}

async function steer(server: RunningServer, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const res = await fetch(`${server.url}/steer`);
    expect(res.status).toBe(200);
    await res.arrayBuffer();
  }
}

/** The served checkpoint, opened with the log's key and the witnesses' keys. */
async function served(
  server: RunningServer,
  origin: string,
  key: ReturnType<typeof logKeyOf>,
  ws: TestWitness[],
) {
  const text = await (await fetch(`${server.url}/log/checkpoint`)).text();
  const opened = openCheckpoint(text, {
    origin,
    logKeys: [key],
    witnessKeys: ws.map((w) => w.key),
  });
  if (!opened.ok) throw new Error(opened.refusal.message);
  return {
    size: opened.value.checkpoint.size,
    cosigned: opened.value.verified
      .filter((v) => v.key !== key)
      .map((v) => v.key.name)
      .sort(),
  };
}

describe('the log’s witnesses', () => {
  it('gathers every witness’s cosignature on the new checkpoints, and serves them', async () => {
    // The witnesses trust the log's key, known once the room is made.
    const pending = await room([]);
    const a = await startWitness('witness-a.example', new Uint8Array(32).fill(21), [pending.key]);
    const b = await startWitness('witness-b.example', new Uint8Array(32).fill(22), [pending.key]);
    cleanup.push(a.close, b.close);
    const config: ServerConfig = {
      ...pending.config,
      log: { ...pending.config.log!, witnesses: [a, b].map((w) => ({ url: w.url, vkey: w.vkey })) },
    };
    const server = await start(config);
    await steer(server, 5);
    // The checkpoint seen cosigned by both (the log may serve a newer one a moment later, its
    // cosignatures still on their way).
    let s: Awaited<ReturnType<typeof served>> | undefined;
    await until(
      async () => {
        s = await served(server, pending.origin, pending.key, [a, b]);
        return s.size >= 5n && s.cosigned.length === 2;
      },
      60_000,
      'a checkpoint of 5 cosigned by both',
    );
    expect(s!.cosigned).toEqual(['witness-a.example', 'witness-b.example']);
    // Each witness holds the log's latest checkpoint it cosigned, consistent with the served one.
    expect(a.state.get(pending.origin)?.size).toBeGreaterThanOrEqual(5n);
    // More decisions: the witnesses move on with consistency proofs from their sizes.
    const before = a.state.get(pending.origin)!.size;
    await steer(server, 300);
    await until(
      async () => {
        const t = await served(server, pending.origin, pending.key, [a, b]);
        return t.size >= before + 300n && t.cosigned.length === 2;
      },
      60_000,
      'a checkpoint of 300 more cosigned by both',
    );
    expect(a.answers.every((x) => x === 200)).toBe(true);
    // Each witness's last answer a cosignature (a round may be under way: its outcome waited for).
    await until(
      () => server.log.witnesses?.status().every((w) => w.last === 'cosigned') === true,
      60_000,
      'both witnesses last cosigned',
    );
    expect(server.log.witnesses?.status().map((w) => w.last)).toEqual(['cosigned', 'cosigned']);
  });

  it('learns a witness’s size from its 409 after a restart, and proves consistency from it', async () => {
    const pending = await room([]);
    const w = await startWitness('witness-c.example', new Uint8Array(32).fill(23), [pending.key]);
    cleanup.push(w.close);
    const config: ServerConfig = {
      ...pending.config,
      log: { ...pending.config.log!, witnesses: [{ url: w.url, vkey: w.vkey }] },
    };
    let server = await start(config);
    await steer(server, 3);
    await until(() => (w.state.get(pending.origin)?.size ?? 0n) >= 3n, 60_000, 'cosigned 3');
    await server.close();
    // A new process knows nothing of the witness: it sends from 0, hears 409, and proves.
    server = await start(config);
    await steer(server, 4);
    await until(() => (w.state.get(pending.origin)?.size ?? 0n) >= 7n, 60_000, 'cosigned 7');
    expect(w.answers).toContain(409);
    expect(w.answers.filter((x) => x !== 200 && x !== 409)).toEqual([]);
    const s = await served(server, pending.origin, pending.key, [w]);
    expect(s.cosigned).toEqual(['witness-c.example']);
  });

  it('goes on at its interval when a witness is down, hangs or refuses', async () => {
    const pending = await room([]);
    const good = await startWitness('witness-good.example', new Uint8Array(32).fill(24), [
      pending.key,
    ]);
    const hangs = await startWitness('witness-slow.example', new Uint8Array(32).fill(25), [
      pending.key,
    ]);
    const refuses = await startWitness('witness-no.example', new Uint8Array(32).fill(26), [
      pending.key,
    ]);
    // One that knows another log only: 404 (an unknown origin).
    const stranger = await startWitness('witness-other.example', new Uint8Array(32).fill(27), []);
    const down = await startWitness('witness-down.example', new Uint8Array(32).fill(28), [
      pending.key,
    ]);
    cleanup.push(good.close, hangs.close, refuses.close, stranger.close);
    hangs.mode = 'hang';
    refuses.mode = 'refuse';
    await down.close();
    const all = [good, hangs, refuses, stranger, down];
    const config: ServerConfig = {
      ...pending.config,
      log: { ...pending.config.log!, witnesses: all.map((w) => ({ url: w.url, vkey: w.vkey })) },
    };
    const server = await start(config);
    for (let round = 1; round <= 3; round++) {
      await steer(server, 2);
      await until(
        async () => {
          const s = await served(server, pending.origin, pending.key, all);
          return s.size >= BigInt(2 * round) && s.cosigned.includes('witness-good.example');
        },
        60_000,
        `round ${round}: a checkpoint of ${2 * round} cosigned by the good witness`,
      );
    }
    const s = await served(server, pending.origin, pending.key, all);
    expect(s.cosigned).toEqual(['witness-good.example']);
    const status = new Map(server.log.witnesses!.status().map((w) => [w.name, w]));
    expect(status.get('witness-good.example')?.last).toBe('cosigned');
    expect(status.get('witness-no.example')?.last).toMatch(/^403/);
    expect(status.get('witness-other.example')?.last).toMatch(/^404/);
    expect(status.get('witness-down.example')?.failures).toBeGreaterThan(0);
    // Health stays ok: a witness is not the server's.
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });
});
