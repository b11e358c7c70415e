/**
 * Instants of the room clock as people write and read them. The room clock counts microseconds
 * since the Unix epoch (1970-01-01T00:00:00Z, the wall clock a steering server reads); an
 * instant is written as those microseconds (`10500000`), as an RFC 3339 time
 * (`2026-12-01T08:00:00.5Z`, `2026-12-01T09:00:00+01:00`), or as `now`, `now+6s`, `now-1m` (a
 * duration with its unit). Reading is exact: a time finer than a microsecond is refused, never
 * rounded.
 *
 * Human output writes an instant one way: RFC 3339 in UTC to the millisecond
 * (`2026-12-01T08:00:00.250Z`, {@link formatInstant}), with its microseconds beside it in
 * parentheses where the exact instant matters ({@link formatInstantExact}). Machine output (JSON)
 * keeps its own fields; {@link toRfc3339} is the exact RFC 3339 form, the inverse of
 * {@link parseInstant}.
 */
import { parseDuration } from './duration.js';

const U64_MAX = (1n << 64n) - 1n;
/** 9999-12-31T23:59:59.999999Z, the last instant RFC 3339 (four digits of year) can write. */
const RFC3339_MAX_US = 253_402_300_799_999_999n;

/** The forms an instant is written in, for messages. */
export const INSTANT_FORMS =
  'room-clock microseconds (10500000), an RFC 3339 time (2026-12-01T08:00:00Z), now, now+6s or now-1m';

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
    if (oh! > 23 || om! > 59) return 'not a valid offset';
    offsetUs = sign * BigInt(oh! * 3600 + om! * 60) * 1_000_000n;
  }
  const us = BigInt(ms) * 1000n + micros - offsetUs;
  return us < 0n ? 'before 1970-01-01T00:00:00Z, the start of the room clock' : us;
}

/**
 * An instant on the room clock: decimal µs, an RFC 3339 time, `now`, `now+D` or `now-D` (D a
 * duration such as `6s`, `1m`, `500ms`, read by `parseDuration`); `now` is read from `now()`
 * (the wall clock by default). The message of what is wrong otherwise.
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
        return `${t}: expected ${INSTANT_FORMS}${r === 'not an RFC 3339 time' ? '' : ` (${r})`}`;
      }
      us = r;
    }
  }
  if (us > U64_MAX) return `${t} is above 2^64 − 1 µs`;
  return us;
}

/** A span of the room clock, `[start, end)`, µs. */
export interface InstantSpan {
  readonly start: bigint;
  readonly end: bigint;
}

/**
 * A span written `START..END`, two instants as {@link parseInstant} reads them
 * (`now-4s..now-2s`, `1796112000000000..2026-12-01T08:00:02Z`), both read at one `now()`; the end
 * after the start. The message of what is wrong otherwise.
 */
export function parseSpan(text: string, now: () => bigint = nowUs): InstantSpan | string {
  const t = text.trim();
  const at = t.indexOf('..');
  if (at <= 0 || at + 2 >= t.length || t.indexOf('..', at + 2) !== -1) {
    return `${t}: expected START..END, two instants, each ${INSTANT_FORMS}`;
  }
  const fixed = now();
  const start = parseInstant(t.slice(0, at), () => fixed);
  if (typeof start === 'string') return `the start, ${start}`;
  const end = parseInstant(t.slice(at + 2), () => fixed);
  if (typeof end === 'string') return `the end, ${end}`;
  if (end <= start) return `${t}: the end is not after the start`;
  return { start, end };
}

function checked(us: bigint, what: string): bigint {
  if (typeof us !== 'bigint') throw new TypeError(`${what}: expected a bigint of room-clock µs`);
  return us;
}

const inRange = (us: bigint): boolean => us >= 0n && us <= RFC3339_MAX_US;

/**
 * An instant for people: RFC 3339 in UTC to the millisecond (`2026-12-01T08:00:00.250Z`, what
 * is finer cut off); `N µs` for an instant RFC 3339 cannot write (before 1970 or after 9999).
 */
export function formatInstant(us: bigint): string {
  checked(us, 'formatInstant');
  return inRange(us) ? new Date(Number(us / 1000n)).toISOString() : `${us} µs`;
}

/**
 * An instant for people where the exact instant matters: {@link formatInstant} and its
 * microseconds in parentheses (`2026-12-01T08:00:00.250Z (1796112000250000 µs)`).
 */
export function formatInstantExact(us: bigint): string {
  checked(us, 'formatInstantExact');
  return inRange(us) ? `${formatInstant(us)} (${us} µs)` : `${us} µs`;
}

/**
 * The exact RFC 3339 form of an instant, in UTC with the fraction it needs
 * (`2026-12-01T08:00:00.5Z`, `…T08:00:00.000001Z`): what {@link parseInstant} reads back to the
 * same µs. `undefined` for an instant RFC 3339 cannot write (before 1970 or after 9999).
 */
export function toRfc3339(us: bigint): string | undefined {
  checked(us, 'toRfc3339');
  if (!inRange(us)) return undefined;
  const base = new Date(Number(us / 1000n)).toISOString().slice(0, 19);
  const frac = (us % 1_000_000n).toString().padStart(6, '0').replace(/0+$/, '');
  return `${base}${frac === '' ? '' : `.${frac}`}Z`;
}
