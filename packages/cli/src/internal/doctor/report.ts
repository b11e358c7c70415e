/**
 * What `wai-steer doctor` found: one finding a line, each of a check (`config`, `key log`,
 * `store`, a hop's config…) and a level: `ok` (checked, and well), `problem` (the setup will not
 * do what it should, with its fix), `warning` (it will, but something is off, with its fix) or
 * `note` (not checked, or said for information). The text form lists them in the order the
 * checks ran; `--json` gives the same as one object.
 */

/** The level of a finding. */
export type Level = 'ok' | 'problem' | 'warning' | 'note';

/** One finding of a check. */
export interface Finding {
  readonly check: string;
  readonly level: Level;
  readonly text: string;
  /** What to do about it (problems and warnings). */
  readonly fix?: string;
}

/** The findings of a run, in order. */
export class Report {
  readonly findings: Finding[] = [];

  ok(check: string, text: string): void {
    this.findings.push({ check, level: 'ok', text });
  }

  note(check: string, text: string): void {
    this.findings.push({ check, level: 'note', text });
  }

  problem(check: string, text: string, fix: string): void {
    this.findings.push({ check, level: 'problem', text, fix });
  }

  warning(check: string, text: string, fix: string): void {
    this.findings.push({ check, level: 'warning', text, fix });
  }

  count(level: Level): number {
    return this.findings.filter((f) => f.level === level).length;
  }

  /** The findings as text: `LEVEL    check: text` and, under a problem or warning, its fix. */
  text(): string {
    const label: Record<Level, string> = {
      ok: 'ok',
      problem: 'PROBLEM',
      warning: 'warning',
      note: 'note',
    };
    const lines: string[] = [];
    for (const f of this.findings) {
      lines.push(`${label[f.level].padEnd(8)} ${f.check}: ${f.text}`);
      if (f.fix !== undefined) lines.push(`${' '.repeat(9)}fix: ${f.fix}`);
    }
    const problems = this.count('problem');
    const warnings = this.count('warning');
    const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
    lines.push(
      problems === 0
        ? `all is well${warnings === 0 ? '' : `, but ${plural(warnings, 'warning')}`} (${plural(this.count('ok'), 'check')} passed)`
        : `${plural(problems, 'problem')}${warnings === 0 ? '' : ` and ${plural(warnings, 'warning')}`}: each with its fix above`,
    );
    return `${lines.join('\n')}\n`;
  }

  /** The findings as one JSON object. */
  json(): string {
    return `${JSON.stringify({
      ok: this.count('problem') === 0,
      problems: this.count('problem'),
      warnings: this.count('warning'),
      findings: this.findings,
    })}\n`;
  }
}
