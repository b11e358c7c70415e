/**
 * Room-clock instants for people. The room clock counts microseconds since the Unix epoch
 * (1970-01-01T00:00:00Z, the wall clock a steering server reads); every instant a command takes
 * can be written as those microseconds (`10500000`), as an RFC 3339 time
 * (`2026-12-01T08:00:00.5Z`, `2026-12-01T09:00:00+01:00`), or as `now`, `now+6s`, `now-1m`
 * (a duration with its unit). Exact: a time finer than a microsecond is refused, never rounded.
 */
import { parseDuration } from './units.js';

const U64_MAX = (1n << 64n) - 1n;

/** The wall clock, in room-clock µs. */
export function nowUs(): bigint {
  return BigInt(Date.now()) * 1000n;
}

const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?([Zz]|[+-]\d{2}:\d{2})$/;

/** An RFC 3339 time as room-clock µs, or the message of what is wrong with it. */
function parseRfc3339(text: string): bigint | string {
  const m = RFC3339.exec(text);
  if (m === null) return 'not an RFC 3339 time';
  const [, y, mo, d, h, mi, s, frac = '', zone] = m;
  const ms = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  const check = new Date(ms);
  if (
    check.getUTCFullYear() !== Number(y) ||
    check.getUTCMonth() !== Number(mo) - 1 ||
    check.getUTCDate() !== Number(d) ||
    Number(h) > 23 ||
    Number(mi) > 59 ||
    Number(s) > 59
  ) {
    return 'not a valid date and time';
  }
  if (/[1-9]/.test(frac.slice(6))) return 'finer than a microsecond';
  const micros = BigInt(frac.slice(0, 6).padEnd(6, '0'));
  let offsetUs = 0n;
  if (zone !== 'Z' && zone !== 'z') {
    const sign = zone!.startsWith('-') ? -1n : 1n;
    const [oh, om] = zone!.slice(1).split(':').map(Number);
    offsetUs = sign * BigInt(oh! * 3600 + om! * 60) * 1_000_000n;
  }
  const us = BigInt(ms) * 1000n + micros - offsetUs;
  return us < 0n ? 'before 1970-01-01T00:00:00Z, the start of the room clock' : us;
}

/**
 * An instant on the room clock: decimal µs, an RFC 3339 time, `now`, `now+D` or `now-D` (D a
 * duration such as `6s`, `1m`, `500ms`). A message of what is wrong otherwise.
 */
export function parseInstant(text: string, now: () => bigint = nowUs): bigint | string {
  const t = text.trim();
  let us: bigint | string;
  if (/^\d+$/.test(t)) {
    us = BigInt(t);
  } else if (/^now$/i.test(t)) {
    us = now();
  } else {
    const rel = /^now\s*([+-])\s*(.+)$/i.exec(t);
    if (rel !== null) {
      const d = parseDuration(rel[2]!, 'us');
      if (typeof d === 'string') return `${t}: ${d}`;
      us = rel[1] === '+' ? now() + d : now() - d;
      if (us < 0n) return `${t} is before 1970-01-01T00:00:00Z, the start of the room clock`;
    } else {
      const r = parseRfc3339(t);
      if (typeof r === 'string') {
        return `${t}: expected room-clock microseconds (10500000), an RFC 3339 time (2026-12-01T08:00:00Z), now, now+6s or now-1m${r === 'not an RFC 3339 time' ? '' : ` (${r})`}`;
      }
      us = r;
    }
  }
  if (us > U64_MAX) return `${t} is above 2^64 − 1 µs`;
  return us;
}

/** Room-clock µs as an RFC 3339 time in UTC, with the fraction it needs (`…T08:00:00.5Z`). */
export function formatInstant(us: bigint): string {
  const ms = us / 1000n;
  if (ms > 8_640_000_000_000_000n) return `${us} us (beyond the dates a calendar prints)`;
  const base = new Date(Number(ms)).toISOString().slice(0, 19);
  const frac = (us % 1_000_000n).toString().padStart(6, '0').replace(/0+$/, '');
  return `${base}${frac === '' ? '' : `.${frac}`}Z`;
}

/** `[a, b) us, A to B`: a span in both forms. */
export function formatSpan(a: bigint, b: bigint): string {
  return `[${a}, ${b}) us, ${formatInstant(a)} to ${formatInstant(b)}`;
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
