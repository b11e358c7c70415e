/**
 * Reading `hop.yaml` and checking it against its schema (`schema.ts`): the camelCase spellings of
 * earlier releases read as aliases, with a warning; an error names the field and the rule it
 * breaks (`energy.url: expected an http(s) URL`), an unknown field the known one it is most likely
 * meant to be, in one line (an {@link AgentConfigError}). Paths stay as written, relative to the
 * file's directory (`baseDir`); `build.ts` resolves them.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { didYouMean, notAMapping, parseProblem, renameAliases } from '@wai-steering/config-text';
import { parse as parseYaml } from 'yaml';
import type { z } from 'zod';
import { AgentConfigError } from '../types.js';
import { HOP_CONFIG_ALIASES, type HopConfig, hopConfigSchema, knownFields } from './schema.js';

function fieldPath(path: readonly PropertyKey[]): string {
  return path.length === 0 ? '(top level)' : path.map(String).join('.');
}

function describeIssue(issue: z.core.$ZodIssue, input: unknown): string[] {
  if (issue.code === 'unrecognized_keys') {
    // One line per unknown field, each with the known field it is most likely meant to be.
    const known = knownFields(issue.path, input);
    return issue.keys.map(
      (k) => `${fieldPath([...issue.path, k])}: unknown field${didYouMean(k, known)}`,
    );
  }
  let message = issue.message;
  if (issue.code === 'invalid_type' && /received undefined/.test(issue.message)) {
    message = 'missing';
  }
  return [`${fieldPath(issue.path)}: ${message}`];
}

/** A configuration as read, with the warnings of its reading (an old spelling, say). */
export interface ReadHopConfig {
  readonly config: HopConfig;
  readonly warnings: readonly string[];
}

/**
 * Validates a configuration object, with the warnings of its reading. The error names every
 * field that breaks a rule, on one line (`; ` between them; also in its `issues`), unknown fields
 * first (each with the known field it is most likely meant to be).
 */
export function readHopConfig(input: unknown, baseDir: string, name = 'hop config'): ReadHopConfig {
  const top = notAMapping(input);
  if (top !== undefined) throw new AgentConfigError(`${name}: ${top}`, [top]);
  // An old spelling where its new one is not a field (`idleWatts` of a rapl source) stays an
  // unknown field.
  const renamed = renameAliases(input, HOP_CONFIG_ALIASES, (at, now, top) =>
    knownFields(at === '' ? [] : [at], top).includes(now),
  );
  const parsed = hopConfigSchema.safeParse(renamed.input);
  if (!parsed.success || renamed.issues.length > 0) {
    const all = parsed.success ? [] : parsed.error.issues;
    const describe = (i: z.core.$ZodIssue) => describeIssue(i, renamed.input);
    const issues = [
      ...all.filter((i) => i.code === 'unrecognized_keys').flatMap(describe),
      ...renamed.issues,
      ...all.filter((i) => i.code !== 'unrecognized_keys').flatMap(describe),
    ];
    throw new AgentConfigError(`${name}: ${issues.join('; ')}`, issues);
  }
  return { config: { ...parsed.data, baseDir }, warnings: renamed.warnings };
}

/** {@link readHopConfig} without its warnings. */
export function parseHopConfig(input: unknown, baseDir: string, name = 'hop config'): HopConfig {
  return readHopConfig(input, baseDir, name).config;
}

/** Reads `hop.yaml` (or JSON), with the warnings of its reading. */
export function readHopConfigFile(file: string): ReadHopConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new AgentConfigError(
      `hop config ${file}: cannot read it (${(e as NodeJS.ErrnoException).code ?? e})`,
    );
  }
  let input: unknown;
  try {
    input = parseYaml(text);
  } catch (e) {
    throw new AgentConfigError(`hop config ${file}: does not parse: ${parseProblem(e, text)}`);
  }
  return readHopConfig(input, dirname(resolve(file)), `hop config ${file}`);
}

/** {@link readHopConfigFile} without its warnings. */
export function loadHopConfig(file: string): HopConfig {
  return readHopConfigFile(file).config;
}
