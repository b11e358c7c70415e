/**
 * The decision log writer's SHA-256: `sha256.c` in WebAssembly (`module.ts`), which hashes a batch
 * of messages of one length in one call, four at a time. Instantiated asynchronously (a module of
 * this size may not be compiled synchronously everywhere); checked against node:crypto in its test.
 */

import type { TreeHashing } from '@wai-steering/tlog';
import { SHA256_WASM } from './module.js';

/** SHA-256 of one message, and the RFC 6962 leaf and node hashes of a batch. */
export interface WasmSha256 extends TreeHashing {
  sha256(data: Uint8Array): Uint8Array;
}

interface Exports {
  readonly memory: { readonly buffer: ArrayBuffer };
  input(): number;
  output(): number;
  digest(count: number, length: number): void;
  prefixed(prefix: number, count: number, length: number): void;
}

/** The part of the WebAssembly API used here (the server's types have no DOM library). */
const wasmApi = (
  globalThis as unknown as {
    WebAssembly: { instantiate(bytes: Uint8Array): Promise<{ instance: { exports: unknown } }> };
  }
).WebAssembly;

/** The module's input and output areas, each of this many bytes (`IO_BYTES` in `sha256.c`). */
const IO_BYTES = 65_536;
const HASH = 32;

/** Instantiates the module: its hashing, or a rejection where WebAssembly (with SIMD) is not available. */
export async function wasmSha256(): Promise<WasmSha256> {
  const { instance } = await wasmApi.instantiate(Buffer.from(SHA256_WASM, 'base64'));
  const x = instance.exports as unknown as Exports;
  // The memory never grows (the module asks for none), so one view serves every call.
  const memory = new Uint8Array(x.memory.buffer);
  const input = x.input();
  const output = x.output();

  /** `count` messages of `length` bytes each, hashed in calls of as many as the areas hold. */
  const batch = (
    data: Uint8Array,
    count: number,
    length: number,
    hash: (count: number, length: number) => void,
  ): Uint8Array => {
    if (data.length !== count * length) {
      throw new TypeError(`sha256: expected ${count} messages of ${length} bytes`);
    }
    const out = new Uint8Array(count * HASH);
    // The module copies each message after its prefix byte into an area of IO_BYTES + 2048.
    const most = Math.min(IO_BYTES / HASH, Math.floor(IO_BYTES / Math.max(length + 1, 1)));
    for (let done = 0; done < count; ) {
      const n = Math.min(most, count - done);
      memory.set(data.subarray(done * length, (done + n) * length), input);
      hash(n, length);
      out.set(memory.subarray(output, output + n * HASH), done * HASH);
      done += n;
    }
    return out;
  };

  return {
    sha256(data) {
      if (data.length > IO_BYTES) throw new RangeError('sha256: a message of more than 64 KiB');
      memory.set(data, input);
      x.digest(1, data.length);
      return memory.slice(output, output + HASH);
    },
    leafHashes: (entries, count, length) =>
      batch(entries, count, length, (n, l) => x.prefixed(0x00, n, l)),
    nodeHashes: (pairs, count) => batch(pairs, count, 2 * HASH, (n, l) => x.prefixed(0x01, n, l)),
  };
}
