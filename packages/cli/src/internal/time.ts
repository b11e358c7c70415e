/**
 * Room-clock instants on the command line. Every option that takes an instant (`--t`, `--from`,
 * `--to`, `--span`, a record's `start` and `end`) reads it with `parseInstant` of
 * `@wai-steering/config-text`: µs (`10500000`), an RFC 3339 time (`2026-12-01T08:00:00.5Z`), or
 * `now`, `now+6s`, `now-1m`. What is the command line's own: the option named in the message,
 * `--period`'s periods, and a span's bounds printed in the one form of human output.
 */
import {
  formatInstantExact,
  type InstantSpan,
  nowUs,
  parseDuration,
  parseInstant,
  parseSpan,
} from '@wai-steering/config-text';
import { UserError } from './errors.js';

/** The instant option `--name` gives; a {@link UserError} naming the option when it does not read. */
export function instantOption(text: string, name: string, now: () => bigint = nowUs): bigint {
  const t = parseInstant(text, now);
  if (typeof t === 'string') throw new UserError(`--${name}: ${t}`);
  return t;
}

/** The span `START..END` option `--name` gives; a {@link UserError} naming the option otherwise. */
export function spanOption(text: string, name: string, now: () => bigint = nowUs): InstantSpan {
  const s = parseSpan(text, now);
  if (typeof s === 'string') throw new UserError(`--${name}: ${s}`);
  return s;
}

/**
 * A span `[start, end)` for people, its bounds exact (a record's span, a window, a period):
 * `1970-01-01T00:00:06.000Z (6000000 µs) to 1970-01-01T00:00:08.000Z (8000000 µs)`.
 */
export function spanText(start: bigint, end: bigint): string {
  return `${formatInstantExact(start)} to ${formatInstantExact(end)}`;
}

/**
 * `--period`: a period of P µs on the room clock, aligned as the windows are (§5.1: periods start
 * at multiples of P). `now` is the period that holds the instant now (not yet complete), `now-1`
 * the last complete one, `now-K` K periods before `now`; an instant (µs, RFC 3339, `now+6s`) the
 * period that holds it.
 */
export function parsePeriod(
  text: string,
  periodUs: bigint,
  now: () => bigint = nowUs,
): { start: bigint; end: bigint } | string {
  const t = text.trim();
  const rel = /^now\s*-\s*(\d+)$/i.exec(t);
  let at: bigint;
  if (rel !== null) {
    const k = BigInt(rel[1]!);
    const current = (now() / periodUs) * periodUs;
    if (k * periodUs > current) return `${t} is before the start of the room clock`;
    at = current - k * periodUs;
  } else {
    const i = parseInstant(t, now);
    if (typeof i === 'string') {
      return `${i} (or now-K: the period K before the one now, now-1 the last complete one)`;
    }
    at = i;
  }
  const start = (at / periodUs) * periodUs;
  return { start, end: start + periodUs };
}

/**
 * The duration option `--name` gives, in µs, read by `parseDuration` as every file reads one (a
 * bare number refused with what to write: docs/cli.md, *Durations*); a {@link UserError} naming
 * the option when it does not read.
 */
export function durationOption(text: string, name: string): bigint {
  const us = parseDuration(text, 'us');
  if (typeof us === 'string') throw new UserError(`--${name} ${text}: ${us}`);
  return us;
}
