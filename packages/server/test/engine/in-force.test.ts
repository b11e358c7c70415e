// What decisions under one policy need: assembled fields that wire signs to the same bytes as the
// server's encoder, over the evidence of the window at t.
import {
  readDecision,
  signDecision,
  toHex,
  unwrap,
  verifyDecisionSignature,
} from '@wai-steering/wire';
import { nodeBackend } from '@wai-steering/wire/node';
import { afterEach, describe, expect, it } from 'vitest';
import { joinDecision } from '../../src/store/compact.js';
import { demoApp } from '../helpers/setup.js';

type Ctx = Awaited<ReturnType<typeof demoApp>>;
let ctx: Ctx | undefined;
afterEach(async () => {
  await ctx?.close();
  ctx = undefined;
});

describe('InForce', () => {
  it('assembles a decision at t over its window, and its signer writes what wire writes', async () => {
    ctx = await demoApp();
    const under = ctx.engine.policies.current;
    expect(under.ids).toEqual(ctx.setup.policy.pathways.map((p) => p.id));
    const session = new Uint8Array(16).fill(4);
    const report = { pathway: 1, throughput: 5_000_000n, buffer: null };
    const t = ctx.clock.us;
    const { fields, evidence } = under.assemble(t, session, 'dash', report, [3, 2, 1]);
    expect(evidence).toBe(under.cache.at(t));
    expect(fields.t).toBe(t);
    expect(fields.policy).toEqual(under.digest);
    expect(fields.protocol).toBe(2);
    expect(fields.pathways.map((p) => p.load)).toEqual([3, 2, 1]);
    const signed = under.signer.sign(fields, evidence);
    const bytes = 'tail' in signed ? joinDecision(signed.set, signed.tail) : signed.bytes;
    const wire = signDecision(fields, ctx.materials.secretKey, { backend: nodeBackend });
    expect(toHex(bytes)).toBe(toHex(wire));
    expect(verifyDecisionSignature(unwrap(readDecision(bytes)), nodeBackend)).toBeUndefined();
    // The self-check passes on this policy (it throws when the encoders disagree).
    expect(() => under.selfCheck(t, [0, 0, 0])).not.toThrow();
  });
});
