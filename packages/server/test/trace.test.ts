// The traces on node:diagnostics_channel (`src/trace.ts`): nothing is published while nobody
// subscribes; a subscriber gets each request's times in order, each group commit, and the other
// work named.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { describe, expect, it } from 'vitest';
import {
  type CommitTrace,
  type RequestTrace,
  traced,
  tracedAsync,
  type WorkTrace,
} from '../src/trace.js';
import { useDemoServer } from './helpers/setup.js';

describe('traces', () => {
  const running = useDemoServer();

  it('publishes a steering request’s times in order, and its group commit', async () => {
    const requests: RequestTrace[] = [];
    const commits: CommitTrace[] = [];
    const onRequest = (m: unknown) => requests.push(m as RequestTrace);
    const onCommit = (m: unknown) => commits.push(m as CommitTrace);
    subscribe('wai-steering:request', onRequest);
    subscribe('wai-steering:commit', onCommit);
    try {
      const res = await fetch(`${running.server.url}/steer?_HLS_pathway=cdn-a`);
      expect(res.status).toBe(200);
      await res.text();
      for (let i = 0; i < 1000 && requests.length === 0; i++) {
        await new Promise((done) => setImmediate(done));
      }
    } finally {
      unsubscribe('wai-steering:request', onRequest);
      unsubscribe('wai-steering:commit', onCommit);
    }
    expect(requests).toHaveLength(1);
    const r = requests[0]!;
    expect(r.status).toBe(200);
    const times = [r.parsed, r.handled, r.answered, r.written, r.gone];
    expect([...times].sort((x, y) => x - y)).toEqual(times);
    expect(r.socket.remotePort).toBeGreaterThan(0);
    // The decision's commit began after it was queued and ended before its answer was ready.
    const c = commits.find((x) => x.start >= r.handled && x.end <= r.answered);
    expect(c?.size).toBeGreaterThanOrEqual(1);
  });

  it('publishes traced work with its name, and nothing while nobody subscribes', () => {
    const work: WorkTrace[] = [];
    expect(traced('alone', () => 7)).toBe(7);
    const on = (m: unknown) => work.push(m as WorkTrace);
    subscribe('wai-steering:work', on);
    try {
      expect(traced('part', () => 8)).toBe(8);
      expect(() =>
        traced('failing', () => {
          throw new Error('no');
        }),
      ).toThrow('no');
    } finally {
      unsubscribe('wai-steering:work', on);
    }
    expect(work.map((w) => w.name)).toEqual(['part', 'failing']);
    expect(work[0]!.end).toBeGreaterThanOrEqual(work[0]!.start);
  });

  it('publishes asynchronous work (an energy account) from its start to its end', async () => {
    const work: WorkTrace[] = [];
    expect(await tracedAsync('alone', async () => 7)).toBe(7);
    const on = (m: unknown) => work.push(m as WorkTrace);
    subscribe('wai-steering:work', on);
    try {
      const turns = tracedAsync('turns', async () => {
        for (let i = 0; i < 3; i++) await new Promise((turn) => setImmediate(turn));
        return 9;
      });
      expect(work).toHaveLength(0);
      expect(await turns).toBe(9);
      const res = await fetch(`${running.server.url}/energy`);
      await res.text();
    } finally {
      unsubscribe('wai-steering:work', on);
    }
    const names = work.map((w) => w.name);
    expect(names).toContain('turns');
    expect(names).toContain('energy-account');
    expect(names).not.toContain('alone');
    const turns = work.find((w) => w.name === 'turns')!;
    expect(turns.end).toBeGreaterThanOrEqual(turns.start);
  });
});
