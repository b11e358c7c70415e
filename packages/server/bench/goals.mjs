// The goals of the server's benches, gathered as each part measures them and printed in a short
// summary at the end of `pnpm bench:server`, a line a goal: the figure, the goal, met or not. With
// `WAI_BENCH_GOALS` set to a file (the root's `pnpm bench` sets it), each line is also appended
// there as JSON, for the summary at the end of the whole run (`scripts/bench.mjs`).
import { appendFileSync } from 'node:fs';

const goals = [];

/**
 * A goal's figure: `name` (what is measured), `figure` (its text, ratios or rates), `goal` (its
 * text), `met` (true, false, or null when it was not measured: then `figure` says why).
 */
export function goal(name, figure, target, met) {
  const g = { name, figure, goal: target, met };
  goals.push(g);
  const file = process.env.WAI_BENCH_GOALS;
  if (file !== undefined && file !== '') appendFileSync(file, `${JSON.stringify(g)}\n`);
}

/** One line of the summary. */
export function goalLine(g) {
  const verdict = g.met === null ? 'not measured' : g.met ? 'met' : 'not met';
  return `  ${g.name}: ${g.figure} (goal ${g.goal}): ${verdict}`;
}

/** Prints the goals gathered in this process. */
export function printGoals(title = 'goals') {
  if (goals.length === 0) return;
  console.log(`${title}:`);
  for (const g of goals) console.log(goalLine(g));
}

/** Figures a part measured that another uses (the sizing on paper), by name: value and source. */
const figures = {};

/** Keeps a figure this run measured, for the sizing on paper (`sizing.mjs`). */
export function keep(name, value, source) {
  if (Number.isFinite(value)) figures[name] = { value, source };
}

/** The figures kept so far. */
export const kept = () => figures;

/** `x` with `digits` decimals, or the reason there is none. */
export const fixed = (x, digits = 3) => (Number.isFinite(x) ? x.toFixed(digits) : 'none');
