import type {
  SfBareItem,
  SfDictionary,
  SfItem,
  SfList,
  SfMember,
  SfParameters,
} from '../../src/structured-field.js';

/**
 * Our parse results in the JSON shape of httpwg/structured-field-tests (its README): Integers
 * and Decimals as JSON numbers, Tokens, Byte Sequences (base32), Dates and Display Strings as
 * `__type` objects. Every Integer the grammar allows is below 2^53, so `Number` is exact; a
 * Decimal's `thousandths / 1000` is the double nearest its value, as JSON.parse of its text is.
 */
export type SuiteValue = unknown;

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** RFC 4648 §6 base32, padded. */
export function base32(bytes: Uint8Array): string {
  let out = '';
  let acc = 0;
  let bits = 0;
  for (const b of bytes) {
    acc = (acc << 8) | b;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += BASE32[(acc >> bits) & 31];
    }
    acc &= (1 << bits) - 1;
  }
  if (bits > 0) out += BASE32[(acc << (5 - bits)) & 31];
  while (out.length % 8 !== 0) out += '=';
  return out;
}

export function bareToSuite(v: SfBareItem): SuiteValue {
  switch (v.type) {
    case 'integer':
      return Number(v.value);
    case 'decimal':
      return Number(v.thousandths) / 1000;
    case 'string':
    case 'boolean':
      return v.value;
    case 'token':
      return { __type: 'token', value: v.value };
    case 'bytes':
      return { __type: 'binary', value: base32(v.value) };
    case 'date':
      return { __type: 'date', value: Number(v.value) };
    case 'displaystring':
      return { __type: 'displaystring', value: v.value };
  }
}

export function paramsToSuite(p: SfParameters): SuiteValue {
  return [...p].map(([k, v]) => [k, bareToSuite(v)]);
}

export function itemToSuite(i: SfItem): SuiteValue {
  return [bareToSuite(i.value), paramsToSuite(i.params)];
}

export function memberToSuite(m: SfMember): SuiteValue {
  return m.type === 'item'
    ? itemToSuite(m)
    : [m.items.map((i) => itemToSuite(i)), paramsToSuite(m.params)];
}

export function listToSuite(l: SfList): SuiteValue {
  return l.map((m) => memberToSuite(m));
}

export function dictionaryToSuite(d: SfDictionary): SuiteValue {
  return [...d].map(([k, m]) => [k, memberToSuite(m)]);
}
