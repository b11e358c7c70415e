/**
 * The corpus's one source of variety: a deterministic generator, SHA-256 in counter mode over a
 * label. Never `Math.random`: the same label gives the same sequence in every run.
 */
import { sha256Text } from './keys.js';

export class Prng {
  private readonly label: string;
  private counter = 0;
  private block: Uint8Array = new Uint8Array(0);
  private offset = 0;

  constructor(label: string) {
    this.label = label;
  }

  /** The next byte. */
  byte(): number {
    if (this.offset >= this.block.length) {
      this.block = sha256Text(`wai-conformance:prng:${this.label}:${this.counter}`);
      this.counter++;
      this.offset = 0;
    }
    return this.block[this.offset++]!;
  }

  /** The next u32 (little-endian over four bytes). */
  u32(): number {
    return (this.byte() | (this.byte() << 8) | (this.byte() << 16) | (this.byte() << 24)) >>> 0;
  }

  /** An integer in [0, n), without modulo bias (n ≤ 2^32). */
  below(n: number): number {
    if (!Number.isInteger(n) || n < 1 || n > 2 ** 32) throw new RangeError('below: 1 ≤ n ≤ 2^32');
    const limit = 2 ** 32 - (2 ** 32 % n);
    for (;;) {
      const x = this.u32();
      if (x < limit) return x % n;
    }
  }

  /** `count` distinct integers of [0, n), in ascending order (all of them when count ≥ n). */
  sample(n: number, count: number): number[] {
    if (count >= n) return Array.from({ length: n }, (_, i) => i);
    const chosen = new Set<number>();
    while (chosen.size < count) chosen.add(this.below(n));
    return [...chosen].sort((a, b) => a - b);
  }

  /** `n` bytes. */
  bytes(n: number): Uint8Array {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i++) out[i] = this.byte();
    return out;
  }
}
