// The demo (`wai-steer demo`): a fresh room, the steering server and hop agents with simulated
// sources; every manifest verifies from what the server serves over HTTP.
import { windowAt } from '@wai-steering/evidence';
import {
  FetchError,
  type FetchFunction,
  fetchAndVerify,
  RoomPinError,
  VerifierCache,
} from '@wai-steering/verifier';
import { readRoom, toHex, unwrap } from '@wai-steering/wire';
import { nodeBackend } from '@wai-steering/wire/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningDemo, runDemo } from '../src/internal/demo.js';
import { freePort, tempDir } from './helpers.js';

describe('the demo', () => {
  let demo: RunningDemo;
  const refusals: string[] = [];
  beforeAll(async () => {
    demo = await runDemo({
      dir: tempDir(),
      port: await freePort(),
      periodMs: 500,
      onPeriod: (_end, refused) => refusals.push(...refused),
    });
  });
  afterAll(async () => {
    await demo?.close();
  });

  it('prints the HLS tag and the DASH element of its policy, naming its initial pathway', () => {
    expect(demo.hlsTag).toBe(
      `#EXT-X-CONTENT-STEERING:SERVER-URI="${demo.steeringUrl}",PATHWAY-ID="cdn-a"`,
    );
    expect(demo.dashElement).toBe(
      `<ContentSteering defaultServiceLocation="cdn-a" queryBeforeStart="true">${demo.steeringUrl}</ContentSteering>`,
    );
  });

  it('serves manifests whose every decision verifies from what the server serves over HTTP', {
    timeout: 300_000,
  }, async () => {
    const cache = new VerifierCache();
    const queries = [
      '',
      '?_HLS_pathway="cdn-a"&_HLS_throughput=9000000',
      '?_HLS_pathway="cdn-b-east"&_HLS_throughput=700000',
      '?_DASH_pathway="cdn-b"&_DASH_throughput=5000000',
      '?CMCD=bl%3D1000%2Cmtp%3D8000',
      '?_HLS_pathway=cdn-b&CMCD=bl%3D30000',
    ];
    const reasons = new Set<string>();
    const statuses = new Set<string>();
    let reload: string | undefined;
    // Over several periods, so that the window moves under the requests: each round waits for
    // the window to move (however late a busy machine makes it), not for a time; at least 4
    // rounds, and more while the hops' records have not yet reached a window (their agents are
    // late on a busy machine), up to a generous ceiling.
    const windowNow = () => windowAt(demo.setup.policy, demo.server.engine.now()).a;
    const covered = () =>
      ['cdn-a:figure', 'cdn-b:figure', 'cdn-b-east:unmetered'].every((s) => statuses.has(s));
    for (let round = 0; round < 4 || (round < 120 && !covered()); round++) {
      const moved = windowNow();
      for (const q of queries) {
        const url = reload !== undefined && q === '' ? reload : `${demo.steeringUrl}${q}`;
        const r = await fetchAndVerify(url, { backend: nodeBackend, cache });
        expect(r.outcome, `${url}: ${JSON.stringify(r.outcome)}`).toMatchObject({
          outcome: 'accept',
        });
        expect(r.missing).toEqual([]);
        if (r.outcome.outcome === 'accept') {
          reasons.add(r.outcome.reason);
          for (const p of r.outcome.pathways) statuses.add(`${p.id}:${p.status}`);
          reload = JSON.parse(r.manifest!)['RELOAD-URI'];
          // The decision URI verifies alone too (no manifest).
          const again = await fetchAndVerify(r.decisionUri, {
            backend: nodeBackend,
            cache,
          });
          expect(again.outcome.outcome).toBe('accept');
          expect(again.manifest).toBeNull();
        }
      }
      for (let i = 0; i < 3000 && windowNow() === moved; i++) {
        await new Promise((done) => setTimeout(done, 20));
      }
      expect(windowNow()).not.toBe(moved);
    }
    expect(refusals).toEqual([]);
    // Real evidence: the metered pathways have figures, the one with the unmetered hop has none.
    expect(statuses).toContain('cdn-a:figure');
    expect(statuses).toContain('cdn-b:figure');
    expect(statuses).toContain('cdn-b-east:unmetered');
    expect(reasons.size).toBeGreaterThan(1);
  });

  it('verifies against a pinned room, and names the room and authority it trusted', async () => {
    const roomHex = toHex(demo.setup.roomId);
    const authority = toHex(unwrap(readRoom(demo.setup.roomBytes)).authority);
    const pinned = await fetchAndVerify(demo.steeringUrl, { roomId: roomHex.toUpperCase() });
    expect(pinned.outcome.outcome).toBe('accept');
    expect(pinned.roomId).toBe(roomHex);
    expect(pinned.authority).toBe(authority);
    const named = await fetchAndVerify(demo.steeringUrl);
    expect(named.roomId).toBe(roomHex);
    // A room the server does not serve: it serves another, and says which.
    const other = 'ab'.repeat(32);
    await expect(fetchAndVerify(demo.steeringUrl, { roomId: other })).rejects.toThrow(FetchError);
    await expect(fetchAndVerify(demo.steeringUrl, { roomId: other })).rejects.toThrow(
      `this server serves room ${roomHex}, not ${other}`,
    );
    // A server that answers the pinned id with another room's descriptor is refused by name.
    const lying: FetchFunction = (url, init) =>
      fetch(url.replace(other, roomHex), init as RequestInit);
    const lie = fetchAndVerify(demo.steeringUrl, { roomId: other, fetch: lying });
    await expect(lie).rejects.toBeInstanceOf(RoomPinError);
    await expect(lie).rejects.toThrow(`not the pinned room ${other}`);
    await expect(fetchAndVerify(demo.steeringUrl, { roomId: 'xyz' })).rejects.toThrow(TypeError);
  });

  it('verifies the bytes of a manifest a player received', async () => {
    const bytes = new Uint8Array(await (await fetch(demo.steeringUrl)).arrayBuffer());
    const r = await fetchAndVerify({ manifest: bytes });
    expect(r.outcome.outcome).toBe('accept');
    const altered = new TextEncoder().encode(
      new TextDecoder().decode(bytes).replace('"TTL":', '"TTL":1'),
    );
    const bad = await fetchAndVerify({ manifest: altered });
    expect(bad.outcome).toMatchObject({ outcome: 'refuse' });
  });

  it('names the cause of a network failure', async () => {
    const port = await freePort(); // closed again: nothing listens there
    const failed = fetchAndVerify(`http://127.0.0.1:${port}/steer`, { timeoutMs: 2000 });
    await expect(failed).rejects.toThrow(`(ECONNREFUSED 127.0.0.1:${port})`);
  });
});

