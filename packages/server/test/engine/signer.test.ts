// §7.3: the server's encoder and wire's `signDecision` write the same bytes; the self-check at
// start says so, and refuses fields the encoder would write otherwise.
import { nodeBackend } from '@wai-steering/wire/node';
import { afterEach, describe, expect, it } from 'vitest';
import { DecisionSigner } from '../../src/engine/signer.js';
import { joinDecision } from '../../src/store/compact.js';
import { demoApp } from '../helpers/setup.js';

type Ctx = Awaited<ReturnType<typeof demoApp>>;
let ctx: Ctx | undefined;
afterEach(async () => {
  await ctx?.close();
  ctx = undefined;
});

describe('DecisionSigner', () => {
  it('signs the same bytes with the server encoder and with wire', async () => {
    ctx = await demoApp();
    const under = ctx.engine.policies.current;
    const m = ctx.materials;
    const wire = new DecisionSigner(
      m.room.roomId,
      m.publicKey,
      under.digest,
      m.secretKey,
      nodeBackend,
      'wire',
    );
    const session = new Uint8Array(16).fill(2);
    const report = { pathway: null, throughput: null, buffer: null };
    const { fields, evidence } = under.assemble(ctx.clock.us, session, 'hls', report, [1, 2, 3]);
    const fast = under.signer.sign(fields, evidence);
    const slow = wire.sign(fields, evidence);
    const bytes = (s: typeof fast) => ('tail' in s ? joinDecision(s.set, s.tail) : s.bytes);
    expect(bytes(fast)).toEqual(bytes(slow));
    expect(fast.digest).toEqual(slow.digest);
    expect(() => under.signer.selfCheck(fields, evidence)).not.toThrow();
    // Fields naming another signer than the encoder's key are refused, never signed.
    const other = { ...fields, signer: new Uint8Array(32).fill(1) };
    expect(() => under.signer.selfCheck(other, evidence)).toThrow(/not of this encoder/);
  });
});
