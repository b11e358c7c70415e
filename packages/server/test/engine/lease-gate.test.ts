// The leases' part of deciding: without leases the loads are the own plus the peers'; with a
// lease, a pathway held to the full states its capacity and, while slots may be free elsewhere,
// asks for a take first (the decisions waiting counted), up to three times.
import { NO_CAPACITY_LIMIT } from '@wai-steering/wire';
import { describe, expect, it } from 'vitest';
import { LeaseGate, MAX_TAKES } from '../../src/engine/lease-gate.js';
import type { PeerLoads } from '../../src/instances/loads.js';

/** Peers of these loads and this lease; records the takes asked for. */
function peersOf(peers: number[], lease: number[] | undefined) {
  const takes: number[] = [];
  const loads: PeerLoads = {
    peers: Uint32Array.from(peers),
    livePeers: 1,
    lease: () => (lease === undefined ? undefined : Uint32Array.from(lease)),
    take: async (waiting = 1) => {
      takes.push(waiting);
    },
    stop: async () => {},
  };
  return { loads, takes };
}

describe('LeaseGate', () => {
  it('states the own loads alone without peers, and with peers their sum', () => {
    expect(new LeaseGate(() => undefined).loads([1, 2], [10, 10], 0)).toEqual([1, 2]);
    const { loads } = peersOf([3, 4], undefined);
    expect(new LeaseGate(() => loads).loads([1, 2], [10, 10], 0)).toEqual([4, 6]);
  });

  it('asks for a take when it holds no free slot of a pathway with room elsewhere', async () => {
    const { loads, takes } = peersOf([0, 0], [2, 0]);
    const gate = new LeaseGate(() => loads);
    const own = [2, 0];
    const asked = gate.loads(own, [10, NO_CAPACITY_LIMIT], 0);
    expect(Array.isArray(asked)).toEqual(false);
    await asked;
    expect(takes).toEqual([1]);
    // Past the takes allowed, the pathway is stated at its limit: own plus the capacity not held.
    expect(gate.loads(own, [10, NO_CAPACITY_LIMIT], MAX_TAKES)).toEqual([10, 0]);
  });

  it('counts the decisions waiting for the same take', async () => {
    const { loads, takes } = peersOf([0], [0]);
    const gate = new LeaseGate(() => loads);
    const a = gate.loads([0], [5], 0);
    const b = gate.loads([0], [5], 0);
    await Promise.all([a, b]);
    expect(takes).toEqual([1, 2]);
  });

  it('counts the sessions newly placed in each pathway', () => {
    const gate = new LeaseGate(() => undefined);
    expect(Array.from(gate.placements)).toEqual([]);
    gate.place(1, 3);
    gate.place(1, 3);
    gate.place(0, 3);
    expect(Array.from(gate.placements)).toEqual([1, 2, 0]);
  });
});
