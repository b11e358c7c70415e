// The network verifier on a fetch that serves a steering world from memory: what it fetches,
// what it trusts, and how it fails.
import {
  digestOf,
  readDecision,
  readHopRecord,
  readRoom,
  roomIdOf,
  signRoom,
  toHex,
  unwrap,
} from '@wai-steering/wire';
import { describe, expect, it } from 'vitest';
import {
  FetchError,
  type FetchFunction,
  type FetchResponse,
  fetchAndVerify,
  RoomPinError,
} from '../src/index.js';
import { decide, keys, makeWorld, pub } from './helpers/world.js';

const ORIGIN = 'https://steer.example';

function response(status: number, bytes: Uint8Array = new Uint8Array(0)): FetchResponse {
  return {
    ok: status >= 200 && status < 300,
    status,
    headers: { get: () => 'application/octet-stream' },
    arrayBuffer: async () => bytes.slice().buffer,
  };
}

/** A server of the world: every path a verifier fetches, and a log of what was fetched. */
function serve(
  world: ReturnType<typeof makeWorld>,
  made: ReturnType<typeof decide>,
  options: { roomHex?: string; drop?: string } = {},
) {
  const roomHex = options.roomHex ?? toHex(world.roomId);
  const paths = new Map<string, Uint8Array>([
    ['/steer.json', new TextEncoder().encode(made.manifest)],
    [`/decisions/${toHex(made.digest)}`, made.decision],
    [`/policies/${toHex(world.policyDigest)}`, world.policy],
    [`/rooms/${roomHex}/descriptor`, world.room],
    [`/rooms/${roomHex}/key-log`, world.keyLog],
  ]);
  for (const r of world.records) {
    paths.set(`/records/${toHex(digestOf(unwrap(readHopRecord(r))))}`, r);
  }
  if (options.drop !== undefined) paths.delete(options.drop);
  const fetched: string[] = [];
  const fetch: FetchFunction = async (url) => {
    fetched.push(url);
    const u = new URL(url);
    const bytes = u.origin === ORIGIN ? paths.get(u.pathname) : undefined;
    return bytes === undefined ? response(404) : response(200, bytes);
  };
  return { fetch, fetched };
}

