// The known name closest to a misspelt one, and the old spellings of renamed fields, for the
// messages of hand-written files (the server's config, the policy YAML, the hop agent's
// hop.yaml): one home, so that every package suggests and renames the same way.

/**
 * The edit distance of `a` and `b`: Levenshtein's (insertions, deletions, substitutions), with a
 * swap of two neighbours counted as one edit (the optimal string alignment distance), so that
 * `prot` is one edit from `port`. The usual dynamic programme, a dozen lines: no dependency.
 */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        v = Math.min(v, d[i - 2]![j - 2]! + 1);
      }
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The known name `word` was most likely meant to be: the closest by {@link editDistance}
 * (case and `_`/`-` aside), when it is close (at most a third of its length, and 3); `undefined`
 * when none is.
 */
export function closestName(word: string, known: readonly string[]): string | undefined {
  const norm = (s: string): string => s.toLowerCase().replace(/[-_]/g, '');
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const name of known) {
    const d = norm(name) === norm(word) ? 0 : editDistance(word, name);
    if (d < bestDistance) {
      best = name;
      bestDistance = d;
    }
  }
  const limit = Math.min(3, Math.max(1, Math.floor(word.length / 3)));
  return bestDistance <= limit ? best : undefined;
}

/** ` (did you mean "x"?)` for a misspelt name, or nothing. */
export function didYouMean(word: string, known: readonly string[]): string {
  const near = closestName(word, known);
  return near === undefined ? '' : ` (did you mean "${near}"?)`;
}

/** An old spelling of a field: the mapping it is in (`''`: the top level), the old name, the new. */
export type Alias = readonly [at: string, old: string, now: string];

const isMap = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * A hand-written file's object with each old spelling under its new name (copies: the input is
 * not changed), a warning for each, and an issue where both spellings are given. `applies` may
 * leave an alias out where its new name is no field (it then stays an unknown field).
 */
export function renameAliases(
  input: unknown,
  aliases: readonly Alias[],
  applies: (at: string, now: string, top: Record<string, unknown>) => boolean = () => true,
): { input: unknown; warnings: string[]; issues: string[] } {
  const warnings: string[] = [];
  const issues: string[] = [];
  if (!isMap(input)) return { input, warnings, issues };
  const top: Record<string, unknown> = { ...input };
  for (const [at, old, now] of aliases) {
    let map = top;
    if (at !== '') {
      const inner = top[at];
      if (!isMap(inner)) continue;
      map = { ...inner };
      top[at] = map;
    }
    if (!(old in map) || !applies(at, now, top)) continue;
    const where = at === '' ? '' : `${at}.`;
    if (now in map) {
      issues.push(`${where}${old}: given with ${where}${now}, its new spelling: keep one`);
    } else {
      map[now] = map[old];
      warnings.push(
        `${where}${old} is the old spelling of ${where}${now}: read this release, not the next (rename it)`,
      );
    }
    delete map[old];
  }
  return { input: top, warnings, issues };
}
