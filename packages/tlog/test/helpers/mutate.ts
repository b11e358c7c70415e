// One-character mutations of a text, for the property tests of the readers.
import fc from 'fast-check';

const POOL = [
  ' ',
  '\n',
  '+',
  '=',
  '/',
  'A',
  'a',
  '0',
  '1',
  '9',
  '—',
  '-',
  'x',
  '.',
  '\t',
  '\r',
  'é',
  '\u00a0',
];

export interface Mutation {
  readonly kind: 'delete' | 'insert' | 'replace';
  readonly at: number;
  readonly char: string;
}

export const mutation: fc.Arbitrary<Mutation> = fc.record({
  kind: fc.constantFrom('delete' as const, 'insert' as const, 'replace' as const),
  at: fc.nat(),
  char: fc.oneof(
    fc.constantFrom(...POOL),
    fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
  ),
});

/** The text with the mutation applied (`at` taken modulo the length); `undefined` if unchanged. */
export function mutate(s: string, m: Mutation): string | undefined {
  const n = s.length;
  const at = m.kind === 'insert' ? m.at % (n + 1) : n === 0 ? 0 : m.at % n;
  let out: string;
  if (m.kind === 'delete') out = n === 0 ? s : s.slice(0, at) + s.slice(at + 1);
  else if (m.kind === 'insert') out = s.slice(0, at) + m.char + s.slice(at);
  else out = n === 0 ? s : s.slice(0, at) + m.char + s.slice(at + 1);
  return out === s ? undefined : out;
}

/**
 * The runs of a property: `normal` in the tests; `FUZZ_RUNS` when set (the package's `fuzz`
 * script sets it), or `FUZZ_RUNS_HEAVY` for the properties that build a log or sign each run.
 */
export function runs(normal: number, heavy = false): number {
  const env = Number(heavy ? process.env.FUZZ_RUNS_HEAVY : process.env.FUZZ_RUNS);
  return Number.isInteger(env) && env > 0 ? env : normal;
}
