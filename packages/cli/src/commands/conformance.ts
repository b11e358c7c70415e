import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Corpus, type CorpusResult, runCorpus } from '@wai-steering/verifier';
import type { Command, Context } from '../internal/command.js';
import { EXIT, UserError } from '../internal/errors.js';
import { readJson } from '../internal/files.js';

const RELATIVE = join('conformance', 'vectors.json');

/** The repository's corpus: searched up from the working directory, then from this file. */
function findVectors(ctx: Context): string | undefined {
  const starts = [ctx.path('.'), dirname(fileURLToPath(import.meta.url))];
  for (const start of starts) {
    let dir = start;
    for (;;) {
      const candidate = join(dir, RELATIVE);
      if (existsSync(candidate)) return candidate;
      const up = dirname(dir);
      if (up === dir) break;
      dir = up;
    }
  }
  return undefined;
}

function isCorpus(value: unknown): value is Corpus {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return Array.isArray(v.requests) && Array.isArray(v.vectors);
}

function short(value: unknown): string {
  const text =
    JSON.stringify(value, (_, v) => (typeof v === 'bigint' ? v.toString() : v)) ?? 'undefined';
  return text.length > 160 ? `${text.slice(0, 157)}...` : text;
}

function summaryText(path: string, result: CorpusResult): string {
  const { requests, vectors } = result;
  const lines = [
    `corpus    ${path}`,
    `requests  ${requests.passed}/${requests.total} give their report`,
    `vectors   ${vectors.passed}/${vectors.total} give their outcome (${vectors.accepted} accepted, ${vectors.refused} refused)`,
    `reasons   ${result.reasons.length} refusal reasons covered: ${result.reasons.join(', ')}`,
  ];
  if (result.failures.length === 0) {
    lines.push('result    PASS');
  } else {
    lines.push(`result    FAIL: ${result.failures.length} case(s)`);
    for (const f of result.failures) {
      lines.push(`  ${f.kind} ${f.name}: ${f.what}`);
      lines.push(`    expected ${short(f.expected)}`);
      lines.push(`    got      ${short(f.got)}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

export const conformance: Command = {
  name: ['conformance'],
  summary: 'Run a conformance corpus (requests and vectors) and print a summary.',
  options: {
    vectors: {
      type: 'string',
      arg: 'FILE',
      description: "a corpus in the shape of conformance/vectors.json (default: the repository's)",
    },
    json: { type: 'boolean', description: 'print the summary as JSON' },
  },
  description: `
Gives every request of the corpus its report (§4, C8) and every vector its outcome (§9, C8), and
compares them with what the corpus states; also the HLS tag and DASH element of each vector that
states them. Without --vectors, conformance/vectors.json is looked for from the working directory
up, then beside this package in the repository.`,
  exitStatus: `
  0 every case passes; 1 a case fails; 2 a usage or I/O error (one line on stderr).`,
  run(ctx) {
    const given = ctx.optional('vectors');
    const path = given === undefined ? findVectors(ctx) : ctx.path(given);
    if (path === undefined) {
      throw new UserError(`conformance: no ${RELATIVE} found from here; give --vectors FILE`);
    }
    const corpus = readJson(path, 'vectors file');
    if (!isCorpus(corpus)) {
      throw new UserError(
        `vectors file ${path} is not a corpus: expected an object with "requests" and "vectors" lists`,
      );
    }
    let result: CorpusResult;
    try {
      result = runCorpus(corpus);
    } catch (e) {
      if (e instanceof TypeError) throw new UserError(`vectors file ${path}: ${e.message}`);
      throw e;
    }
    ctx.out(
      ctx.flag('json')
        ? `${JSON.stringify({ corpus: path, ...result }, (_, v) => (typeof v === 'bigint' ? v.toString() : v))}\n`
        : summaryText(path, result),
    );
    return result.failures.length === 0 ? EXIT.ok : EXIT.refused;
  },
};
