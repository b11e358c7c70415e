// energy-steering §3.3 (and C9 "Policy"): one control per rule, each a valid policy with exactly
// that defect, refused with exactly that reason at that field.

import { describe, expect, it } from 'vitest';
import {
  encodePolicy,
  NOT_A_CLONE,
  type PolicyFields,
  type PolicyPathway,
  type Reason,
  readPolicy,
  signPolicy,
  verifyPolicySignature,
} from '../../src/index.js';
import {
  describeRoundTrip,
  expectRead,
  expectRefused,
  fakeDigest,
  KEYS,
  offsetOf,
  policyFields,
  policyLayout,
  raw,
  withPathway,
} from '../fixtures.js';

const P = policyFields();

/** Reads `p` (with a zero `sig`) and asserts the refusal, placed at `field`'s offset. */
function refuses(p: PolicyFields, reason: Reason, field: string): void {
  expectRefused(readPolicy(raw.policy(p)), reason, field, offsetOf(policyLayout(p), field));
}

function reads(p: PolicyFields): void {
  expectRead(readPolicy(raw.policy(p)));
}

/** A pathway of the content description with one edge hop of key `fakeDigest(seed)`. */
function plainPathway(id: string, seed: number): PolicyPathway {
  return {
    id,
    base: NOT_A_CLONE,
    host: '',
    params: [],
    top_tier: 0,
    latency_ms: 10,
    capacity: 100,
    min_share_ppm: 0,
    hops: [{ key: fakeDigest(1000 + seed), place: 1 }],
  };
}

function manyPathways(n: number): PolicyFields {
  return {
    ...P,
    initial: 0,
    pathways: Array.from({ length: n }, (_, i) => plainPathway(`p${i}`, i)),
  };
}

const ALPHA_DIGIT = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** RFC 3986 §2.3 unreserved. */
const UNRESERVED = `${ALPHA_DIGIT}-._~`;
/** RFC 3986 §2.2 gen-delims without `#`, and sub-delims. */
const RESERVED_BUT_HASH = ":/?[]@!$&'()*+,;=";

/** Each byte 0 to 255 but `%`, split by whether `allowed` holds it. */
function bytesBy(allowed: string): { readonly ok: string[]; readonly bad: string[] } {
  const ok: string[] = [];
  const bad: string[] = [];
  for (let b = 0; b < 256; b++) {
    const c = String.fromCharCode(b);
    if (c === '%') continue;
    (allowed.includes(c) ? ok : bad).push(c);
  }
  return { ok, bad };
}

describe('WSP1: the fixture', () => {
  it('reads, with clones, a clone of a clone and params', () => {
    const p = expectRead(readPolicy(raw.policy(P)));
    expect(p.pathways.map((pw) => pw.base)).toEqual([255, 255, 0, 2]);
    expect(p.pathways[2]!.params).toEqual(P.pathways[2]!.params);
  });
});

describe('§3.3 clone_unknown', () => {
  it('a clone of itself', () =>
    refuses(withPathway(P, 2, { base: 2 }), 'clone_unknown', 'pathways[2].base'));
  it('the first pathway cloning itself', () =>
    refuses(withPathway(P, 0, { base: 0, host: 'x' }), 'clone_unknown', 'pathways[0].base'));
  it('a clone of a later pathway', () =>
    refuses(withPathway(P, 2, { base: 3 }), 'clone_unknown', 'pathways[2].base'));
  it('a clone of a pathway that does not exist (254)', () =>
    refuses(withPathway(P, 3, { base: 254 }), 'clone_unknown', 'pathways[3].base'));
  it('is checked before policy_invalid, even one at an earlier field or pathway', () => {
    const bad = withPathway({ ...P, basis: 3 }, 0, { id: 'not an id' });
    refuses(withPathway(bad, 3, { base: 3 }), 'clone_unknown', 'pathways[3].base');
    // and before a pathway count above 32
    const many = manyPathways(40);
    refuses(withPathway(many, 39, { base: 39 }), 'clone_unknown', 'pathways[39].base');
  });
  it('valid: a clone of an earlier clone', () => {
    expect(P.pathways[3]!.base).toBe(2);
    expect(P.pathways[2]!.base).toBe(0);
    reads(P);
  });
  it('valid: a clone with neither host nor params', () =>
    reads(withPathway(P, 2, { host: '', params: [] })));
});

