import { createHash } from 'node:crypto';
import type { Evidence } from '@wai-steering/evidence';
import { type DecisionFields, signDecision } from '@wai-steering/wire';
import { nodeBackend } from '@wai-steering/wire/node';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DecisionEncoder } from '../src/encode.js';
import { joinDecision } from '../src/store/compact.js';

const secretKey = new Uint8Array(32).fill(11);
const signer = nodeBackend.publicKey(secretKey);
const room = new Uint8Array(32).fill(1);
const policy = new Uint8Array(32).fill(2);

const bytes = (n: number) => fc.uint8Array({ minLength: n, maxLength: n });
const u64 = fc.bigInt({ min: 0n, max: (1n << 64n) - 1n });
const u128 = fc.bigInt({ min: 0n, max: (1n << 128n) - 1n });
const own = fc.record({
  t: u64,
  session: bytes(16),
  draw: fc.nat(999_999),
  protocol: fc.integer({ min: 1, max: 2 }),
  report: fc.record({ present: fc.nat(7), pathway: fc.nat(255), throughput: u64, buffer: u64 }),
  loads: fc.array(fc.nat(0xffffffff), { minLength: 8, maxLength: 8 }),
  limits: fc.array(fc.nat(7), { minLength: 8, maxLength: 8 }),
  ttl: fc.integer({ min: 1, max: 0xffffffff }),
  reason: fc.integer({ min: 1, max: 6 }),
  priority: fc.array(fc.nat(255), { maxLength: 8 }),
});
const evidenceArb = fc.array(
  fc.record({
    status: fc.nat(4),
    class: fc.nat(5),
    joules: u128,
    delivery: u128,
    evidence: fc.array(bytes(32), { maxLength: 12 }),
  }),
  { maxLength: 6 },
);

describe('the decision encoder', () => {
  it('writes and signs exactly what wire writes and signs', () => {
    const encoder = new DecisionEncoder(room, signer, policy, secretKey);
    fc.assert(
      fc.property(evidenceArb, fc.array(own, { minLength: 1, maxLength: 4 }), (ev, decisions) => {
        const evidence = { window: { a: 0n, b: 0n }, pathways: [] } as unknown as Evidence;
        for (const d of decisions) {
          const fields: DecisionFields = {
            room,
            signer,
            policy,
            t: d.t,
            session: d.session,
            draw: d.draw,
            protocol: d.protocol,
            report: d.report,
            pathways: ev.map((p, i) => ({ ...p, load: d.loads[i]!, limits: d.limits[i]! })),
            ttl: d.ttl,
            reason: d.reason,
            priority: d.priority,
          };
          const fast = encoder.encode(fields, evidence);
          const wire = signDecision(fields, secretKey, { backend: nodeBackend, check: false });
          expect(Buffer.from(fast.bytes).equals(Buffer.from(wire))).toBe(true);
          expect(fast.body.length).toBe(wire.length - 64);
          const compact = encoder.encodeCompact(fields, evidence);
          expect(compact.set).toBe(fast.set);
          expect(
            Buffer.from(joinDecision(compact.set, compact.tail)).equals(Buffer.from(wire)),
          ).toBe(true);
          const digest = createHash('sha256')
            .update(wire.subarray(0, wire.length - 64))
            .digest();
          expect(Buffer.from(compact.digest).equals(digest)).toBe(true);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('refuses a key that is not the signer, and fields of another policy', () => {
    expect(() => new DecisionEncoder(room, signer, policy, new Uint8Array(32).fill(12))).toThrow(
      RangeError,
    );
    const encoder = new DecisionEncoder(room, signer, policy, secretKey);
    const fields = {
      room,
      signer,
      policy: new Uint8Array(32),
      t: 0n,
      session: new Uint8Array(16),
      draw: 0,
      protocol: 1,
      report: { present: 0, pathway: 0, throughput: 0n, buffer: 0n },
      pathways: [],
      ttl: 1,
      reason: 6,
      priority: [],
    };
    expect(() => encoder.encode(fields, {} as Evidence)).toThrow(RangeError);
  });
});
