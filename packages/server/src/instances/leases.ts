/**
 * Capacity held across instances (`docs/server.md`, *Capacity across instances*): each pathway's
 * capacity (§3.3 `capacity`, §6.1) is shared among the instances that steer it as **slots**.
 * An instance holds a lease of slots per pathway, taken and returned in batches at its heartbeat
 * (and taken at once when it runs short), granted under a lock so that the slots of the live
 * instances never add up to more than the capacity; a dead instance's slots are released when
 * its heartbeat expires. An instance places a session in a pathway only within its lease, so the
 * sessions the instances place in it add up to at most its capacity.
 *
 * The loads a decision states are the deployment's, as without leases: the instance's own count
 * plus its live peers' latest counts (§6). What changes is where a session may be placed: when
 * an instance holds no free slot of a pathway, the decision states that pathway's load as its own
 * count plus the capacity it does not hold (at least the capacity), so that §6.1 finds it at its
 * limit and the rule places the session elsewhere; its own earlier sessions may still be
 * steered to it again (§6.1: "c's load already counts the client").
 *
 * The arithmetic is here, pure; the exchanges (`loads.ts`) grant the slots under their lock.
 */
import { NO_CAPACITY_LIMIT } from '@wai-steering/wire';

/**
 * The headroom of a lease when the instance ran short with nothing placed nor waiting: slots
 * taken ahead of need. An instance that placed nothing in a pathway since its last beat keeps no
 * headroom there: it returns its free slots, so that an idle instance holds none another needs.
 */
export const MIN_HEADROOM = 2;

/**
 * The slots an instance asks to hold of one pathway at a beat: its sessions there, `own`, plus a
 * headroom of twice the sessions it newly placed there since its last beat (`placed`). It keeps
 * what it holds while that is between half the headroom and twice it above `own`, so that slots
 * move in batches; `short` (it ran out) asks at once for at least {@link MIN_HEADROOM} and twice
 * the decisions waiting for slots (`waiting`), so that a burst is served in a take or two. So
 * the free slots an instance holds are at most about twice what it places in a heartbeat.
 */
export function leaseTarget(
  held: number,
  own: number,
  placed: number,
  short: boolean,
  waiting = 0,
): number {
  let headroom = 2 * placed;
  if (short) headroom = Math.max(headroom, MIN_HEADROOM, 2 * waiting);
  const target = own + headroom;
  if (short || held < own + Math.ceil(headroom / 2) || held > own + 2 * headroom) return target;
  return held;
}

/**
 * The slots granted to an instance with `own` sessions in a pathway: its target, or more while
 * the capacity is far from used, a share of what is left (the free capacity over twice the
 * instances, so that an instance seldom runs short while no other needs the slots, and holds
 * little free once they are scarce); within what the other live instances leave of the capacity
 * (each holding the more of its slots and its sessions there). 0 for a pathway with no capacity
 * limit, which needs no lease.
 */
export function grant(
  target: number,
  capacity: number,
  othersHeld: number,
  own = 0,
  instances = 1,
): number {
  if (capacity === NO_CAPACITY_LIMIT) return 0;
  const left = capacity - othersHeld;
  const share = Math.floor(Math.max(0, left - own) / (2 * instances));
  return Math.max(0, Math.min(Math.max(target, own + share), left));
}

/**
 * §6: the loads a decision states, into `out`: for each pathway, the instance's own count plus
 * its live peers' latest counts; for a pathway with a capacity limit in which the instance holds
 * no free slot (`own ≥ lease`), at least its own count plus the capacity it does not hold, so that
 * §6.1 finds the pathway at its limit unless the client is already counted there. `lease`
 * `undefined`: no leases (one instance alone), every slot its own.
 */
export function statedLoads(
  own: ArrayLike<number>,
  peers: ArrayLike<number> | undefined,
  capacities: ArrayLike<number>,
  lease: ArrayLike<number> | undefined,
  out: number[],
): number[] {
  out.length = own.length;
  for (let i = 0; i < own.length; i++) {
    const mine = own[i]!;
    let load = mine + (peers === undefined ? 0 : (peers[i] ?? 0));
    const capacity = capacities[i]!;
    if (lease !== undefined && capacity !== NO_CAPACITY_LIMIT) {
      const held = lease[i] ?? 0;
      if (mine >= held) load = Math.max(load, mine + capacity - held);
    }
    out[i] = Math.min(load, 0xffff_ffff);
  }
  return out;
}

/**
 * Whether the instance ran out of slots of a pathway that may still have free ones elsewhere: a
 * capacity-limited pathway where it holds no free slot while its own and its peers' counts are
 * below the capacity. Worth asking for more slots at once (`PeerLoads.take`) before deciding.
 */
export function isShort(
  own: ArrayLike<number>,
  peers: ArrayLike<number>,
  capacities: ArrayLike<number>,
  lease: ArrayLike<number>,
): boolean {
  for (let i = 0; i < own.length; i++) {
    const capacity = capacities[i]!;
    if (capacity === NO_CAPACITY_LIMIT) continue;
    const mine = own[i]!;
    if (mine >= (lease[i] ?? 0) && mine + (peers[i] ?? 0) < capacity) return true;
  }
  return false;
}
