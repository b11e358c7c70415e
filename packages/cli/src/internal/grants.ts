/**
 * The hops of a policy against the room's key log (companion C4, C5.4): a hop whose key the log
 * does not list with `live/hop` (or lists revoked, or without the `energy/<label>` of the class
 * it states) has every record refused at ingest, so its pathway can never have a figure. The
 * words are the hop agent's own check at its start (`checkHopKey`); here each is placed in its
 * pathway. `policy compile` warns of them, `serve` warns at start, `doctor` counts them.
 */
import { AgentConfigError, checkHopKey } from '@wai-steering/agent';
import type { RoomContext } from '@wai-steering/verifier';
import { type PolicyHop, toHex } from '@wai-steering/wire';

/** One hop the key log does not let sign what it should. */
export interface HopGrantProblem {
  readonly pathway: string;
  readonly hop: number;
  readonly key: string;
  /** `pathway cdn-a, hop 1 (interior …): the key log (seq 2) does not list …`. */
  readonly text: string;
}

/**
 * The hops of `pathways` whose key `room`'s key log does not authorise for `live/hop` and, when
 * `classOf` knows the class a hop states (its agent's energy source, or its last record), for
 * that class's `energy/<label>`.
 */
export function hopGrantProblems(
  room: RoomContext,
  pathways: readonly { readonly id: string; readonly hops: readonly PolicyHop[] }[],
  classOf: (key: string) => number | undefined = () => undefined,
): HopGrantProblem[] {
  const out: HopGrantProblem[] = [];
  for (const p of pathways) {
    p.hops.forEach((h, k) => {
      const key = toHex(h.key);
      try {
        checkHopKey(room, h.key, classOf(key) ?? 0);
      } catch (e) {
        if (!(e instanceof AgentConfigError)) throw e;
        const place = h.place === 2 ? 'interior' : 'edge';
        out.push({
          pathway: p.id,
          hop: k,
          key,
          text: `pathway ${p.id}, hop ${k + 1} (${place} ${key}): ${e.message}; every record it signs is refused, so ${p.id} can never have a figure`,
        });
      }
    });
  }
  return out;
}
