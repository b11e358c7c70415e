/**
 * The errors of reading a configuration: a {@link ConfigError} names each field and the rule it
 * breaks, and {@link fsProblem} says a file-system error in words, with the fix.
 */

/** A configuration that does not read or breaks a rule; the message names each field. */
export class ConfigError extends Error {
  readonly issues: readonly string[];
  constructor(issues: readonly string[], prefix?: string) {
    super(prefix === undefined ? issues.join('\n') : `${prefix}: ${issues.join('\n')}`);
    this.name = 'ConfigError';
    this.issues = issues;
  }
}

/**
 * A file-system error in words, with the fix: what `cannot read FILE: …` says. Paths of the
 * config are relative to its directory.
 */
export function fsProblem(e: unknown, inConfig = true): string {
  const code = (e as NodeJS.ErrnoException | null)?.code;
  switch (code) {
    case 'ENOENT':
      return inConfig
        ? "no such file or directory (ENOENT; the config's paths are relative to its directory)"
        : 'no such file or directory (ENOENT)';
    case 'EACCES':
    case 'EPERM':
      return `permission denied (${code}): make it readable by the user the server runs as`;
    case 'EISDIR':
      return 'is a directory (EISDIR): name a file';
    case 'ENOTDIR':
      return 'a part of the path is not a directory (ENOTDIR)';
    default:
      return code ?? (e instanceof Error ? e.message.split('\n')[0]! : String(e));
  }
}
