/**
 * The room a server steers (companion C6): its descriptor and its origin's key log head, which
 * records and policies are verified against, kept in the store (a verifier fetches them, and
 * they outlive a configuration change) and served by room id. The head moves forward when the
 * origin appends to its key log (`guard/key-log.ts` decides whether a head may replace another).
 */
import type { RoomContext } from '@wai-steering/verifier';
import { bytesEqual, type CryptoBackend, digestOf } from '@wai-steering/wire';
import type { BlobStore } from '../store/store.js';
import type { KeyLogResult, ReadResult } from './types.js';

const ABSENT: ReadResult = Object.freeze({ kind: 'absent' });

export class RoomState {
  private context_: RoomContext;

  constructor(
    context: RoomContext,
    private readonly descriptor: Uint8Array,
    private keyLogBytes: Uint8Array | null,
    private readonly store: BlobStore,
    private readonly backend: CryptoBackend,
  ) {
    this.context_ = context;
  }

  /** The room with its key log head in use. */
  get context(): RoomContext {
    return this.context_;
  }

  /** Keeps the descriptor and the head in use in the store. */
  async keep(): Promise<void> {
    await this.store.putBlob('room', this.context_.roomId, this.descriptor);
    await this.keepKeyLog(this.context_, this.keyLogBytes);
  }

  /** Replaces the room context (a new key log head, verified by the caller with `openRoom`). */
  async replace(context: RoomContext, keyLogBytes: Uint8Array | null): Promise<void> {
    if (!bytesEqual(context.roomId, this.context_.roomId)) {
      throw new TypeError('replaceRoom: the room is not the one the engine serves');
    }
    await this.keepKeyLog(context, keyLogBytes);
    this.context_ = context;
    this.keyLogBytes = keyLogBytes;
  }

  private async keepKeyLog(context: RoomContext, bytes: Uint8Array | null): Promise<void> {
    if (bytes === null || context.keyLog === undefined) return;
    await this.store.putBlob('key-log', digestOf(context.keyLog, this.backend), bytes);
  }

  /** The descriptor of the room of an id, when it is this room. */
  descriptorOf(roomId: Uint8Array): ReadResult {
    if (!bytesEqual(roomId, this.context_.roomId)) return ABSENT;
    return { kind: 'found', bytes: this.descriptor };
  }

  /** The key log head in use of the room of an id, when it is this room. */
  keyLogHeadOf(roomId: Uint8Array): KeyLogResult {
    if (!bytesEqual(roomId, this.context_.roomId)) return ABSENT;
    if (this.keyLogBytes === null || this.context_.keyLog === undefined)
      return { kind: 'no_key_log' };
    return { kind: 'found', bytes: this.keyLogBytes };
  }
}
