import { resolve } from 'node:path';

/** Where a command writes: stdout for data, stderr for errors and warnings. */
export interface Writer {
  write(chunk: string | Uint8Array): unknown;
  /** Whether the stream is a terminal. */
  readonly isTTY?: boolean;
}

/** The outside world of one run of `main`: injected by tests, the process's own otherwise. */
export interface Io {
  readonly stdout: Writer;
  readonly stderr: Writer;
  /** The directory relative paths are resolved from; `process.cwd()` when absent. */
  readonly cwd?: string;
  /**
   * Called by long-running commands (`serve`) with a function that stops them; the bin wires
   * it to SIGINT and SIGTERM. Absent: the command runs until its server closes.
   */
  readonly onStop?: (stop: () => Promise<void>) => void;
}

/** The process's own streams. */
export function processIo(): Io {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    onStop(stop) {
      const handler = (): void => {
        process.off('SIGINT', handler);
        process.off('SIGTERM', handler);
        void stop();
      };
      process.on('SIGINT', handler);
      process.on('SIGTERM', handler);
    },
  };
}

/** A path given on the command line, resolved from the run's directory. */
export function resolvePath(io: Io, path: string): string {
  return resolve(io.cwd ?? process.cwd(), path);
}
