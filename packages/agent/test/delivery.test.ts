import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Courier, httpTransport, Spool } from '../src/index.js';
import { onCleanup, recordOf, upServer } from './helpers/rig.js';
import { makeRoom, type TestRoom, tempDir } from './helpers/room.js';

const itemOf = (room: TestRoom, k: bigint) => recordOf(room, k).item;

/** An HTTP server that answers each POST with the next status of `statuses` (then 201). */
async function scripted(statuses: number[]): Promise<{ url: string; posts: number }> {
  const state = { url: '', posts: 0 };
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      state.posts++;
      const status = statuses.shift() ?? 201;
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(status === 400 ? '{"reason":"wrong_room"}' : '{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  onCleanup(() => new Promise((r) => server.close(() => r())));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return state;
}

function courier(server: string, spool: Spool, log: Record<string, unknown>[] = []): Courier {
  const c = new Courier({
    server,
    spool,
    transport: httpTransport(),
    initialBackoffMs: 10,
    maxBackoffMs: 100,
    log: (l) => log.push(l),
  });
  onCleanup(() => c.stop());
  return c;
}

describe('a courier', () => {
  it('sends a record pushed just after its worker found nothing to send', async () => {
    const room = makeRoom([['energy/ModelBased', 'live/hop']]);
    const server = await upServer(room);
    const spool = new Spool(join(tempDir(), 'spool'), [server.url]);
    const c = courier(server.url, spool);
    c.kick(); // nothing to send: its loop ends
    const item = itemOf(room, 0n);
    spool.add(item, undefined);
    c.push(item); // before that loop has quite ended
    await c.settled(item.name);
    expect([c.outcome(item.name), c.sent, c.pending]).toEqual(['taken', 1, 0]);
    expect(server.received.map((r) => r.status)).toEqual([201]);
  });

  it('retries a 503 and a 429 with backoff, said once; a 400 is refused and the next is sent', async () => {
    const room = makeRoom([['energy/ModelBased', 'live/hop']]);
    const s = await scripted([503, 429, 201, 400]);
    const spool = new Spool(join(tempDir(), 'spool'), [s.url]);
    const log: Record<string, unknown>[] = [];
    const c = courier(s.url, spool, log);
    const [a, b, d] = [0n, 1n, 2n].map((k) => itemOf(room, k));
    for (const i of [a!, b!, d!]) {
      spool.add(i, undefined);
      c.push(i);
    }
    await c.settled(d!.name);
    expect([a, b, d].map((i) => c.outcome(i!.name))).toEqual(['taken', 'refused', 'taken']);
    expect([s.posts, c.sent, c.refused, c.errors]).toEqual([5, 2, 1, 2]);
    expect(log.map((l) => l.msg)).toEqual([
      'server not taking records; retrying with backoff',
      'server back',
      'record refused',
    ]);
    expect(log[2]).toMatchObject({ status: 400, reason: 'wrong_room', record: b!.name });
    expect(spool.refusedNames()).toEqual([b!.name]);
    expect(spool.doneNames()).toEqual([a!.name, b!.name, d!.name]);
  });
});