// `--fill-site`: a simulated edge site reports one slot fewer each period, the server keeps the
// pathway's capacity in step, and once it binds new sessions go elsewhere.
describe('demo --fill-site', () => {
  let demo: RunningDemo | undefined;
  afterAll(async () => {
    await demo?.close();
  });

  it('fills cdn-b up until the limits send new sessions elsewhere', {
    timeout: 300_000,
  }, async () => {
    const reports: number[] = [];
    const refused: string[] = [];
    demo = await runDemo({
      dir: tempDir(),
      port: await freePort(),
      periodMs: 200,
      fillSite: 'cdn-b',
      onReport: (gas, status, body) => {
        if (status !== 200 && status !== 201) refused.push(`${gas}: ${status} ${body}`);
        reports.push(gas);
      },
    });
    const engine = demo.server.engine;
    // 12 slots at first, one fewer each period: down to 0 within 13 periods (2.6 s, or minutes
    // on a busy machine, each report answered before the next is sent): the report of 0 slots
    // answered, and the capacity in force 0.
    const done = () => reports.includes(0) && engine.policy.pathways[1]!.capacity === 0;
    for (let i = 0; i < 2400 && !done() && refused.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 100));
    }
    expect({ reports, refused, capacity: engine.policy.pathways[1]!.capacity }).toMatchObject({
      reports: expect.arrayContaining([0]),
      refused: [],
      capacity: 0,
    });
    expect(reports.slice(0, 3)).toEqual([12, 11, 10]);
    expect(refused).toEqual([]);
    // With cdn-b's capacity 0, no new session is placed there first.
    for (let i = 0; i < 10; i++) {
      const res = await fetch(`${demo.steeringUrl}?_HLS_throughput=5000000`);
      const m = (await res.json()) as { 'PATHWAY-PRIORITY': string[] };
      expect(m['PATHWAY-PRIORITY'][0]).not.toBe('cdn-b');
    }
  });
});
