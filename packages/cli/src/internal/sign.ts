import { isRefusal } from '@wai-steering/wire';
import { UserError } from './errors.js';
import { describeRefusal } from './records.js';

/**
 * Runs a signing function of `wire`; a refusal of the record's rules (thrown before signing)
 * becomes a {@link UserError} with its reason and field.
 */
export function signing<T>(sign: () => T, what = 'the record'): T {
  try {
    return sign();
  } catch (e) {
    if (isRefusal(e)) throw new UserError(`${what} breaks a rule: ${describeRefusal(e)}`);
    throw e;
  }
}
