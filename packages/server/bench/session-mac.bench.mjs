// The session MAC's HMAC-SHA-256 of an 8-byte nonce (a session: two a steering request, a check
// and a mint), each way a library offers it, keyed once where it can be; µs per tag of this
// process's CPU, rounds alternating, each against node:crypto's `createHmac`:
//
//   node bench/session-mac.bench.mjs   (BENCH_ROUNDS, BENCH_SECONDS)
//
// The server uses the fastest (`src/guard/session-mac.ts`). A SHA-256 compression written out for
// it (two compressions a tag, the padded keys compressed once) was measured against the fastest
// and removed: it saved 1.5 to 2.0 % of a steering request's CPU (docs/decisions.md).
import { createHmac, hash, randomBytes } from 'node:crypto';
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { compare, fmt, settings, table } from '@wai-steering/bench';

const { rounds, seconds } = settings({ rounds: 7, seconds: 0.5, clock: 'cpu' });
const key = new Uint8Array(randomBytes(32));
const nonces = Array.from({ length: 1024 }, () => new Uint8Array(randomBytes(8)));
let sink = 0;

/** RFC 2104 as two one-shot `hash` calls, over the padded keys written once. */
const inner = Buffer.alloc(64 + 8);
const outer = Buffer.alloc(64 + 32);
for (let i = 0; i < 64; i++) {
  inner[i] = (key[i] ?? 0) ^ 0x36;
  outer[i] = (key[i] ?? 0) ^ 0x5c;
}
/** noble's HMAC keyed once, cloned into one reused instance a tag. */
const keyed = hmac.create(sha256, key);
let work;
const digest = new Uint8Array(32);
/** noble's SHA-256 after each padded key, cloned into two reused instances a tag (the server's). */
const pad = new Uint8Array(64);
pad.set(key);
const innerState = sha256.create().update(pad.map((b) => b ^ 0x36));
const outerState = sha256.create().update(pad.map((b) => b ^ 0x5c));
let innerWork;
let outerWork;

const ops = {
  "@noble/hashes sha256, keyed once, cloned (the server's)": (i) => {
    innerWork = innerState._cloneInto(innerWork);
    innerWork.update(nonces[i & 1023]);
    innerWork.digestInto(digest);
    outerWork = outerState._cloneInto(outerWork);
    outerWork.update(digest);
    outerWork.digestInto(digest);
    sink ^= digest[0];
  },
  '@noble/hashes hmac, keyed once, cloned': (i) => {
    work = keyed._cloneInto(work);
    work.update(nonces[i & 1023]);
    work.digestInto(digest);
    sink ^= digest[0];
  },
  'node:crypto hash, twice': (i) => {
    inner.set(nonces[i & 1023], 64);
    outer.set(hash('sha256', inner, 'buffer'), 64);
    sink ^= hash('sha256', outer, 'buffer')[0];
  },
  '@noble/hashes hmac, a call': (i) => {
    sink ^= hmac(sha256, key, nonces[i & 1023])[0];
  },
};
const baseline = (i) => {
  sink ^= createHmac('sha256', key)
    .update(nonces[i & 1023])
    .digest()[0];
};
const got = compare(baseline, ops, { rounds, seconds, clock: 'cpu', batch: 256 });
table(
  `session MAC: HMAC-SHA-256 of 8 bytes, µs a tag of CPU (median of ${rounds} rounds)`,
  ['how', 'µs a tag', '× createHmac'],
  [
    ['node:crypto createHmac (the baseline)', fmt.us(got.baseline.median), '1.000 ×'],
    ...Object.keys(ops).map((k) => [k, fmt.us(got[k].median), fmt.ratio(got[k].ratio)]),
  ],
);
if (sink === 0.5) console.log('');
