import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openRoom, type RoomContext } from '@wai-steering/verifier';
import {
  CLASS_LABEL,
  compareBytes,
  type KeyLogEntry,
  readRoom,
  roomIdOf,
  secretKeyToJwk,
  signKeyLog,
  signRoom,
  unwrap,
} from '@wai-steering/wire';
import { nodeBackend } from '@wai-steering/wire/node';
import { afterAll } from 'vitest';
import type { HopKey } from '../../src/index.js';

export function newKey(): HopKey {
  const secretKey = new Uint8Array(randomBytes(32));
  return { secretKey, publicKey: nodeBackend.publicKey(secretKey) };
}

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true, maxRetries: 5 });
});

/** A temporary directory, removed after the file's tests. */
export function tempDir(prefix = 'wai-agent-'): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(d);
  return d;
}

/** A free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** A room with an origin, and a key log granting each hop `live/hop` and its `may_sign`. */
export interface TestRoom {
  readonly roomBytes: Uint8Array;
  readonly keyLogBytes: Uint8Array;
  readonly roomId: Uint8Array;
  readonly ctx: RoomContext;
  readonly hops: readonly HopKey[];
  /** Writes room.wrd, key-log.wkl and keys/hop<i>.jwk into `dir`. */
  write(dir: string): void;
}

export function makeRoom(grants: readonly (readonly string[])[]): TestRoom {
  const authority = newKey();
  const origin = newKey();
  const hops = grants.map(() => newKey());
  const roomBytes = signRoom(
    { authority: authority.publicKey, origin: origin.publicKey, name: 'agent test' },
    authority.secretKey,
    { backend: nodeBackend },
  );
  const roomId = roomIdOf(unwrap(readRoom(roomBytes)), nodeBackend);
  const energy = [2, 3, 4, 5].map((c) => `energy/${CLASS_LABEL[c]}`);
  const entries: KeyLogEntry[] = [
    { key: authority.publicKey, status: 1, may_sign: ['live/room', ...energy].sort() },
    ...hops.map((h, i) => ({ key: h.publicKey, status: 1, may_sign: [...grants[i]!].sort() })),
  ];
  entries.sort((x, y) => compareBytes(x.key, y.key));
  const keyLogBytes = signKeyLog(
    { origin: origin.publicKey, seq: 0n, prev: new Uint8Array(32), entries },
    origin.secretKey,
    { backend: nodeBackend },
  );
  const ctx = unwrap(openRoom(roomBytes, keyLogBytes, { backend: nodeBackend }));
  return {
    roomBytes,
    keyLogBytes,
    roomId,
    ctx,
    hops,
    write(dir) {
      writeFileSync(join(dir, 'room.wrd'), roomBytes);
      writeFileSync(join(dir, 'key-log.wkl'), keyLogBytes);
      hops.forEach((h, i) => {
        writeFileSync(
          join(dir, `hop${i}.jwk`),
          JSON.stringify(secretKeyToJwk(h.secretKey, nodeBackend)),
        );
      });
    },
  };
}

/** A clock the test sets: µs since the epoch. */
export class ManualClock {
  constructor(public us: bigint) {}
  readonly now = (): bigint => this.us;
  set(us: bigint): void {
    this.us = us;
  }
  advance(us: bigint): void {
    this.us += us;
  }
}
