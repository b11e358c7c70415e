// Finding 6: after a head of seq 1 revoked a hop, putting the seq 0 file back and sending SIGHUP
// was accepted, and the revoked hop's records were taken again. Now a head is taken only if its
// seq is greater and its prev is the digest of the head in use (companion C4), on SIGHUP and at
// start against the head the store kept.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { digestOf, jwkToKeyPair, readKeyLog, signKeyLog, toHex, unwrap } from '@wai-steering/wire';
import { nodeBackend } from '@wai-steering/wire/node';
import { afterEach, describe, expect, it } from 'vitest';
import { stepHead } from '../../src/guard/key-log.js';
import { startServer } from '../../src/server.js';
import { fileServer, get, post, TestClock, tempDir, text } from '../helpers/setup.js';

let cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const f of cleanup.reverse()) await f();
  cleanup = [];
});

describe('key log heads move forward', () => {
  it('refuses a rollback on SIGHUP (reloadKeyLog) and at start', async () => {
    const t = tempDir('wai-keylog-');
    cleanup.push(t.remove);
    const clock = new TestClock(BigInt(Date.now()) * 1000n);
    const { server, setup, config, sim } = await fileServer(t.dir, clock);
    let running = server;
    cleanup.push(() => running.close());
    const file = join(t.dir, 'key-log.wkl');
    const h0 = new Uint8Array(readFileSync(file));
    const head0 = unwrap(readKeyLog(h0));
    const origin = jwkToKeyPair(
      JSON.parse(readFileSync(join(t.dir, 'keys', 'origin.jwk'), 'utf8')),
      nodeBackend,
    );
    const hop = setup.hops[0]!;
    const sign = (seq: bigint, prev: Uint8Array, revoke: boolean) =>
      signKeyLog(
        {
          origin: head0.origin,
          seq,
          prev,
          entries: head0.entries.map((e) =>
            revoke && toHex(e.key) === toHex(hop.key.publicKey) ? { ...e, status: 2 } : e,
          ),
        },
        origin.secretKey!,
        { backend: nodeBackend },
      );
    const P = setup.policy.period_us;
    const end = (clock.us / P) * P;
    const postHop = async (i: number) =>
      (await post(running.app, '/records', sim.record(hop, end - P, end, 10 + i))).status;
    const served = async () =>
      toHex((await get(running.app, `/rooms/${toHex(setup.roomId)}/key-log`)).body as Uint8Array);

    expect(await postHop(0)).toBe(201);
    // seq 1 revokes the hop: taken.
    const h1 = sign(1n, digestOf(head0, nodeBackend), true);
    writeFileSync(file, h1);
    expect(await running.reloadKeyLog()).toBe(true);
    expect(await postHop(1)).toBe(400);
    // The same head again: nothing to do.
    expect(await running.reloadKeyLog()).toBe(false);

    // The seq 0 file put back: refused, the head in use stays, the hop stays revoked.
    writeFileSync(file, h0);
    await expect(running.reloadKeyLog()).rejects.toThrow(
      /^key_log: the head in .* was not taken: its seq 0 is not after the head in use \(seq 1/,
    );
    expect(await served()).toBe(toHex(h1));
    expect(await postHop(2)).toBe(400);
    // Another head of seq 1 (a fork), and a seq 2 whose prev is not the head in use: refused.
    writeFileSync(file, sign(1n, digestOf(head0, nodeBackend), false));
    await expect(running.reloadKeyLog()).rejects.toThrow(/its seq 1 is not after the head in use/);
    writeFileSync(file, sign(2n, digestOf(head0, nodeBackend), false));
    await expect(running.reloadKeyLog()).rejects.toThrow(
      /its prev is not the digest of the head in use/,
    );
    expect(await served()).toBe(toHex(h1));

    // At start: the store kept seq 1; the seq 0 file refuses the start.
    await running.close();
    writeFileSync(file, h0);
    await expect(startServer(config, { clock: clock.now })).rejects.toThrow(
      /^key_log: the head is older than the one this store kept: its seq 0 is not after/,
    );
    writeFileSync(file, h1);
    running = await startServer(config, { clock: clock.now });
    expect(await served()).toBe(toHex(h1));
    expect(
      text((await post(running.app, '/records', sim.record(hop, end - P, end, 99))).body),
    ).toMatch(/revoked/);
  });

  it('takes a later head at start with a warning, since the heads between were not seen', () => {
    const z = new Uint8Array(32);
    const head = (seq: bigint, prev: Uint8Array, d: number) => ({
      head: { origin: z, seq, prev, entries: [], body: z, sig: z } as never,
      digest: new Uint8Array(32).fill(d),
    });
    const cur = head(1n, new Uint8Array(32).fill(9), 1);
    expect(stepHead(cur, head(2n, new Uint8Array(32).fill(1), 2), 'refuse')).toEqual({
      take: true,
    });
    expect(stepHead(cur, head(3n, new Uint8Array(32).fill(7), 3), 'refuse')).toMatchObject({
      take: false,
      same: false,
    });
    expect(stepHead(cur, head(3n, new Uint8Array(32).fill(7), 3), 'warn')).toMatchObject({
      take: true,
      warning: expect.stringMatching(/2 heads after/),
    });
  });
});
