/**
 * The demo's power model (docs/energy.md, *The demo's power model*): each simulated hop draws a
 * fixed power whatever it sends, plus an energy per byte it sends (the power model approach of
 * Mytton, Lundén & Malmodin 2024, after Malmodin 2020), with noise. Over a period of s seconds in
 * which it sends B bytes (media and other), a hop's energy, in µJ, is
 *
 *   (idleWatts × s × 10^6 + nanojoulesPerByte × 10^-3 × B) × (1 + ε),  ε uniform in ±ENERGY_NOISE,
 *
 * and the media bytes it sends are its `share` of the media bytes its pathway delivers: an edge
 * hop all of them, an interior (shield) hop what its edges' caches miss. These constants are the
 * simulator's ground truth: a test fits the energy account to the simulated records and finds
 * them again within its interval.
 */

/** Mean bitrate of a session, bits per second. */
export const SESSION_BPS = 4_200_000;

/** The relative spread of the noise on a period's bytes, and on a hop's energy (uniform ±). */
export const BYTES_NOISE = 0.05;
export const ENERGY_NOISE = 0.03;

/** Of the media bytes a hop sends, the other bytes (manifests, requests) it sends besides. */
export const OTHER_PER_MEDIA = 1 / 200;

/**
 * The share of its edges' media bytes a shield sends them: what their caches miss, 5 % (a 95 %
 * edge cache hit ratio, of the order live video reaches, many viewers fetching the same segments).
 */
export const SHIELD_SHARE = 1 / 20;

/** How a simulated hop draws power. */
export interface HopPower {
  /** Fixed power, watts: what it draws for this room's pathway whatever it sends. */
  readonly idleWatts: number;
  /** Energy per byte it sends, nanojoules (marginal: what one more byte costs it). */
  readonly nanojoulesPerByte: number;
  /** Its media bytes sent, as a share of the media bytes its pathway delivers. */
  readonly share: number;
}

/**
 * Each demo hop's power, by name. cdn-a is the incumbent CDN (the policy's `initial` pathway:
 * where players stay without energy steering), on an older generation of servers; cdn-b a newer
 * one, and cdn-b-east a clone of it through another host. Per byte, a server drawing about half
 * its peak power when idle (Barroso & Hölzle 2007) has a marginal energy of (peak − idle) /
 * capacity: 175 W over 2.5 GB/s (20 Gb/s) is 70 nJ/B for cdn-a's servers, 200 W over 5 GB/s
 * (40 Gb/s) is 40 nJ/B for cdn-b's (assumed peak powers and capacities of the two generations).
 * The fixed power is the part of the servers' idle draw held for this room.
 */
export const DEMO_POWER: Readonly<Record<string, HopPower>> = Object.freeze({
  'cdn-a-edge': { idleWatts: 60, nanojoulesPerByte: 70, share: 1 },
  'cdn-a-shield': { idleWatts: 30, nanojoulesPerByte: 70, share: SHIELD_SHARE },
  'cdn-b-edge': { idleWatts: 35, nanojoulesPerByte: 40, share: 1 },
  'cdn-b-shield': { idleWatts: 15, nanojoulesPerByte: 40, share: SHIELD_SHARE },
  'cdn-b-east-edge': { idleWatts: 35, nanojoulesPerByte: 40, share: 1 },
  'cdn-b-east-shield': { idleWatts: 15, nanojoulesPerByte: 40, share: SHIELD_SHARE },
});

/** The power model's energy of a hop over `seconds` in which it sends `bytesOut` bytes, µJ. */
export function hopEnergyUj(
  power: HopPower,
  seconds: number,
  bytesOut: number,
  noise: number,
): bigint {
  const uj = (power.idleWatts * seconds * 1e6 + power.nanojoulesPerByte * 1e-3 * bytesOut) * noise;
  return BigInt(Math.max(1, Math.round(uj)));
}
