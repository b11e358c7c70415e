/** The refused vectors of §9.1 step 6: the output. */
import { BAND_UNMETERED, BEFORE_FIRST_WINDOW, ONE_CLASS, STALE, UNMETERED } from '../accepted.js';
import { redecide } from '../world.js';
import { output, type RefusedCase } from './common.js';

export const OUTPUT: readonly RefusedCase[] = [
  {
    name: 'refuse/output/unknown-preferred',
    note: 'In the unmetered scenario, the unmetered alpha stated first (reason rank) while the rule puts charlie, with a figure, first.',
    reason: 'unknown_preferred',
    where: output,
    make: (ctx) =>
      redecide(ctx.built(UNMETERED), { fields: (f) => ({ ...f, priority: [0, 2, 1] }) }),
  },
  {
    name: 'refuse/output/unknown-preferred-stale',
    note: 'In the stale scenario, the stale alpha stated first while the rule puts delta first.',
    reason: 'unknown_preferred',
    where: output,
    make: (ctx) =>
      redecide(ctx.built(STALE), { fields: (f) => ({ ...f, priority: [0, 3, 2, 1] }) }),
  },
  {
    name: 'refuse/output/priority-swapped',
    note: 'charlie stated before bravo: the stated first has a figure, so decision_mismatch.',
    reason: 'decision_mismatch',
    where: output,
    make: (ctx) =>
      redecide(ctx.built(ONE_CLASS), { fields: (f) => ({ ...f, priority: [2, 1, 0] }) }),
  },
  {
    name: 'refuse/output/wrong-ttl',
    note: 'The TTL stated as min_ttl_s for reason rank.',
    reason: 'decision_mismatch',
    where: output,
    make: (ctx) => redecide(ctx.built(ONE_CLASS), { fields: (f) => ({ ...f, ttl: 15 }) }),
  },
  {
    name: 'refuse/output/wrong-reason',
    note: 'The reason stated as hold, the priority unchanged.',
    reason: 'decision_mismatch',
    where: output,
    make: (ctx) => redecide(ctx.built(ONE_CLASS), { fields: (f) => ({ ...f, reason: 4 }) }),
  },
  {
    name: 'refuse/output/wrong-draw',
    note: 'The draw stated one more than §6.3 gives for the session.',
    reason: 'decision_mismatch',
    where: output,
    make: (ctx) =>
      redecide(ctx.built(ONE_CLASS), { fields: (f) => ({ ...f, draw: (f.draw + 1) % 1_000_000 }) }),
  },
  {
    name: 'refuse/output/wrong-limits',
    note: "alpha's limits stated without the capacity bit.",
    reason: 'decision_mismatch',
    where: output,
    make: (ctx) =>
      redecide(ctx.built(ONE_CLASS), {
        fields: (f) => ({
          ...f,
          pathways: f.pathways.map((p, i) => (i === 0 ? { ...p, limits: 3 } : p)),
        }),
      }),
  },
  {
    name: 'refuse/output/known-first-where-unknown-placed',
    note: "The session charlie's band places, stated ranked with alpha first: the stated first has a figure and the recomputed first (the unmetered charlie) has none, so decision_mismatch, not unknown_preferred.",
    reason: 'decision_mismatch',
    where: output,
    make: (ctx) =>
      redecide(ctx.built(BAND_UNMETERED), {
        fields: (f) => ({ ...f, reason: 5, priority: [0, 1, 2] }),
      }),
  },
  {
    name: 'refuse/output/unknown-first-where-unknown-holds',
    note: 'Every pathway stale and the client on bravo held: stated ranked with alpha first. Neither first has a figure: decision_mismatch.',
    reason: 'decision_mismatch',
    where: output,
    make: (ctx) =>
      redecide(ctx.built(BEFORE_FIRST_WINDOW), {
        fields: (f) => ({ ...f, reason: 5, priority: [0, 1] }),
      }),
  },
];