describe('§3.3 policy_invalid: period and window', () => {
  it('period_us 0', () => refuses({ ...P, period_us: 0n }, 'policy_invalid', 'period_us'));
  it('window_us 0', () => refuses({ ...P, window_us: 0n }, 'policy_invalid', 'window_us'));
  it('window_us not a multiple of period_us', () =>
    refuses({ ...P, window_us: 3_000_000n }, 'policy_invalid', 'window_us'));
  it('window_us below period_us', () =>
    refuses({ ...P, window_us: 1_000_000n }, 'policy_invalid', 'window_us'));
  it('valid: window_us = period_us; the largest u64 multiples; lag_us 0', () => {
    reads({ ...P, window_us: P.period_us });
    reads({ ...P, period_us: 1n, window_us: 0xffff_ffff_ffff_ffffn, lag_us: 0n });
    reads({ ...P, period_us: 0xffff_ffff_ffff_ffffn, window_us: 0xffff_ffff_ffff_ffffn });
  });
});

describe('§3.3 policy_invalid: basis, TTLs, hysteresis, flags', () => {
  for (const basis of [0, 3, 255]) {
    it(`basis ${basis}`, () => refuses({ ...P, basis }, 'policy_invalid', 'basis'));
  }
  it('valid: basis 2', () => reads({ ...P, basis: 2 }));
  it('min_ttl_s 0', () => refuses({ ...P, min_ttl_s: 0 }, 'policy_invalid', 'min_ttl_s'));
  it('min_ttl_s above ttl_s', () =>
    refuses({ ...P, min_ttl_s: 301, ttl_s: 300 }, 'policy_invalid', 'min_ttl_s'));
  it('ttl_s 0 (so no min_ttl_s fits)', () =>
    refuses({ ...P, min_ttl_s: 1, ttl_s: 0 }, 'policy_invalid', 'min_ttl_s'));
  it('valid: min_ttl_s = ttl_s = 1, and = 2^32 − 1', () => {
    reads({ ...P, min_ttl_s: 1, ttl_s: 1 });
    reads({ ...P, min_ttl_s: 0xffff_ffff, ttl_s: 0xffff_ffff });
  });
  it('hysteresis_ppm 1 000 001', () =>
    refuses({ ...P, hysteresis_ppm: 1_000_001 }, 'policy_invalid', 'hysteresis_ppm'));
  it('hysteresis_ppm 2^32 − 1', () =>
    refuses({ ...P, hysteresis_ppm: 0xffff_ffff }, 'policy_invalid', 'hysteresis_ppm'));
  it('valid: hysteresis_ppm 0 and 1 000 000', () => {
    reads({ ...P, hysteresis_ppm: 0 });
    reads({ ...P, hysteresis_ppm: 1_000_000 });
  });
  for (const flags of [2, 3, 0x80, 0xff]) {
    it(`flags ${flags}`, () => refuses({ ...P, flags }, 'policy_invalid', 'flags'));
  }
  it('valid: flags 0 and 1', () => {
    reads({ ...P, flags: 0 });
    reads({ ...P, flags: 1 });
  });
});

describe('§3.3 policy_invalid: tiers and floor', () => {
  it('no tier', () =>
    refuses(
      { ...P, tiers: [], floor: 0, pathways: P.pathways.map((pw) => ({ ...pw, top_tier: 0 })) },
      'policy_invalid',
      'tiers',
    ));
  it('9 tiers', () =>
    refuses(
      { ...P, tiers: Array.from({ length: 9 }, (_, i) => BigInt(i + 1)) },
      'policy_invalid',
      'tiers',
    ));
  it('valid: 1 tier, and 8 tiers', () => {
    reads({
      ...P,
      tiers: [1n],
      floor: 0,
      pathways: P.pathways.map((pw) => ({ ...pw, top_tier: 0 })),
    });
    reads({ ...P, tiers: Array.from({ length: 8 }, (_, i) => BigInt(i + 1)) });
  });
  it('a bitrate of 0', () => refuses({ ...P, tiers: [0n, 1n, 2n] }, 'policy_invalid', 'tiers[0]'));
  it('two equal bitrates', () =>
    refuses({ ...P, tiers: [1n, 5n, 5n] }, 'policy_invalid', 'tiers[2]'));
  it('descending bitrates', () =>
    refuses({ ...P, tiers: [3n, 2n, 4n] }, 'policy_invalid', 'tiers[1]'));
  it('valid: the largest u64 bitrate', () =>
    reads({ ...P, tiers: [1n, 2n, 0xffff_ffff_ffff_ffffn] }));
  it('floor = n', () => refuses({ ...P, floor: 3 }, 'policy_invalid', 'floor'));
  it('floor 255', () => refuses({ ...P, floor: 255 }, 'policy_invalid', 'floor'));
  it('valid: floor = n − 1, and 0', () => {
    reads({ ...P, floor: 2 });
    reads({ ...P, floor: 0 });
  });
});

