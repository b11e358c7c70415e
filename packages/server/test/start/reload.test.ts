// The operator's changes without a restart: the key log file (a head taken only when it moves
// forward), the policy file (refused unless it is the room's), and a head another instance kept.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  digestOf,
  jwkToKeyPair,
  readKeyLog,
  signKeyLog,
  signPolicy,
  toHex,
  unwrap,
} from '@wai-steering/wire';
import { nodeBackend } from '@wai-steering/wire/node';
import { afterEach, describe, expect, it } from 'vitest';
import { Reloader } from '../../src/start/reload.js';
import { demoApp } from '../helpers/setup.js';

type Ctx = Awaited<ReturnType<typeof demoApp>>;
let ctx: Ctx | undefined;
afterEach(async () => {
  await ctx?.close();
  ctx = undefined;
});

function keyOf(c: Ctx, name: string) {
  return jwkToKeyPair(
    JSON.parse(readFileSync(join(c.setup.dir, 'keys', `${name}.jwk`), 'utf8')),
    nodeBackend,
  );
}

/** The next key log head after the one in use (seq + 1, its prev the digest of the one in use). */
function nextHead(c: Ctx): Uint8Array {
  const head = unwrap(readKeyLog(c.setup.keyLogBytes));
  return signKeyLog(
    {
      origin: head.origin,
      seq: head.seq + 1n,
      prev: digestOf(head, nodeBackend),
      entries: head.entries,
    },
    keyOf(c, 'origin').secretKey!,
    { backend: nodeBackend },
  );
}

describe('Reloader', () => {
  it('takes a key log head that moves forward, and none that does not', async () => {
    ctx = await demoApp();
    const reloader = new Reloader(ctx.config, ctx.engine, ctx.setup.roomBytes, nodeBackend);
    expect(await reloader.keyLog()).toBe(false);
    const next = nextHead(ctx);
    writeFileSync(ctx.config.keyLog!, next);
    expect(await reloader.keyLog()).toBe(true);
    expect(ctx.engine.keyLog?.seq).toBe(1n);
    // The old head back is a rollback: refused, the new one stays.
    writeFileSync(ctx.config.keyLog!, ctx.setup.keyLogBytes);
    await expect(reloader.keyLog()).rejects.toThrow(/^key_log: the head in .* was not taken/);
    expect(ctx.engine.keyLog?.seq).toBe(1n);
  });

  it('puts a new policy file in force, once, and refuses one of another room', async () => {
    ctx = await demoApp();
    const reloader = new Reloader(ctx.config, ctx.engine, ctx.setup.roomBytes, nodeBackend);
    expect(await reloader.reload()).toEqual({
      policy: toHex(ctx.engine.policyDigest),
      changed: false,
      keyLog: false,
      warnings: [],
      from: null,
    });
    const authority = keyOf(ctx, 'authority');
    const next = signPolicy(
      { ...ctx.setup.policy, ttl_s: ctx.setup.policy.ttl_s + 1 },
      authority.secretKey!,
      {
        backend: nodeBackend,
      },
    );
    writeFileSync(ctx.config.policy, next);
    // Alone on its store: in force at once.
    expect(await reloader.policy()).toMatchObject({ kind: 'rotated', from: ctx.clock.us });
    expect(ctx.engine.policy.ttl_s).toBe(ctx.setup.policy.ttl_s + 1);
    expect(await reloader.policy()).toBeUndefined();
    writeFileSync(
      ctx.config.policy,
      signPolicy({ ...ctx.setup.policy, room: new Uint8Array(32).fill(1) }, authority.secretKey!, {
        backend: nodeBackend,
      }),
    );
    await expect(reloader.policy()).rejects.toThrow(/^policy: .*is of room 0101/);
    expect(ctx.engine.policy.ttl_s).toBe(ctx.setup.policy.ttl_s + 1);
  });

  it("adopts another instance's head when it moves forward, and ignores anything else", async () => {
    ctx = await demoApp();
    const reloader = new Reloader(ctx.config, ctx.engine, ctx.setup.roomBytes, nodeBackend);
    reloader.adoptKeyLog(new Uint8Array([1, 2, 3]));
    reloader.adoptKeyLog(ctx.setup.keyLogBytes);
    expect(ctx.engine.keyLog?.seq).toBe(0n);
    reloader.adoptKeyLog(nextHead(ctx));
    await expect.poll(() => ctx!.engine.keyLog?.seq).toBe(1n);
  });
});
