/**
 * The integrator's arithmetic, without I/O: from the log's head and right edge as the store
 * keeps them and the pending entries, the new head, the tiles of level 1 and above to store, and
 * the signed checkpoint (C2SP tlog-tiles and tlog-checkpoint, through `@wai-steering/tlog`). The
 * store runs it inside its transaction (`LogWrites.integrateLog`).
 */

import { hash } from 'node:crypto';
import {
  encodeEntryBundle,
  HASH_SIZE,
  integrate,
  type LogState,
  leafHash,
  type NoteSigner,
  signCheckpoint,
  type TreeHashing,
  type WasmTreeHashing,
  wasmTreeHashing,
} from '@wai-steering/tlog';
import { bytesEqual, type CryptoBackend } from '@wai-steering/wire';
import { nodeBackend } from '@wai-steering/wire/node';
import type { LogPlan, LogPlanInput } from '../store/store.js';

/**
 * The writer's SHA-256 once made: `wasmTreeHashing` of `@wai-steering/tlog` (WebAssembly), whose
 * instantiation is asynchronous, so it is made at import and `node:crypto`'s one-shot `hash`
 * answers until then (and for good where WebAssembly is unavailable). Both give the same digests. The writer hashes two small
 * messages an entry (its leaf, 41 bytes, and about one node, 65), where a call of `hash` or of
 * hash-wasm costs more than the one or two blocks it hashes; the module hashes a batch's leaves,
 * and each height's nodes, in one call (`TreeHashing`, docs/performance.md).
 */
let wasm: WasmTreeHashing | undefined;

/** Settles once the writer's SHA-256 is the WebAssembly module's, or its instantiation failed. */
export const writerHashReady: Promise<void> = wasmTreeHashing().then(
  (h) => {
    wasm = h;
  },
  () => {},
);

/**
 * `@wai-steering/wire`'s Node backend with the log writer's SHA-256 and batch hashing: the
 * WebAssembly module's once instantiated (`writerHashReady`), else `node:crypto`'s one-shot
 * `hash` without a copy (a Buffer, a Uint8Array the writer keeps as it is). Each call gives a
 * new array of its own.
 */
export const writerBackend: CryptoBackend & TreeHashing = Object.freeze({
  ...nodeBackend,
  sha256: (data: Uint8Array): Uint8Array =>
    wasm === undefined || data.length > 65_536 ? hash('sha256', data, 'buffer') : wasm.sha256(data),
  leafHashes: (entries: Uint8Array, count: number, length: number): Uint8Array =>
    wasm === undefined
      ? prefixedOneByOne(0x00, entries, count, length)
      : wasm.leafHashes(entries, count, length),
  nodeHashes: (pairs: Uint8Array, count: number): Uint8Array =>
    wasm === undefined ? prefixedOneByOne(0x01, pairs, count, 64) : wasm.nodeHashes(pairs, count),
});

/** SHA-256(prefix ‖ message) of `count` messages of `length` bytes, a `hash` call each. */
function prefixedOneByOne(
  prefix: number,
  data: Uint8Array,
  count: number,
  length: number,
): Uint8Array {
  const out = new Uint8Array(count * 32);
  const message = new Uint8Array(1 + length);
  message[0] = prefix;
  for (let i = 0; i < count; i++) {
    message.set(data.subarray(i * length, (i + 1) * length), 1);
    out.set(hash('sha256', message, 'buffer'), i * 32);
  }
  return out;
}

/** What signs the checkpoints: the log's origin and the steering key as a note signer. */
export interface LogSigning {
  readonly origin: string;
  readonly signer: NoteSigner;
  readonly backend?: CryptoBackend & Partial<TreeHashing>;
}

/**
 * The writer's state of a log of `size` entries from its stored edge: the partial bundle's
 * entries (`size mod 256` of them, whose leaf hashes are the partial tile of level 0) and the
 * partial tile of each level above.
 */
export function stateOf(
  size: bigint,
  edge: LogPlanInput['edge'],
  backend?: CryptoBackend,
): LogState {
  const width = Number(size % 256n);
  if (edge.entries.length !== width) {
    throw new Error(
      `the decision log's store holds ${edge.entries.length} entries of its last bundle, not ${width}`,
    );
  }
  const level0 = new Uint8Array(width * HASH_SIZE);
  edge.entries.forEach((e, i) => {
    level0.set(leafHash(e, backend), i * HASH_SIZE);
  });
  const partialTiles: Uint8Array[] = [level0];
  for (let level = 1; size >> BigInt(8 * level) > 0n; level++) {
    partialTiles.push(edge.tiles.get(level) ?? new Uint8Array(0));
  }
  return {
    size,
    partialTiles,
    partialBundle: width === 0 ? new Uint8Array(0) : encodeEntryBundle(edge.entries),
  };
}

/**
 * The writer's state of the log as of a plan, kept by an integrator between its runs: when the
 * stored head is still of its size and root (no other instance integrated since), the next plan
 * starts from it rather than from the stored edge (up to 255 leaf and 254 node hashes a level
 * spared; `@wai-steering/tlog`'s states keep their right edge). Keyed by root as well as size, a
 * state whose transaction rolled back never matches a head.
 */
export interface WriterMemo {
  last?: { readonly size: bigint; readonly root: Uint8Array; readonly state: LogState };
}

/**
 * The plan of one integration: the entries appended to the stored state, which must give the
 * stored root first (a store whose edge does not is damaged: an error, nothing written); the
 * entry bundles and tiles of level ≥ 1 the batch completed or changed; a checkpoint signed at `issued` when the
 * store says the batch is complete and the tree is not the latest checkpoint's already.
 */
export function planIntegration(
  input: LogPlanInput,
  signing: LogSigning,
  issued: bigint,
  memo?: WriterMemo,
): LogPlan {
  const { head } = input;
  const backend = signing.backend;
  const last = memo?.last;
  let state: LogState;
  if (last !== undefined && last.size === head.size && bytesEqual(last.root, head.root)) {
    state = last.state;
  } else {
    const before = integrate(stateOf(head.size, input.edge, backend), [], backend);
    if (!bytesEqual(before.root, head.root)) {
      throw new Error(
        `the decision log's stored tiles do not give its root at size ${head.size}: the store is damaged`,
      );
    }
    state = before.state;
  }
  const step = integrate(state, input.entries, backend);
  if (memo !== undefined) memo.last = { size: step.size, root: step.root, state: step.state };
  const bundles = step.bundles.map((b) => ({ index: b.tile.index, data: b.data }));
  const tiles: { level: number; index: bigint; data: Uint8Array }[] = [];
  for (const t of step.tiles) {
    if (typeof t.tile.level === 'number' && t.tile.level >= 1) {
      tiles.push({ level: t.tile.level, index: t.tile.index, data: t.data });
    }
  }
  const sign = input.complete && (input.entries.length > 0 || input.checkpointed !== step.size);
  return {
    size: step.size,
    root: step.root,
    bundles,
    tiles,
    ...(sign
      ? {
          checkpoint: {
            issued,
            text: signCheckpoint(
              { origin: signing.origin, size: step.size, root: step.root, extensions: [] },
              [signing.signer],
            ),
          },
        }
      : {}),
  };
}
