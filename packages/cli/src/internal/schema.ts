/**
 * Validation of hand-written input (a policy config, a record's JSON, a request) with zod: every
 * leaf is read by a function of ours, so that each message names the field and the rule it
 * breaks in words a user can act on.
 */
import * as z from 'zod';
import { UserError } from './errors.js';

/** A leaf's reading: its value, or the message of the rule it breaks. */
export type Leaf<T> = (value: unknown) => T | Failure;

export class Failure {
  readonly message: string;
  constructor(message: string) {
    this.message = message;
  }
}

export const fail = (message: string): Failure => new Failure(message);

/** A zod schema of one leaf, with a message of our own for every way it can fail. */
function leafSchema<T>(read: Leaf<T>) {
  return z.unknown().transform((value, ctx): T => {
    if (value === undefined) {
      ctx.addIssue({ code: 'custom', message: 'required' });
      return z.NEVER;
    }
    const out = read(value);
    if (out instanceof Failure) {
      ctx.addIssue({ code: 'custom', message: out.message });
      return z.NEVER;
    }
    return out;
  });
}

/** A required leaf: missing is "required". */
export function leaf<T>(read: Leaf<T>): z.ZodType<T> {
  return leafSchema(read) as unknown as z.ZodType<T>;
}

/** An optional leaf: missing is `undefined`. */
export function optionalLeaf<T>(read: Leaf<T>): z.ZodType<T | undefined> {
  return leafSchema(read).optional() as unknown as z.ZodType<T | undefined>;
}

export function show(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return 'a list';
  if (value === null) return 'null';
  if (typeof value === 'object') return 'a mapping';
  return String(value);
}

export function text(value: unknown, what: string): string | Failure {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return fail(`expected ${what}, got ${show(value)}`);
}

/** A whole number from `min` to `max` (from YAML, digits; from JSON, a number). */
export const integer =
  (min: number, max: number): Leaf<number> =>
  (value) => {
    const s = text(value, `a whole number from ${min} to ${max}`);
    if (s instanceof Failure) return s;
    if (!/^\d+$/.test(s.trim()))
      return fail(`expected a whole number from ${min} to ${max}, got ${show(value)}`);
    const n = Number(s.trim());
    if (n < min || n > max)
      return fail(`expected a whole number from ${min} to ${max}, got ${s.trim()}`);
    return n;
  };

/** `pathways[1].hops[0].key` from a zod path. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? String(part) : `.${String(part)}`;
  }
  return out;
}

function valueAt(data: unknown, path: readonly PropertyKey[]): unknown {
  let v = data;
  for (const part of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[part];
  }
  return v;
}

export function describeIssue(issue: z.core.$ZodIssue, data: unknown, whole: string): string {
  const at = formatPath(issue.path);
  const prefix = at === '' ? whole : at;
  switch (issue.code) {
    case 'custom':
      return `${prefix}: ${issue.message}`;
    case 'unrecognized_keys': {
      const keys = issue.keys.map((k) => formatPath([...issue.path, k]));
      return `${keys.join(', ')}: unknown field${keys.length > 1 ? 's' : ''}`;
    }
    case 'invalid_type': {
      const got = valueAt(data, issue.path);
      if (got === undefined) return `${prefix}: required`;
      const expected =
        issue.expected === 'object'
          ? 'a mapping'
          : issue.expected === 'array'
            ? 'a list'
            : issue.expected;
      return `${prefix}: expected ${expected}, got ${show(got)}`;
    }
    default:
      return `${prefix}: ${issue.message}`;
  }
}

/** Parses `data` with `schema`; a {@link UserError} naming the first problem otherwise. */
export function validate<S extends z.ZodType>(
  schema: S,
  data: unknown,
  whole: string,
): z.output<S> {
  const parsed = schema.safeParse(data);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues;
  const first = describeIssue(issues[0]!, data, whole);
  const more =
    issues.length > 1
      ? ` (and ${issues.length - 1} more problem${issues.length > 2 ? 's' : ''})`
      : '';
  throw new UserError(`${first}${more}`);
}
