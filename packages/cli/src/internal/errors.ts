/**
 * What the command line reports. A {@link UserError} is the user's to fix (a missing file, a bad
 * key, a config that breaks a rule, a wrong argument): one line on stderr and a non-zero exit.
 * Anything else that escapes a command is a bug of `wai-steer` and is reported as such.
 */

/** Exit codes of `wai-steer`. */
export const EXIT = {
  /** Success; for `verify`, the decision is accepted. */
  ok: 0,
  /** The answer is no: `verify` refuses, `conformance` has a failing case. */
  refused: 1,
  /** A usage, input or I/O error: the user's to fix. */
  usage: 2,
  /** An internal error of `wai-steer` (a bug). */
  internal: 3,
} as const;

/** An error the user can fix, with its one-line message (without the `wai-steer: ` prefix). */
export class UserError extends Error {
  readonly exitCode: number;

  constructor(message: string, exitCode: number = EXIT.usage) {
    super(message);
    this.name = 'UserError';
    this.exitCode = exitCode;
  }
}

/** One line: any line break in `text` becomes a space. */
export function oneLine(text: string): string {
  return text.replace(/\s*[\r\n]+\s*/g, ' ').trim();
}
