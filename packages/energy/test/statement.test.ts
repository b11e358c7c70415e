// The signed statement (item 3): two lines signed as a C2SP signed note under the log's key
// name and key ID, verified; and the auditor's comparison: exact fields to the unit, floats
// within 1e-9 relative.
import { ed25519Signer, openNote, SIGNATURE_TYPE, verifierKey } from '@wai-steering/tlog';
import { nobleBackend } from '@wai-steering/wire';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  accountJson,
  compareAccounts,
  type EnergyAccount,
  energyAccount,
  openStatement,
  STATEMENT_HEADER,
  signStatement,
  statementText,
  writeAccount,
} from '../src/index.js';
import { energyAccountArb } from './helpers/arbitrary.js';
import { hopKey, period, policyOf } from './helpers/fixtures.js';

const ORIGIN = 'steer.example/log';
const secret = new Uint8Array(32).fill(7);
const signer = ed25519Signer(ORIGIN, secret, nobleBackend);
const keys = [signer.verifierKey];

/** An account with both views stated: two pathways of 40 periods each. */
function account(): EnergyAccount {
  const policy = policyOf([
    { id: 'a', places: [1] },
    { id: 'b', places: [1] },
  ]);
  const P = 1_000_000n;
  const records = [];
  for (let k = 0; k < 40; k++) {
    const d = BigInt(1000 + ((k * 7919) % 5000));
    records.push(
      period(hopKey(0, 0), P, k, { bytes: d, joules: 90_000n + 3n * d + BigInt(k % 7) }),
    );
    records.push(
      period(hopKey(1, 0), P, k, { bytes: 2n * d, joules: 50_000n + 2n * d + BigInt(k % 5) }),
    );
  }
  return energyAccount({ policies: [{ at: 0n, policy }], from: 0n, to: 40n * P, records });
}

describe('the statement', () => {
  const a = account();
  const note = signStatement(a, signer);

  it('is exactly two lines, the header and the canonical JSON, signed under the log’s key name', () => {
    const text = statementText(a);
    expect(text).toBe(`${STATEMENT_HEADER}\n${writeAccount(a)}\n`);
    expect(note.startsWith(`${text}\n— ${ORIGIN} `)).toBe(true);
    // The key ID of the log's checkpoints: SHA-256(origin ‖ 0x0A ‖ 0x01 ‖ public key)[0..4].
    const key = verifierKey(ORIGIN, SIGNATURE_TYPE.ed25519, nobleBackend.publicKey(secret));
    expect(openNote(note, [key]).ok).toBe(true);
  });

  it('verifies, and gives the account it states', () => {
    const opened = openStatement(note, keys);
    expect(opened.ok).toBe(true);
    if (!opened.ok) return;
    expect(opened.value.account).toEqual(accountJson(a));
    expect(opened.value.verified).toHaveLength(1);
    expect(openStatement(new TextEncoder().encode(note), keys).ok).toBe(true);
  });

  it('is refused when signed by another key, or changed after it was signed', () => {
    const other = ed25519Signer(ORIGIN, new Uint8Array(32).fill(8), nobleBackend);
    const r1 = openStatement(note, [other.verifierKey]);
    expect(!r1.ok && r1.refusal.reason).toBe('unverified');
    const changed = note.replace('"basis":1', '"basis":2');
    const r2 = openStatement(changed, keys);
    expect(!r2.ok && r2.refusal.reason).toBe('bad_signature');
    const r3 = openStatement('not a note', keys);
    expect(!r3.ok && r3.refusal.reason).toBe('malformed');
  });

  it('is refused when its text is not the two lines, or its JSON not canonical or not an account', () => {
    const sign = (text: string) => signNoteText(text);
    const json = writeAccount(a);
    const cases: [string, string][] = [
      [`${json}\n`, 'not_a_statement'],
      [`${STATEMENT_HEADER}\n${json}\nmore\n`, 'not_a_statement'],
      [`wai-steering energy statement v2\n${json}\n`, 'not_a_statement'],
      [
        `${STATEMENT_HEADER}\n${JSON.stringify(JSON.parse(json), null, 1).replace(/\n/g, '')}\n`,
        'not_canonical',
      ],
      [
        `${STATEMENT_HEADER}\n${json.replace('{"baseline"', '{"to":"0","baseline"')}\n`,
        'duplicate_member',
      ],
      [`${STATEMENT_HEADER}\n{"room":"x"}\n`, 'not_an_account'],
    ];
    for (const [text, reason] of cases) {
      const r = openStatement(sign(text), keys);
      expect(!r.ok && r.refusal.reason, text.slice(0, 60)).toBe(reason);
    }
  });
});

function signNoteText(text: string): string {
  const message = new TextEncoder().encode(text);
  const sig = signer.sign(message);
  const bytes = new Uint8Array(4 + sig.length);
  new DataView(bytes.buffer).setUint32(0, signer.keyId);
  bytes.set(sig, 4);
  return `${text}\n— ${ORIGIN} ${btoa(String.fromCharCode(...bytes))}\n`;
}

describe('compareAccounts', () => {
  const a = accountJson(account());

  it('agrees with the same account, and with floats that differ within 1e-9 relative', () => {
    expect(compareAccounts(a, a)).toBe('agrees');
    const ci = a.pathways[0]!.marginal_ci95_pj_per_unit!;
    const near = {
      ...a,
      pathways: [
        { ...a.pathways[0]!, marginal_ci95_pj_per_unit: [ci[0] * (1 + 5e-10), ci[1]] as const },
        a.pathways[1]!,
      ],
    };
    expect(compareAccounts(a, near)).toBe('agrees');
    const far = {
      ...a,
      pathways: [
        { ...a.pathways[0]!, marginal_ci95_pj_per_unit: [ci[0] * (1 + 2e-9), ci[1]] as const },
        a.pathways[1]!,
      ],
    };
    expect(compareAccounts(a, far)).toEqual({
      differs: ['/pathways/0/marginal_ci95_pj_per_unit/0'],
    });
  });

  it('finds a statement whose saving was raised by 1 µJ', () => {
    const raised = { ...a, saved_marginal_uj: (BigInt(a.saved_marginal_uj!) + 1n).toString() };
    expect(compareAccounts(a, raised)).toEqual({ differs: ['/saved_marginal_uj'] });
    const avg = { ...a, saved_average_uj: (BigInt(a.saved_average_uj!) + 1n).toString() };
    expect(compareAccounts(a, avg)).toEqual({ differs: ['/saved_average_uj'] });
  });

  it('compares exact fields exactly, nulls and missing pathways included', () => {
    const b = {
      ...a,
      pathways: [{ ...a.pathways[0]!, r2: null, periods: a.pathways[0]!.periods + 1 }],
    };
    expect(compareAccounts(a, b)).toEqual({
      differs: ['/pathways/0/periods', '/pathways/0/r2', '/pathways/1'],
    });
  });

  it('agrees exactly when the accounts are equal, and only then for exact fields', () => {
    fc.assert(
      fc.property(energyAccountArb, energyAccountArb, (x, y) => {
        const jx = accountJson(x);
        expect(compareAccounts(jx, jx)).toBe('agrees');
        const jy = accountJson(y);
        if (writeAccount(x) !== writeAccount(y)) expect(compareAccounts(jx, jy)).not.toBe('agrees');
      }),
      { numRuns: 200 },
    );
  });
});
