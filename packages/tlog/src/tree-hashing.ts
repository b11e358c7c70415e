/**
 * SHA-256 in WebAssembly for a log's writer and its checkers: `internal/sha256/sha256.c`
 * (`module.ts`, built by `build.sh`), which hashes a batch of messages of one length in one call,
 * four at a time with 128-bit SIMD. Portable: any runtime with WebAssembly and its SIMD (Node
 * 16.4+, every current browser). Checked against node:crypto in `test/tree-hashing.test.ts`.
 *
 * Why a SHA-256 of the project's own: `node:crypto`, hash-wasm and `@noble/hashes` hash one
 * message a call, and for RFC 6962's 41- and 65-byte messages the call costs as much as the
 * hashing. Measured 2026-12-07 (a shared, noisy machine) against the fastest of them, hash-wasm
 * with one hasher reused, in the same rounds: `integrate` with the module costs 0.52, 0.43 and
 * 0.39 × its CPU for batches of 100, 1,000 and 10,000 entries (`bench/integrate.bench.mjs`, 7
 * rounds), and the server's integration on SQLite 0.37 × (1.33 against 3.34 µs an entry, 5
 * rounds: its log bench, part (c)): 48 to 63 % of the integration's CPU saved, where a
 * hand-written primitive stays only from 20 % (docs/decisions.md). Both benches print the ratio.
 */

import { SHA256_WASM } from './internal/sha256/module.js';

/**
 * RFC 6962 hashes of many messages in one call, which a backend may offer beside `sha256`:
 * where a call costs more than the one or two blocks a leaf or a node hashes, `integrate`
 * hashes its leaves, and each height's nodes, in one call each. Both give new arrays, and keep
 * nothing of their input (a buffer `integrate` reuses).
 */
export interface TreeHashing {
  /**
   * The leaf hashes SHA-256(0x00 ‖ entry) of `count` entries of `length` bytes each, one after
   * the other in `entries`: 32 × `count` bytes.
   */
  leafHashes(entries: Uint8Array, count: number, length: number): Uint8Array;
  /**
   * The node hashes SHA-256(0x01 ‖ left ‖ right) of `count` pairs of 32-byte hashes, one after
   * the other in `pairs` (left, then right): 32 × `count` bytes.
   */
  nodeHashes(pairs: Uint8Array, count: number): Uint8Array;
}

/** SHA-256 of one message, and the RFC 6962 leaf and node hashes of a batch, each a new array. */
export interface WasmTreeHashing extends TreeHashing {
  /** SHA-256 of `data` (at most 65,536 bytes: a `RangeError` beyond). */
  sha256(data: Uint8Array): Uint8Array;
}

interface Exports {
  readonly memory: { readonly buffer: ArrayBuffer };
  input(): number;
  output(): number;
  digest(count: number, length: number): void;
  prefixed(prefix: number, count: number, length: number): void;
}

/** The module's input and output areas, each of this many bytes (`IO_BYTES` in `sha256.c`). */
const IO_BYTES = 65_536;
const HASH = 32;

/**
 * The part of the WebAssembly API used here, from the global object: the package's types take
 * none of a runtime's (Node's and the DOM's declarations of it differ).
 */
function wasmApi(): {
  instantiate(bytes: Uint8Array): Promise<{ instance: { exports: unknown } }>;
} {
  const api = (globalThis as { WebAssembly?: unknown }).WebAssembly;
  if (api === undefined) throw new Error('this runtime has no WebAssembly');
  return api as ReturnType<typeof wasmApi>;
}

let made: Promise<WasmTreeHashing> | undefined;

/**
 * The module, instantiated once (asynchronously: a module of its size may not be compiled
 * synchronously in a browser's main thread); rejects where WebAssembly or its SIMD is missing.
 * Give it to {@link integrate} beside a `CryptoBackend` (`{ ...backend, ...hashing }`).
 */
export function wasmTreeHashing(): Promise<WasmTreeHashing> {
  made ??= instantiate();
  return made;
}

async function instantiate(): Promise<WasmTreeHashing> {
  const text = atob(SHA256_WASM);
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  const { instance } = await wasmApi().instantiate(bytes);
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
    if (!(data instanceof Uint8Array) || data.length !== count * length) {
      throw new TypeError(`sha256: expected ${count} messages of ${length} bytes`);
    }
    const out = new Uint8Array(count * HASH);
    // The module copies each message after its prefix byte into an area of IO_BYTES + 2048.
    const most = Math.min(IO_BYTES / HASH, Math.floor(IO_BYTES / (length + 1)));
    for (let done = 0; done < count; ) {
      const n = Math.min(most, count - done);
      memory.set(data.subarray(done * length, (done + n) * length), input);
      hash(n, length);
      out.set(memory.subarray(output, output + n * HASH), done * HASH);
      done += n;
    }
    return out;
  };

  return Object.freeze({
    sha256(data: Uint8Array): Uint8Array {
      if (!(data instanceof Uint8Array)) throw new TypeError('sha256: expected a Uint8Array');
      if (data.length > IO_BYTES) throw new RangeError('sha256: a message of more than 64 KiB');
      memory.set(data, input);
      x.digest(1, data.length);
      return memory.slice(output, output + HASH);
    },
    leafHashes: (entries: Uint8Array, count: number, length: number) =>
      batch(entries, count, length, (n, l) => x.prefixed(0x00, n, l)),
    nodeHashes: (pairs: Uint8Array, count: number) =>
      batch(pairs, count, 2 * HASH, (n, l) => x.prefixed(0x01, n, l)),
  });
}
