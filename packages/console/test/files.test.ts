import { describe, expect, it } from 'vitest';
import { type HeldFile, inputsOf, kindOf } from '../src/verify/files.js';

const ascii = (s: string, tail: number[] = []) =>
  new Uint8Array([...Array.from(s, (c) => c.charCodeAt(0)), ...tail]);

describe('files dropped on the verifier', () => {
  it('are told apart by their magic, and a manifest by being JSON', () => {
    expect(kindOf(ascii('WSD1', [1]))).toBe('decision');
    expect(kindOf(ascii('WMH1', [1]))).toBe('record');
    expect(kindOf(ascii('WSP1', [1]))).toBe('policy');
    expect(kindOf(ascii('WRD1', [1]))).toBe('room');
    expect(kindOf(ascii('WKL1', [1]))).toBe('keyLog');
    expect(kindOf(ascii(' \n{"VERSION":1}'))).toBe('manifest');
    expect(kindOf(ascii('WSD'))).toBe('unknown');
    expect(kindOf(new Uint8Array(0))).toBe('unknown');
  });

  it('give the inputs once a decision, a policy and a room are there, records in any number', () => {
    const f = (name: string, bytes: Uint8Array): HeldFile => ({ name, kind: kindOf(bytes), bytes });
    const decision = f('d', ascii('WSD1', [1]));
    const policy = f('p', ascii('WSP1', [2]));
    const room = f('r', ascii('WRD1', [3]));
    const records = [f('a', ascii('WMH1', [4])), f('b', ascii('WMH1', [5]))];
    expect(inputsOf([decision, ...records])).toEqual({ missing: ['policy', 'room'] });
    const input = inputsOf([decision, policy, ...records, room]);
    expect('missing' in input).toBe(false);
    if ('missing' in input) return;
    expect(input.decision).toBe(decision.bytes);
    expect(input.keyLog).toBeNull();
    expect(input.records).toEqual(records.map((r) => r.bytes));
    expect(input.manifest).toBeUndefined();
    // The last of a kind given counts.
    const later = f('d2', ascii('WSD1', [9]));
    const again = inputsOf([decision, policy, room, later]);
    expect('missing' in again ? undefined : again.decision).toBe(later.bytes);
  });
});