describe('§3.3 policy_invalid: each URI (C9: RFC 3986 characters, bytes)', () => {
  const { ok, bad } = bytesBy(UNRESERVED + RESERVED_BUT_HASH);
  for (const field of ['server_uri', 'reload_uri', 'decision_uri'] as const) {
    describe(field, () => {
      const refusesUri = (uri: string) => refuses({ ...P, [field]: uri }, 'policy_invalid', field);
      const readsUri = (uri: string) => reads({ ...P, [field]: uri });
      it('empty', () => refusesUri(''));
      it('2049 bytes', () => refusesUri(`https://a/${'b'.repeat(2039)}`));
      it('valid: 1 byte, and 2048 bytes', () => {
        readsUri('a');
        readsUri(`https://a/${'b'.repeat(2038)}`);
      });
      it('#', () => refusesUri('https://a/b#frag'));
      it('a % not followed by two hex digits', () => {
        for (const uri of ['%', 'a%', 'a%4', 'a%4g', 'a%g4', 'a%%41', '%41%', 'a% 41']) {
          refusesUri(uri);
        }
      });
      it('valid: percent-encodings of either case', () => {
        for (const uri of ['%41', 'a%4a', 'a%4A%ff%00', '%7E%7e']) readsUri(uri);
      });
      it(`each of the ${bad.length} bytes outside the characters`, () => {
        for (const c of bad) refusesUri(`https://a/${c}b`);
      });
      it(`valid: each of the ${ok.length} characters`, () => {
        expect(ok.length).toBe(66 + 17);
        for (const c of ok) readsUri(`https://a/${c}b`);
        readsUri(ok.join(''));
      });
    });
  }
});

describe('§3.3 policy_invalid: pathways and their IDs', () => {
  it('no pathway', () => refuses({ ...P, pathways: [], initial: 0 }, 'policy_invalid', 'pathways'));
  it('33 pathways', () => refuses(manyPathways(33), 'policy_invalid', 'pathways'));
  it('valid: 32 pathways, and 1', () => {
    reads(manyPathways(32));
    reads(manyPathways(1));
  });
  it('an empty id', () =>
    refuses(withPathway(P, 1, { id: '' }), 'policy_invalid', 'pathways[1].id'));
  it('an id of 65 bytes', () =>
    refuses(withPathway(P, 1, { id: 'a'.repeat(65) }), 'policy_invalid', 'pathways[1].id'));
  it('valid: an id of 64 bytes, and of 1', () => {
    reads(withPathway(P, 1, { id: 'a'.repeat(64) }));
    reads(withPathway(P, 1, { id: '_' }));
  });
  const { ok, bad } = bytesBy(`${ALPHA_DIGIT}.-_`);
  it(`an id with each of the ${bad.length} other bytes (% too)`, () => {
    for (const c of [...bad, '%']) {
      refuses(withPathway(P, 1, { id: `x${c}y` }), 'policy_invalid', 'pathways[1].id');
    }
  });
  it(`valid: ids of each of the ${ok.length} characters`, () => {
    expect(ok.length).toBe(65);
    for (const c of ok) reads(withPathway(P, 1, { id: `x${c}y` }));
  });
  it('two equal ids', () =>
    refuses(withPathway(P, 3, { id: 'cdn-a' }), 'policy_invalid', 'pathways[3].id'));
  it('valid: ids that differ only in case', () => reads(withPathway(P, 1, { id: 'CDN-A' })));
});

describe('§3.3 policy_invalid: initial', () => {
  it('the index of a clone', () => refuses({ ...P, initial: 2 }, 'policy_invalid', 'initial'));
  it('the count of pathways', () => refuses({ ...P, initial: 4 }, 'policy_invalid', 'initial'));
  it('255', () => refuses({ ...P, initial: 255 }, 'policy_invalid', 'initial'));
  it('valid: 0', () => reads({ ...P, initial: 0 }));
});

