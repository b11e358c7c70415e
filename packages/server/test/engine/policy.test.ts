// The policy a server decides under: of the room, its signature verified, its signer one that may
// sign it (§3.3 to §3.5); and how one policy's sessions map to another's pathways by ID.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { digestOf, jwkToKeyPair, readPolicy, signPolicy, unwrap } from '@wai-steering/wire';
import { nodeBackend } from '@wai-steering/wire/node';
import { afterEach, describe, expect, it } from 'vitest';
import { checkPolicy, pathwayMap } from '../../src/engine/policy.js';
import { demoApp } from '../helpers/setup.js';

type Ctx = Awaited<ReturnType<typeof demoApp>>;
let ctx: Ctx | undefined;
afterEach(async () => {
  await ctx?.close();
  ctx = undefined;
});

describe('checkPolicy', () => {
  it('takes the room’s policy, and says what is wrong with any other', async () => {
    ctx = await demoApp();
    const { room } = ctx.materials;
    const ok = checkPolicy(room, ctx.setup.policyBytes, nodeBackend);
    expect(ok.ok && ok.value.digest).toEqual(
      digestOf(unwrap(readPolicy(ctx.setup.policyBytes)), nodeBackend),
    );
    expect(checkPolicy(room, new Uint8Array(10), nodeBackend)).toMatchObject({
      ok: false,
      problem: expect.stringMatching(/^does not read \(/),
    });
    const flipped = Uint8Array.from(ctx.setup.policyBytes);
    flipped[flipped.length - 1]! ^= 1;
    expect(checkPolicy(room, flipped, nodeBackend)).toEqual({
      ok: false,
      problem: 'bad_signature',
    });
    const hop = jwkToKeyPair(
      JSON.parse(readFileSync(join(ctx.setup.dir, 'keys', 'cdn-a-edge.jwk'), 'utf8')),
      nodeBackend,
    );
    const byHop = signPolicy({ ...ctx.setup.policy, signer: hop.publicKey }, hop.secretKey!, {
      backend: nodeBackend,
    });
    expect(checkPolicy(room, byHop, nodeBackend)).toEqual({
      ok: false,
      problem:
        'its signer may not sign it (signer_not_authorised): sign it with the room authority or a live/steer key of the key log',
    });
  });
});

describe('pathwayMap', () => {
  const of = (...ids: string[]) => ({ pathways: ids.map((id) => ({ id })) }) as never;
  it('maps each pathway to the new index of its ID, -1 when removed, nothing when the same', () => {
    expect(pathwayMap(of('a', 'b', 'c'), of('a', 'b', 'c'))).toBeUndefined();
    expect(pathwayMap(of('a', 'b', 'c'), of('c', 'a'))).toEqual([1, -1, 0]);
    expect(pathwayMap(of('a'), of('a', 'b'))).toEqual([0]);
  });
});
