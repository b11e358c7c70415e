/**
 * The refused vectors, one file for each step of §9.1 (room, policy, decision, records,
 * evidence, output, manifest): each the control of one defect relative to a valid base vector
 * (signed again where the defect needs it, so that only that defect fires), with its reason and
 * place stated by hand (companion C7, C9).
 *
 * The base of most is `accept/one-class-three-pathways`: pathways alpha (0), bravo (1) and
 * charlie (2), each with an edge hop and an interior hop, each naming six records: the edge
 * hop's for the periods k = −3, −2, −1 (places 0 to 2), then the interior hop's (places 3 to 5).
 */

import type { Scenario } from '../world.js';
import { type RefusedCase, SOLO_WITH_OTHER_RECORDS } from './common.js';
import { DECISION } from './decision.js';
import { EVIDENCE } from './evidence.js';
import { MANIFEST } from './manifest.js';
import { OUTPUT } from './output.js';
import { POLICY } from './policy.js';
import { RECORDS } from './records.js';
import { ROOM } from './room.js';

export type { Context, RefusedCase, Where } from './common.js';
export { SOLO_WITH_OTHER_RECORDS } from './common.js';

/** Every refused vector, in the order of §9.1's steps (the corpus's order). */
export const REFUSED: readonly RefusedCase[] = [
  ...ROOM, // §9.1 step 1, C6: the room
  ...POLICY, // §9.1 step 2: the policy
  ...DECISION, // §9.1 step 3: the decision
  ...RECORDS, // §9.1 step 4: each record named
  ...EVIDENCE, // §9.1 step 5: the evidence
  ...OUTPUT, // §9.1 step 6: the output
  ...MANIFEST, // §9.1 step 7: the manifest
];

/** Scenarios only the refused vectors build (their hops go into the head too). */
export const REFUSAL_SCENARIOS: readonly Scenario[] = [SOLO_WITH_OTHER_RECORDS];
