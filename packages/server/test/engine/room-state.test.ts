// The room a server steers: kept in the store, served by its id only, its key log head replaced
// by one of the same room only.
import { nodeBackend } from '@wai-steering/wire/node';
import { afterEach, describe, expect, it } from 'vitest';
import { RoomState } from '../../src/engine/room-state.js';
import { SqliteStore } from '../../src/store/sqlite/index.js';
import { demoApp } from '../helpers/setup.js';

type Ctx = Awaited<ReturnType<typeof demoApp>>;
let ctx: Ctx | undefined;
afterEach(async () => {
  await ctx?.close();
  ctx = undefined;
});

describe('RoomState', () => {
  it('keeps the descriptor and the head, and serves them by the room id alone', async () => {
    ctx = await demoApp();
    const { setup, materials } = ctx;
    const store = new SqliteStore(':memory:');
    try {
      const room = new RoomState(
        materials.room,
        setup.roomBytes,
        setup.keyLogBytes,
        store,
        nodeBackend,
      );
      await room.keep();
      expect(await store.getBlob('room', setup.roomId)).toEqual(setup.roomBytes);
      expect(room.descriptorOf(setup.roomId)).toEqual({ kind: 'found', bytes: setup.roomBytes });
      expect(room.keyLogHeadOf(setup.roomId)).toEqual({ kind: 'found', bytes: setup.keyLogBytes });
      const other = new Uint8Array(32).fill(9);
      expect(room.descriptorOf(other)).toEqual({ kind: 'absent' });
      expect(room.keyLogHeadOf(other)).toEqual({ kind: 'absent' });
      await expect(room.replace({ ...materials.room, roomId: other }, null)).rejects.toThrow(
        TypeError,
      );
      // A room without its key log head: there is none to serve.
      await room.replace({ ...materials.room, keyLog: undefined }, null);
      expect(room.keyLogHeadOf(setup.roomId)).toEqual({ kind: 'no_key_log' });
    } finally {
      await store.close();
    }
  });
});
