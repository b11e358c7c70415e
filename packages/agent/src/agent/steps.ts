/**
 * A step of the room clock, read: what it did to the periods of the room clock, so that none is
 * signed twice and none is stated from what was not measured (docs/metering.md, *The room clock
 * set forward or back*).
 *
 * Between two wakes the monotonic clock moved Δm and the room clock Δr. That monotonic time was
 * lived either before the step or after it: of the room clock, [before, before + Δm] and
 * [after − Δm, after] were lived, and nothing else between them.
 *
 * - **Forward** (Δr > Δm): every period meeting [before, after) is signed with the unmetered
 *   marker (the step is in it: no source, a model included, states a whole period it did not
 *   live); the periods within neither stretch lived (not lived at all) also state no traffic.
 * - **Back** (Δr < Δm): the periods the clock repeats that are signed already are not signed
 *   again (the cursor holds); those not signed yet that meet [after − Δm, before + Δm] (the period
 *   it left, the one it landed in) are signed unmetered with no traffic: their lines are of two
 *   passes of the clock, and the lines of the periods signed already are moved into them.
 */
import { formatDuration } from '@wai-steering/config-text';
import type { StepMark } from './cutter.js';
import { instantField } from './log.js';
import type { ClockStep } from './period-clock.js';

/** What a step of the room clock does to the periods. */
export interface ReadStep {
  readonly forward: boolean;
  /** The step's size, µs: how far the room clock moved from the monotonic clock. */
  readonly size: bigint;
  readonly marks: readonly StepMark[];
  /** Forward: the periods not lived at all, [from, to), and how many. */
  readonly notLived?: { readonly from: bigint; readonly to: bigint; readonly periods: bigint };
}

/** The start of the period of P that `t` is in (floor, for any sign). */
function floorTo(t: bigint, P: bigint): bigint {
  const q = t / P;
  return (t < 0n && q * P !== t ? q - 1n : q) * P;
}

/** Reads a step of the room clock (see the module's comment). */
export function readStep(step: ClockStep, P: bigint): ReadStep {
  const { before, after } = step;
  const dm = after.mono - before.mono;
  const dr = after.at - before.at;
  if (dr > dm) {
    const size = dr - dm;
    const marks: StepMark[] = [
      {
        from: before.at,
        to: after.at,
        why: `the room clock stepped forward by ${formatDuration(size)} across the period`,
        noTraffic: false,
      },
    ];
    // Whole periods within neither stretch lived.
    const from = floorTo(before.at + dm + P - 1n, P);
    const to = floorTo(after.at - dm, P);
    if (to <= from) return { forward: true, size, marks };
    marks.push({
      from,
      to,
      why: 'not lived: the room clock stepped forward over the period',
      noTraffic: true,
    });
    return { forward: true, size, marks, notLived: { from, to, periods: (to - from) / P } };
  }
  const size = dm - dr;
  // The periods meeting what the clock may have passed twice, whole.
  const from = floorTo(after.at - dm, P);
  const to = floorTo(before.at + dm, P) + P;
  return {
    forward: false,
    size,
    marks: [
      {
        from,
        to,
        why: `the room clock stepped back by ${formatDuration(size)} across the period`,
        noTraffic: true,
      },
    ],
  };
}

/**
 * The one line a step is said with: its size, its bounds, and what is done of the periods;
 * `signedTo` the end of what was signed, `next` the boundary the agent waits for.
 */
export function stepLine(
  step: ClockStep,
  read: ReadStep,
  signedTo: bigint,
  next: bigint,
): Record<string, unknown> {
  const size = { step_us: String(read.size), step: formatDuration(read.size) };
  const when = { ...instantField('from', step.before.at), ...instantField('to', step.after.at) };
  if (read.forward) {
    const n = read.notLived;
    return {
      level: 'warn',
      msg: 'the room clock stepped forward: the periods it jumped over were not lived and are signed unmetered with no traffic; the periods it left and entered are signed unmetered',
      ...size,
      ...when,
      periods_not_lived: n === undefined ? 0 : Number(n.periods),
      ...(n === undefined
        ? {}
        : { ...instantField('not_lived_from', n.from), ...instantField('not_lived_to', n.to) }),
    };
  }
  return {
    level: 'warn',
    msg: 'the room clock stepped back: the periods it repeats are signed already and are not signed again; the periods it left and landed in, not yet signed, are signed unmetered with no traffic (the lines logged meanwhile in periods signed already are not stated); nothing is signed until the room clock reaches the next boundary again',
    ...size,
    ...when,
    ...instantField('signed_to', signedTo),
    ...instantField('waits_until', next),
  };
}
