/**
 * The agent's log: one structured line (a JSON object) for each thing it says, stamped with the
 * time and a level (`info` unless the line says otherwise), to a sink the caller gives or, by
 * default, to stderr. An instant in a line is in the one form of human output, RFC 3339 to the
 * millisecond, its exact µs beside it ({@link instantField}).
 */
import { formatInstant } from '@wai-steering/config-text';

/** Where log lines go. */
export type LogSink = (line: Record<string, unknown>) => void;

/** The default sink: a line of JSON on stderr. */
export function stderrSink(line: Record<string, unknown>): void {
  process.stderr.write(`${JSON.stringify(line)}\n`);
}

/** A log that stamps each line with the time and, unless it has one, the level `info`. */
export function stampedLog(sink: LogSink): LogSink {
  return (line) => sink({ time: new Date().toISOString(), level: 'info', ...line });
}

/**
 * An instant of a log line in the one form of human output (RFC 3339 to the millisecond), its
 * exact µs beside it under `<name>_us`.
 */
export function instantField(name: string, us: bigint): Record<string, string> {
  return { [name]: formatInstant(us), [`${name}_us`]: String(us) };
}

/**
 * Whether a source reads, said when it changes: its first failure (`<kind> source unreadable;
 * its periods are signed unmetered`, with the error), then its first reading after
 * (`<kind> source readable again`); not at every period.
 */
export class SourceState {
  private failing = false;

  constructor(
    private readonly log: LogSink,
    private readonly kind: 'energy' | 'traffic',
    private readonly source: string,
  ) {}

  /** A reading failed. */
  failed(error: string): void {
    if (!this.failing) {
      this.log({
        level: 'error',
        msg: `${this.kind} source unreadable; its periods are signed unmetered`,
        source: this.source,
        error,
      });
    }
    this.failing = true;
  }

  /** A reading succeeded. */
  read(): void {
    if (this.failing) this.log({ msg: `${this.kind} source readable again`, source: this.source });
    this.failing = false;
  }
}
