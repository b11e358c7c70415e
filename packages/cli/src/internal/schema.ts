/**
 * Validation of hand-written input (a policy config, a record's JSON, a request) with zod: every
 * leaf is read by a function of ours, so that each message names the field and the rule it
 * breaks in words a user can act on.
 */
import { didYouMean } from '@wai-steering/config-text';
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

/** The fields the mapping at `path` of `schema` knows (none when it is not a mapping). */
function knownKeysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let s: z.core.$ZodType | undefined = schema;
  const unwrap = (t: z.core.$ZodType): z.core.$ZodType => {
    let u = t;
    for (;;) {
      const def = u._zod.def as { type: string; innerType?: z.core.$ZodType; in?: z.core.$ZodType };
      if (def.innerType !== undefined) u = def.innerType;
      else if (def.type === 'pipe' && def.in !== undefined) u = def.in;
      else return u;
    }
  };
  for (const part of path) {
    if (s === undefined) return [];
    const def = unwrap(s)._zod.def as {
      type: string;
      shape?: Record<string, z.core.$ZodType>;
      element?: z.core.$ZodType;
    };
    s = def.type === 'array' ? def.element : def.shape?.[String(part)];
  }
  if (s === undefined) return [];
  const def = unwrap(s)._zod.def as { shape?: Record<string, unknown> };
  return Object.keys(def.shape ?? {});
}

export function describeIssue(
  issue: z.core.$ZodIssue,
  data: unknown,
  whole: string,
  schema?: z.ZodType,
): string {
  const at = formatPath(issue.path);
  const prefix = at === '' ? whole : at;
  switch (issue.code) {
    case 'custom':
      return `${prefix}: ${issue.message}`;
    case 'unrecognized_keys': {
      const known = schema === undefined ? [] : knownKeysAt(schema, issue.path);
      return issue.keys
        .map((k) => `${formatPath([...issue.path, k])}: unknown field${didYouMean(k, known)}`)
        .join('; ');
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

/**
 * Parses `data` with `schema`; otherwise a {@link UserError} naming every problem, on one line
 * (`; ` between them), unknown fields first (each with the known field it is most likely meant
 * to be: a misspelt field is also a missing one, and the unknown field is the fix), then `more`
 * (problems found otherwise, named in the same list).
 */
export function validate<S extends z.ZodType>(
  schema: S,
  data: unknown,
  whole: string,
  more: readonly string[] = [],
): z.output<S> {
  const parsed = schema.safeParse(data);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues;
  const unknown = issues.filter((i) => i.code === 'unrecognized_keys');
  const rest = issues.filter((i) => i.code !== 'unrecognized_keys');
  throw new UserError(
    [...[...unknown, ...rest].map((i) => describeIssue(i, data, whole, schema)), ...more].join(
      '; ',
    ),
  );
}