describe('fetchAndVerify', () => {
  const world = makeWorld();
  const made = decide(world);
  const roomHex = toHex(world.roomId);

  it('verifies a steering URL: the manifest, its decision, and what the decision names', async () => {
    const { fetch, fetched } = serve(world, made);
    const r = await fetchAndVerify(`${ORIGIN}/steer.json`, { fetch });
    expect(r.outcome.outcome).toBe('accept');
    expect(r.decisionUri).toBe(`${ORIGIN}/decisions/${toHex(made.digest)}`);
    expect(r.decision).toEqual(made.decision);
    expect(r.manifest).toBe(made.manifest);
    expect(r.policy).toEqual(world.policy);
    expect(r.missing).toEqual([]);
    // The records it fetched: every one the decision names, as the server serves them.
    const named = unwrap(readDecision(made.decision)).pathways.flatMap((p) =>
      p.evidence.map(toHex),
    );
    const held = r.records.map((b) => toHex(digestOf(unwrap(readHopRecord(b)))));
    expect(held.sort()).toEqual([...new Set(named)].sort());
    expect(r.roomId).toBe(roomHex);
    expect(r.authority).toHaveLength(64);
    expect(fetched).toContain(`${ORIGIN}/rooms/${roomHex}/descriptor`);
  });

  it('verifies a decision URI alone, and a manifest given as bytes', async () => {
    const { fetch } = serve(world, made);
    const alone = await fetchAndVerify(`${ORIGIN}/decisions/${toHex(made.digest)}`, { fetch });
    expect(alone.outcome.outcome).toBe('accept');
    expect(alone.manifest).toBeNull();
    const bytes = new TextEncoder().encode(made.manifest);
    const given = await fetchAndVerify({ manifest: bytes }, { fetch });
    expect(given.outcome.outcome).toBe('accept');
    // §9.1 step 7 compares the manifest's bytes: one byte more is refused.
    const longer = new TextEncoder().encode(`${made.manifest} `);
    const refused = await fetchAndVerify({ manifest: longer }, { fetch });
    expect(refused.outcome).toMatchObject({ outcome: 'refuse', reason: 'manifest_mismatch' });
  });

  it('refuses a manifest that names a member twice, where JSON.parse would keep the last', async () => {
    const { fetch } = serve(world, made);
    const twice = made.manifest.replace(/^\{/, '{"science.transaction.wai-decision":"/elsewhere",');
    expect(twice).not.toEqual(made.manifest);
    const r = fetchAndVerify({ manifest: new TextEncoder().encode(twice) }, { fetch });
    await expect(r).rejects.toBeInstanceOf(FetchError);
    await expect(r).rejects.toThrow(
      'a steering manifest that does not read: the name "science.transaction.wai-decision" is given twice in one object',
    );
  });

  it('says record_missing for a record the server does not hold', async () => {
    const first = toHex(digestOf(unwrap(readHopRecord(world.records[0]!))));
    const { fetch } = serve(world, made, { drop: `/records/${first}` });
    const r = await fetchAndVerify(`${ORIGIN}/steer.json`, { fetch });
    expect(r.missing).toEqual([first]);
    expect(r.outcome).toMatchObject({ outcome: 'refuse', reason: 'record_missing' });
  });

  it('fetches the pinned room, and refuses a descriptor of another room for it', async () => {
    const { fetch } = serve(world, made);
    const pinned = await fetchAndVerify(`${ORIGIN}/steer.json`, {
      fetch,
      roomId: roomHex.toUpperCase(),
    });
    expect(pinned.outcome.outcome).toBe('accept');
    expect(pinned.roomId).toBe(roomHex);
    const other = 'cd'.repeat(32);
    // The server answers the pinned id with this world's room: never verified against.
    const lying = serve(world, made, { roomHex: other });
    const lie = fetchAndVerify(`${ORIGIN}/steer.json`, { fetch: lying.fetch, roomId: other });
    await expect(lie).rejects.toBeInstanceOf(RoomPinError);
    await expect(lie).rejects.toThrow(`is of room ${roomHex}, not the pinned room ${other}`);
    await expect(
      fetchAndVerify(`${ORIGIN}/steer.json`, { fetch, roomId: new Uint8Array(3) }),
    ).rejects.toThrow(TypeError);
  });

  it('refuses a decision of another room than the pinned one', async () => {
    const another = signRoom(
      { authority: pub(keys.authority), origin: pub(keys.origin), name: 'another room' },
      keys.authority,
    );
    const otherHex = toHex(roomIdOf(unwrap(readRoom(another))));
    const { fetch } = serve(world, made);
    const both: FetchFunction = async (url, init) => {
      if (url.endsWith(`/rooms/${otherHex}/descriptor`)) return response(200, another);
      if (url.endsWith(`/rooms/${otherHex}/key-log`)) return response(200, world.keyLog);
      return fetch(url, init);
    };
    const r = await fetchAndVerify(`${ORIGIN}/steer.json`, { fetch: both, roomId: otherHex });
    expect(r.outcome).toMatchObject({ outcome: 'refuse', reason: 'wrong_room' });
    expect(r.roomId).toBe(otherHex);
    // A server without the pinned room serves another: said so, not as a 404.
    const elsewhere = fetchAndVerify(`${ORIGIN}/steer.json`, { fetch, roomId: otherHex });
    await expect(elsewhere).rejects.toBeInstanceOf(RoomPinError);
    await expect(elsewhere).rejects.toThrow(
      new RegExp(`^this server serves room ${roomHex}, not ${otherHex}: `),
    );
    await expect(elsewhere).rejects.toMatchObject({ pinned: otherHex, served: roomHex });
  });

  it('fails with a FetchError naming the URL, the status, or the network cause', async () => {
    const { fetch } = serve(world, made, { drop: `/policies/${toHex(world.policyDigest)}` });
    await expect(fetchAndVerify(`${ORIGIN}/steer.json`, { fetch })).rejects.toThrow(
      `GET ${ORIGIN}/policies/${toHex(world.policyDigest)}: HTTP 404`,
    );
    const refused: FetchFunction = async () => {
      throw new TypeError('fetch failed', {
        cause: Object.assign(new Error('connect ECONNREFUSED'), {
          code: 'ECONNREFUSED',
          address: '127.0.0.1',
          port: 9,
        }),
      });
    };
    const down = fetchAndVerify('http://127.0.0.1:9/steer', { fetch: refused });
    await expect(down).rejects.toBeInstanceOf(FetchError);
    await expect(down).rejects.toThrow(
      'GET http://127.0.0.1:9/steer: fetch failed (ECONNREFUSED 127.0.0.1:9)',
    );
    await expect(fetchAndVerify('not a url', { fetch })).rejects.toThrow('not an absolute URL');
  });
});
