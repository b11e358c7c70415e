/**
 * The session table rebuilt at start (`docs/server.md`, *Loads and sessions*): a server that
 * starts again (after a deploy, a crash, `kill -9`) counts the sessions its decisions placed
 * before, so that the loads its next decisions state are those an auditor replays
 * (`docs/audit.md`, *The load replay*), not an empty table's.
 *
 * The decisions the store keeps from the longest TTL plus the grace before now are replayed by
 * the one implementation of the rule, `LoadReplay` (`@wai-steering/verifier`, the auditor's),
 * in the archive's order; the sessions that still count are then placed in the table, each at
 * its pathway and until its end, under the pathway IDs of the last decision's policy (the table
 * follows the policy of the next decision by ID, as the rule does). Of a store shared by
 * instances, all of its decisions are replayed (a session placed again elsewhere counts there,
 * as the replay says), and an instance keeps the sessions whose latest placement is its own
 * (`mine`, by the instance each decision was committed under).
 *
 * Only the store's decisions count: one whose commit never happened (the process died first)
 * was never answered, and no auditor sees it either; one committed and not answered (the
 * process died between the two) is in the store, and counts for both.
 */
import { LoadReplay } from '@wai-steering/verifier';
import { readPolicy, toHex } from '@wai-steering/wire';
import type { SessionTable } from '../sessions.js';
import type { DecisionStore } from '../store/decisions.js';
import type { BlobStore } from '../store/policies.js';

/** §7.1 offsets in a tail (`store/compact.ts`): `t` 8, `session` 16, then draw, protocol, report. */
const SESSION_AT = 8;
const FIXED = 47;
/** In an evidence set: room, signer, then the policy's digest; then the pathways' count. */
const POLICY_AT = 64;
const M_AT = 96;

/** What the rebuild needs. */
export interface RebuildOptions {
  readonly store: Pick<DecisionStore, 'readDecisions'> & Pick<BlobStore, 'listBlobs'>;
  /** The table to fill (empty: a fresh engine's). */
  readonly sessions: SessionTable;
  /** The session grace, whole seconds (the archive's `grace_s`). */
  readonly graceS: number;
  /** The room clock, µs. */
  readonly now: () => bigint;
  /** Whether a session placed by a decision committed under `instance` is this one's own. */
  readonly mine: (instance: number | null) => boolean;
  /** Gives the event loop its turn between pages (the server answers `/healthz` meanwhile). */
  readonly pause?: () => Promise<void>;
}

/** What a rebuild did. */
export interface Rebuilt {
  /** The decisions replayed, from `from` on. */
  readonly decisions: number;
  /** The instant the replay started from, µs: now less the longest TTL and the grace. */
  readonly from: bigint;
  /** The `t` of the newest decision replayed, `undefined` for none. */
  readonly newest: bigint | undefined;
  /** The sessions placed in the table (this instance's own that still count). */
  readonly sessions: number;
  /** The sessions that still count at another instance. */
  readonly others: number;
  /** Decisions naming a policy the store does not keep (never the server's): not replayed. */
  readonly unknownPolicy: number;
}

/** A policy as the replay reads it: its pathway IDs, and its longest TTL. */
interface Known {
  readonly ids: readonly string[];
  readonly ttl: number;
}

const immediate = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Replays the store's recent decisions and seeds `sessions` with this instance's own. */
export async function rebuildSessions(o: RebuildOptions): Promise<Rebuilt> {
  const pause = o.pause ?? immediate;
  const policies = new Map<string, Known>();
  let longest = 0;
  for (const { digest, bytes } of await o.store.listBlobs('policy')) {
    const read = readPolicy(bytes);
    if (!read.ok) continue;
    const p = read.value;
    policies.set(
      toHex(digest),
      Object.freeze({ ids: Object.freeze(p.pathways.map((x) => x.id)), ttl: p.ttl_s }),
    );
    if (p.ttl_s > longest) longest = p.ttl_s;
  }
  // A decision's TTL is at most its policy's `ttl_s`: one older than this has ended, whatever
  // came after it (a change of policy only ends sessions).
  const from = o.now() - BigInt(longest + o.graceS + 1) * 1_000_000n;
  const replay = new LoadReplay(o.graceS);
  let decisions = 0;
  let unknownPolicy = 0;
  let newest: bigint | undefined;
  let lastSet: Uint8Array | undefined;
  let lastKey = '';
  let last: Known | undefined;
  /** The pathway IDs of the last decision replayed: the table counts under them. */
  let counted: readonly string[] | undefined;
  for await (const page of o.store.readDecisions(from, (1n << 64n) - 1n)) {
    for (const d of page) {
      const { set, tail } = d;
      if (set !== lastSet) {
        lastSet = set;
        lastKey = toHex(set.subarray(POLICY_AT, POLICY_AT + 32));
        last = policies.get(lastKey);
      }
      if (last === undefined) {
        unknownPolicy++;
        continue;
      }
      const m = set[M_AT]!;
      const at = FIXED + 5 * m;
      if (tail.length < at + 7) continue;
      const ttl = new DataView(tail.buffer, tail.byteOffset + at, 4).getUint32(0, true);
      const count = tail[at + 5]!;
      const first = tail[at + 6]!;
      // §9.2, in the archive's order: the policy followed, the clock advanced, the session placed.
      replay.follow(lastKey, last.ids);
      replay.advance(d.t);
      counted = last.ids;
      if (count > 0 && first < last.ids.length) {
        const session = Buffer.from(tail.buffer, tail.byteOffset + SESSION_AT, 16).toString(
          'latin1',
        );
        replay.place(session, first, d.t, ttl, d.instance ?? undefined);
      }
      newest = d.t;
      decisions++;
    }
    await pause();
  }
  let sessions = 0;
  let others = 0;
  if (counted !== undefined) {
    o.sessions.follow(counted);
    const index = new Map(counted.map((id, i) => [id, i]));
    for (const p of replay.placements()) {
      if (!o.mine(p.tag ?? null)) {
        others++;
        continue;
      }
      const i = index.get(p.pathway);
      if (i === undefined) continue;
      if (o.sessions.place(Buffer.from(p.session, 'latin1'), i, Number(p.end))) sessions++;
    }
  }
  return { decisions, from, newest, sessions, others, unknownPolicy };
}
