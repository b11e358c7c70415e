import { createHash } from 'node:crypto';
import { toHex } from '@wai-steering/wire';
import { nodeBackend } from '@wai-steering/wire/node';
import { describe, expect, it } from 'vitest';
import { VerifierCache } from '../src/index.js';
import { DEFAULT_PLAN, hopRecord, makeRoom, P, T0 } from './helpers/world.js';

const { roomId } = makeRoom();
const record = (k: number) =>
  hopRecord(roomId, 0, T0 - BigInt(k + 1) * P, T0 - BigInt(k) * P, DEFAULT_PLAN[0]![0]!);

describe('VerifierCache.facts', () => {
  it('reads a record once: the same bytes in another array give the same facts', () => {
    const cache = new VerifierCache();
    const bytes = record(0);
    const a = cache.facts(bytes, nodeBackend);
    expect(cache.facts(bytes, nodeBackend)).toBe(a);
    expect(cache.facts(bytes.slice(), nodeBackend)).toBe(a);
    expect(a.read.ok).toBe(true);
    const expected = createHash('sha256')
      .update(bytes.subarray(0, bytes.length - 64))
      .digest();
    expect(a.digest).toBe(expected.toString('hex'));
  });

  it('does not take bytes changed in place for the old ones', () => {
    const cache = new VerifierCache();
    const bytes = record(0);
    const before = cache.facts(bytes, nodeBackend);
    bytes[100]! ^= 0xff;
    const after = cache.facts(bytes, nodeBackend);
    expect(after).not.toBe(before);
    expect(after.digest).not.toBe(before.digest);
  });

  it('gives no digest to a blob too short to hold a record body, and its read refusal', () => {
    const cache = new VerifierCache();
    const facts = cache.facts(new Uint8Array([0x57, 0x4d, 0x48, 0x31]), nodeBackend);
    expect(facts.digest).toBeUndefined();
    expect(facts.read.ok).toBe(false);
  });

  it('forgets its content index past maxEntries', () => {
    const cache = new VerifierCache(1);
    const a = record(0);
    const first = cache.facts(a.slice(), nodeBackend);
    cache.facts(record(1), nodeBackend); // the index is full: cleared, then holds this one
    expect(cache.facts(a.slice(), nodeBackend)).not.toBe(first);
  });
});

describe('VerifierCache.verify', () => {
  it('verifies a signature once per room, and again for another room', () => {
    const cache = new VerifierCache();
    const bytes = record(0);
    const facts = cache.facts(bytes, nodeBackend);
    if (!facts.read.ok) throw facts.read.refusal;
    expect(cache.verify(facts, facts.read.value, roomId, nodeBackend)).toBeNull();
    expect(cache.verify(facts, facts.read.value, roomId, nodeBackend)).toBeNull();
    expect(cache.signaturesVerified).toBe(1);
    const other = new Uint8Array(32).fill(1);
    expect(cache.verify(facts, facts.read.value, other, nodeBackend)?.reason).toBe('wrong_room');
    expect(cache.signaturesVerified).toBe(2);
    expect(facts.verified.get(toHex(roomId))).toBeNull();
  });
});

describe('VerifierCache.memo', () => {
  it('computes once for the same bytes, again when they change, apart by tag and scope', () => {
    const cache = new VerifierCache();
    const scope = {};
    let calls = 0;
    const compute = () => ++calls;
    const parts = [new Uint8Array([1, 2]), new Uint8Array([3])];
    expect(cache.memo(scope, 'room', parts, compute)).toBe(1);
    expect(
      cache.memo(
        scope,
        'room',
        parts.map((p) => p.slice()),
        compute,
      ),
    ).toBe(1);
    // The parts are length-prefixed: [1] [2, 3] is not [1, 2] [3].
    expect(cache.memo(scope, 'room', [new Uint8Array([1]), new Uint8Array([2, 3])], compute)).toBe(
      2,
    );
    expect(cache.memo(scope, 'policy', parts, compute)).toBe(3);
    expect(cache.memo({}, 'room', parts, compute)).toBe(4);
    parts[0]![0] = 9;
    expect(cache.memo(scope, 'room', parts, compute)).toBe(5);
  });
});