describe('§3.3 policy_invalid: host and params', () => {
  it('a pathway that is not a clone with a host', () =>
    refuses(withPathway(P, 0, { host: 'a.example' }), 'policy_invalid', 'pathways[0].host'));
  it('a pathway that is not a clone with params', () =>
    refuses(
      withPathway(P, 1, { params: [{ name: 'a', value: 'b' }] }),
      'policy_invalid',
      'pathways[1].params',
    ));
  const host = bytesBy(`${ALPHA_DIGIT}-.`);
  it(`a clone's host with each of the ${host.bad.length} other bytes (% too)`, () => {
    for (const c of [...host.bad, '%']) {
      refuses(withPathway(P, 2, { host: `a${c}b` }), 'policy_invalid', 'pathways[2].host');
    }
  });
  it(`valid: a clone's host of each of the ${host.ok.length} characters, and of 255 bytes`, () => {
    expect(host.ok.length).toBe(64);
    for (const c of host.ok) reads(withPathway(P, 2, { host: `a${c}b` }));
    reads(withPathway(P, 2, { host: 'h'.repeat(255) }));
  });

  const name = (n: string) => withPathway(P, 2, { params: [{ name: n, value: 'v' }] });
  const value = (v: string) => withPathway(P, 2, { params: [{ name: 'n', value: v }] });
  it('a param name of 0 bytes', () =>
    refuses(name(''), 'policy_invalid', 'pathways[2].params[0].name'));
  it('a param name of 65 bytes', () =>
    refuses(name('n'.repeat(65)), 'policy_invalid', 'pathways[2].params[0].name'));
  it('valid: a param name of 64 bytes (lengths count encoded bytes)', () => {
    reads(name('n'.repeat(64)));
    reads(name(`${'n'.repeat(61)}%41`));
    refuses(name(`${'n'.repeat(62)}%41`), 'policy_invalid', 'pathways[2].params[0].name');
  });
  const param = bytesBy(UNRESERVED);
  it(`a param name, and a value, with each of the ${param.bad.length} other bytes`, () => {
    for (const c of param.bad) {
      refuses(name(`a${c}b`), 'policy_invalid', 'pathways[2].params[0].name');
      refuses(value(`a${c}b`), 'policy_invalid', 'pathways[2].params[0].value');
    }
  });
  it('a param name, and a value, with a % that is not a percent-encoding', () => {
    for (const s of ['%', 'a%4', '%zz', '%4%41']) {
      refuses(name(s), 'policy_invalid', 'pathways[2].params[0].name');
      refuses(value(s), 'policy_invalid', 'pathways[2].params[0].value');
    }
  });
  it(`valid: names and values of each unreserved character and percent-encodings`, () => {
    for (const c of param.ok) {
      reads(name(`a${c}b`));
      reads(value(`a${c}b`));
    }
    reads(name('%2F%2f'));
    reads(value('%20'));
    reads(value(''));
    reads(value('v'.repeat(255)));
  });
  it('two equal param names', () =>
    refuses(
      withPathway(P, 2, {
        params: [
          { name: 'a', value: '1' },
          { name: 'a', value: '2' },
        ],
      }),
      'policy_invalid',
      'pathways[2].params[1].name',
    ));
  it('param names in descending order', () =>
    refuses(
      withPathway(P, 2, {
        params: [
          { name: 'b', value: '' },
          { name: 'a', value: '' },
        ],
      }),
      'policy_invalid',
      'pathways[2].params[1].name',
    ));
  it('valid: names ascending on the bytes as stored, not as decoded (C9)', () => {
    // "%7A" decodes to "z", above "a"; stored, "%" (0x25) is below "a" (0x61).
    reads(
      withPathway(P, 2, {
        params: [
          { name: '%7A', value: '' },
          { name: 'a', value: '' },
        ],
      }),
    );
    // "Z" (0x5a) is below "a" (0x61): bytewise, not case-folded.
    reads(
      withPathway(P, 2, {
        params: [
          { name: 'Z', value: '' },
          { name: 'a', value: '' },
        ],
      }),
    );
    refuses(
      withPathway(P, 2, {
        params: [
          { name: 'a', value: '' },
          { name: 'Z', value: '' },
        ],
      }),
      'policy_invalid',
      'pathways[2].params[1].name',
    );
  });
});

