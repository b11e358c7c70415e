#!/usr/bin/env node
// `pnpm bench`: every package's benchmark, one after another (`turbo run bench --concurrency=1`),
// then the goals they measured (`packages/server/bench/goals.mjs`), a line each: the figure, the
// goal, met or not. Arguments after `--` go to turbo (`pnpm bench -- --filter=@wai-steering/server`).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const dir = mkdtempSync(join(tmpdir(), 'wai-bench-goals-'));
const file = join(dir, 'goals.jsonl');
const started = new Date().toISOString().slice(0, 16).replace('T', ' ');
const run = spawnSync(
  'pnpm',
  ['exec', 'turbo', 'run', 'bench', '--concurrency=1', ...process.argv.slice(2)],
  { stdio: 'inherit', env: { ...process.env, WAI_BENCH_GOALS: file } },
);
let lines = [];
try {
  lines = readFileSync(file, 'utf8').trim().split('\n').filter(Boolean).map(JSON.parse);
} catch {}
rmSync(dir, { recursive: true, force: true });
console.log(`\nthe goals of pnpm bench (started ${started} UTC):`);
if (lines.length === 0) console.log('  none measured');
for (const g of lines) {
  const verdict = g.met === null ? 'not measured' : g.met ? 'met' : 'not met';
  console.log(`  ${g.name}: ${g.figure} (goal ${g.goal}): ${verdict}`);
}
process.exit(run.status ?? 1);
