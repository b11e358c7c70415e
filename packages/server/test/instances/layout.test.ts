// The layout loads are exchanged under: a peer's counts read by pathway ID, whatever the order
// and the pathways of its policy, across a rotation; a peer of another room is not counted; and
// the workers' hub sums the others' counts under the beating worker's layout.
import { describe, expect, it } from 'vitest';
import { LoadsHub } from '../../src/instances/ipc-loads.js';
import { layoutOf, underLayout } from '../../src/instances/layout.js';

const room = new Uint8Array(32).fill(4);
const other = new Uint8Array(32).fill(5);
const text = (b: Uint8Array) => new TextDecoder().decode(b);

describe('layouts', () => {
  it('reads a peer’s counts by pathway ID: one the peer lacks is 0, one this one lacks left out', () => {
    const mine = layoutOf(room, ['cdn-b', 'cdn-c', 'cdn-a']);
    const theirs = layoutOf(room, ['cdn-a', 'cdn-b', 'cdn-d']);
    expect(underLayout(mine, theirs, [5, 7, 9])).toEqual([7, 0, 5]);
    expect(underLayout(mine, mine, ['3', '4', '5'])).toEqual([3, 4, 5]);
    expect(underLayout(mine, layoutOf(other, ['cdn-b']), [1])).toBeUndefined();
    // A layout of another form (the SHA-256 of a release before) adds up only with itself.
    const hashed = new Uint8Array(32).fill(9);
    expect(underLayout(hashed, hashed, [1, 2])).toEqual([1, 2]);
    expect(underLayout(mine, hashed, [1, 2])).toBeUndefined();
  });

  it('sums the other workers’ counts under the beating worker’s layout', () => {
    const hub = new LoadsHub(100, 4, 2);
    const before = text(layoutOf(room, ['cdn-a', 'cdn-b', 'cdn-c']));
    const after = text(layoutOf(room, ['cdn-b', 'cdn-d']));
    expect(hub.beat(0, { wai: 'loads', counts: [3, 4, 5], layout: before }, 0)).toMatchObject({
      counts: [0, 0, 0],
      starting: 1,
    });
    // Worker 1 under the policy after a rotation: worker 0's cdn-b counts, cdn-a and cdn-c not.
    expect(hub.beat(1, { wai: 'loads', counts: [1, 2], layout: after }, 10)).toMatchObject({
      counts: [4, 0],
      starting: 0,
    });
    expect(hub.beat(0, { wai: 'loads', counts: [3, 4, 5], layout: before }, 20)).toMatchObject({
      counts: [0, 1, 0],
      starting: 0,
    });
  });

  it('counts a dead worker’s loads until its place beats again, and tells a starting one', () => {
    const hub = new LoadsHub(100, 4, 2);
    hub.beat(0, { wai: 'loads', counts: [2] }, 0);
    hub.beat(1, { wai: 'loads', counts: [3] }, 0);
    hub.hold(1, 0);
    // Long past its heartbeat: still counted, and its place is starting.
    expect(hub.beat(0, { wai: 'loads', counts: [2] }, 5000)).toMatchObject({
      counts: [3],
      starting: 1,
    });
    // The worker started in its place, once it has rebuilt its table, beats: it replaces it.
    expect(hub.beat(1, { wai: 'loads', counts: [4] }, 5010)).toMatchObject({
      counts: [2],
      starting: 0,
    });
    expect(hub.beat(0, { wai: 'loads', counts: [2] }, 5020)).toMatchObject({
      counts: [4],
      starting: 0,
    });
    // One gone for good (the server stopping) no longer counts.
    hub.drop(1);
    expect(hub.beat(0, { wai: 'loads', counts: [2] }, 5030)).toMatchObject({ counts: [0] });
  });
});