describe('§3.3 policy_invalid: tiers of pathways and hops', () => {
  it('a top_tier = n', () =>
    refuses(withPathway(P, 1, { top_tier: 3 }), 'policy_invalid', 'pathways[1].top_tier'));
  it('valid: a top_tier below floor (C9)', () => {
    expect(P.pathways[3]!.top_tier).toBeLessThan(P.floor);
    reads(withPathway(P, 0, { top_tier: 0 }));
  });
  it('a pathway with no hop', () =>
    refuses(withPathway(P, 1, { hops: [] }), 'policy_invalid', 'pathways[1].hops'));
  it('a pathway with no edge hop', () =>
    refuses(
      withPathway(P, 0, {
        hops: [
          { key: KEYS.hopA1.public, place: 2 },
          { key: KEYS.hopA2.public, place: 2 },
        ],
      }),
      'policy_invalid',
      'pathways[0].hops',
    ));
  for (const place of [0, 3, 255]) {
    it(`a place ${place}`, () =>
      refuses(
        withPathway(P, 0, {
          hops: [
            { key: KEYS.hopA1.public, place: 1 },
            { key: KEYS.hopA2.public, place },
          ],
        }),
        'policy_invalid',
        'pathways[0].hops[1].place',
      ));
  }
  it('one key in two pathways', () =>
    refuses(
      withPathway(P, 3, {
        hops: [
          { key: KEYS.hopD2.public, place: 2 },
          { key: KEYS.hopA2.public, place: 1 },
        ],
      }),
      'policy_invalid',
      'pathways[3].hops[1].key',
    ));
  it('one key placed twice in one pathway (edge and interior)', () =>
    refuses(
      withPathway(P, 0, {
        hops: [
          { key: KEYS.hopA1.public, place: 1 },
          { key: KEYS.hopA1.public, place: 2 },
        ],
      }),
      'policy_invalid',
      'pathways[0].hops[1].key',
    ));
  it('valid: only edge hops; keys that differ in one bit', () => {
    const k = KEYS.hopA1.public.slice();
    k[31]! ^= 1;
    reads(
      withPathway(P, 0, {
        hops: [
          { key: KEYS.hopA1.public, place: 1 },
          { key: k, place: 1 },
        ],
      }),
    );
  });
});

describe('§3.3 policy_invalid: the sum of the min_share_ppm', () => {
  const shares = (s: readonly number[]): PolicyFields => ({
    ...P,
    pathways: P.pathways.map((pw, i) => ({ ...pw, min_share_ppm: s[i]! })),
  });
  it('1 000 001', () => refuses(shares([500_000, 500_000, 1, 0]), 'policy_invalid', 'pathways'));
  it('valid: exactly 1 000 000', () => reads(shares([500_000, 250_000, 250_000, 0])));
  it('computed without overflow: sums that wrap a u32 to a small value', () => {
    refuses(shares([0xffff_ffff, 1, 0, 0]), 'policy_invalid', 'pathways'); // ≡ 0 mod 2^32
    refuses(shares([0x8000_0000, 0x8000_0000, 100, 0]), 'policy_invalid', 'pathways');
    refuses(
      shares([0xffff_ffff, 0xffff_ffff, 0xffff_ffff, 0xffff_ffff]),
      'policy_invalid',
      'pathways',
    );
  });
  it('computed without overflow: 32 pathways of 2^32 − 1 each', () => {
    const m = manyPathways(32);
    refuses(
      { ...m, pathways: m.pathways.map((pw) => ({ ...pw, min_share_ppm: 0xffff_ffff })) },
      'policy_invalid',
      'pathways',
    );
  });
  it('one share above 1 000 000', () =>
    refuses(shares([1_000_001, 0, 0, 0]), 'policy_invalid', 'pathways'));
});

describe('WSP1 record order: rules come after a complete read (C1)', () => {
  it('an invalid policy cut short is truncated', () => {
    const bytes = raw.policy({ ...P, basis: 3 });
    expectRefused(readPolicy(bytes.subarray(0, bytes.length - 1)), 'truncated', 'sig');
  });
  it('an invalid policy with a byte left over is malformed', () => {
    const bytes = raw.policy(withPathway(P, 2, { base: 3 }));
    const longer = new Uint8Array(bytes.length + 1);
    longer.set(bytes);
    expectRefused(readPolicy(longer), 'malformed', 'sig', bytes.length);
  });
});

describeRoundTrip<PolicyFields>({
  magic: 'WSP1',
  domainHex: '7761693a7374656572696e672d706f6c69637901', // "wai:steering-policy" 0x01
  fields: P,
  secret: KEYS.steer.secret,
  signerOf: (p) => p.signer,
  withSigner: (p, signer) => ({ ...p, signer }),
  sign: signPolicy,
  encode: encodePolicy,
  read: readPolicy,
  layout: policyLayout,
  verify: verifyPolicySignature,
  tweak: (p) => ({ ...p, lag_us: p.lag_us + 1n }),
  invalid: { fields: { ...P, flags: 2 }, reason: 'policy_invalid' },
});
