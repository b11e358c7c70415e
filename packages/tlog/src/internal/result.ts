import {
  isTlogRefusal,
  type TlogReason,
  TlogRefusal,
  type TlogResult,
  type TlogWhere,
} from '../refusal.js';

export function ok<T>(value: T): TlogResult<T> {
  return { ok: true, value };
}

export function refused<T = never>(
  reason: TlogReason,
  where: TlogWhere,
  detail?: string,
): TlogResult<T> {
  return { ok: false, refusal: new TlogRefusal(reason, where, detail) };
}

/**
 * Runs a reader written with `throw new TlogRefusal(…)` and returns its result; anything else
 * thrown is a bug and propagates.
 * @internal
 */
export function attempt<T>(read: () => T): TlogResult<T> {
  try {
    return { ok: true, value: read() };
  } catch (e) {
    if (isTlogRefusal(e)) return { ok: false, refusal: e };
    throw e;
  }
}
