// energy-steering §7.2 (and C9 "Decision"): one control per rule of `decision_invalid`.

import { describe, expect, it } from 'vitest';
import {
  type DecisionFields,
  type DecisionPathway,
  encodeDecision,
  type Reason,
  readDecision,
  signDecision,
  verifyDecisionSignature,
} from '../../src/index.js';
import {
  decisionFields,
  decisionLayout,
  describeRoundTrip,
  expectRead,
  expectRefused,
  fakeDigest,
  KEYS,
  offsetOf,
  raw,
} from '../fixtures.js';

const D = decisionFields();

function refuses(d: DecisionFields, reason: Reason, field: string): void {
  expectRefused(readDecision(raw.decision(d)), reason, field, offsetOf(decisionLayout(d), field));
}

function reads(d: DecisionFields): void {
  expectRead(readDecision(raw.decision(d)));
}

function withPw(i: number, patch: Partial<DecisionPathway>, d: DecisionFields = D): DecisionFields {
  return { ...d, pathways: d.pathways.map((pw, j) => (j === i ? { ...pw, ...patch } : pw)) };
}

function report(patch: Partial<DecisionFields['report']>): DecisionFields {
  return { ...D, report: { ...D.report, ...patch } };
}

describe('WSD1: the fixture', () => {
  it('reads: a figure, an unmetered pathway and a stale one', () => {
    const d = expectRead(readDecision(raw.decision(D)));
    expect(d.pathways.map((pw) => pw.status)).toEqual([0, 1, 3]);
    expect(d.pathways[0]!.joules).toBe((1n << 100n) + 5n);
  });
  it('the fixed offsets of the layout are those of §7.1', () => {
    const l = decisionLayout(D);
    // magic 4, version 1, room 32, signer 32, policy 32, t 8, session 16, draw 4, protocol 1
    expect(offsetOf(l, 'draw')).toBe(4 + 1 + 32 * 3 + 8 + 16);
    expect(offsetOf(l, 'protocol')).toBe(129);
    expect(offsetOf(l, 'report.present')).toBe(130);
    expect(offsetOf(l, 'pathways')).toBe(130 + 18);
  });
});

describe('§7.2 bullet 1: protocol, draw, ttl, reason', () => {
  for (const protocol of [0, 3, 255]) {
    it(`protocol ${protocol}`, () => refuses({ ...D, protocol }, 'decision_invalid', 'protocol'));
  }
  it('valid: protocol 2 (DASH)', () => reads({ ...D, protocol: 2 }));
  it('draw 1 000 000', () => refuses({ ...D, draw: 1_000_000 }, 'decision_invalid', 'draw'));
  it('draw 2^32 − 1', () => refuses({ ...D, draw: 0xffff_ffff }, 'decision_invalid', 'draw'));
  it('valid: draw 0 and 999 999', () => {
    reads({ ...D, draw: 0 });
    reads({ ...D, draw: 999_999 });
  });
  it('ttl 0', () => refuses({ ...D, ttl: 0 }, 'decision_invalid', 'ttl'));
  it('valid: ttl 1 and 2^32 − 1', () => {
    reads({ ...D, ttl: 1 });
    reads({ ...D, ttl: 0xffff_ffff });
  });
  for (const reason of [0, 7, 255]) {
    it(`reason ${reason}`, () => refuses({ ...D, reason }, 'decision_invalid', 'reason'));
  }
  it('valid: reasons 1 to 6', () => {
    for (let reason = 1; reason <= 6; reason++) reads({ ...D, reason });
  });
});

describe('§7.2 bullet 2: the report', () => {
  for (const present of [8, 0x0f, 0x80]) {
    it(`present ${present}: a bit above bit 2`, () =>
      refuses(report({ present }), 'decision_invalid', 'report.present'));
  }
  it('an absent pathway that is not 0', () =>
    refuses(report({ present: 6, pathway: 1 }), 'decision_invalid', 'report.pathway'));
  it('an absent throughput that is not 0', () =>
    refuses(report({ present: 5, throughput: 1n }), 'decision_invalid', 'report.throughput'));
  it('an absent buffer that is not 0', () =>
    refuses(report({ present: 3, buffer: 1n }), 'decision_invalid', 'report.buffer'));
  it('a present pathway = the count of pathways', () =>
    refuses(report({ pathway: 3 }), 'decision_invalid', 'report.pathway'));
  it('a present pathway of 255', () =>
    refuses(report({ pathway: 255 }), 'decision_invalid', 'report.pathway'));
  it('valid: nothing present, all 0; present values of 0; the last pathway', () => {
    reads(report({ present: 0, pathway: 0, throughput: 0n, buffer: 0n }));
    reads(report({ present: 7, pathway: 0, throughput: 0n, buffer: 0n }));
    reads(report({ pathway: 2, throughput: 0xffff_ffff_ffff_ffffn }));
  });
});

describe('§7.2 bullet 3: each pathway', () => {
  for (const limits of [8, 0x0f, 0xff]) {
    it(`limits ${limits}: a bit above bit 2`, () =>
      refuses(withPw(1, { limits }), 'decision_invalid', 'pathways[1].limits'));
  }
  for (const status of [5, 255]) {
    it(`status ${status}`, () =>
      refuses(withPw(2, { status }), 'decision_invalid', 'pathways[2].status'));
  }
  it('valid: statuses 1 to 4 with no figure; limits 0 to 7', () => {
    for (let status = 1; status <= 4; status++) reads(withPw(2, { status }));
    for (let limits = 0; limits <= 7; limits++) reads(withPw(0, { limits }));
  });
  for (const cls of [0, 1, 6, 255]) {
    it(`status 0 with class ${cls}`, () =>
      refuses(withPw(0, { class: cls }), 'decision_invalid', 'pathways[0].class'));
  }
  it('valid: status 0 with classes 2 to 5', () => {
    for (let cls = 2; cls <= 5; cls++) reads(withPw(0, { class: cls }));
  });
  it('status 0 with joules 0', () =>
    refuses(withPw(0, { joules: 0n }), 'decision_invalid', 'pathways[0].joules'));
  it('status 0 with delivery 0', () =>
    refuses(withPw(0, { delivery: 0n }), 'decision_invalid', 'pathways[0].delivery'));
  it('valid: status 0 with joules and delivery of 1 and of 2^128 − 1', () => {
    reads(withPw(0, { joules: 1n, delivery: 1n }));
    reads(withPw(0, { joules: (1n << 128n) - 1n, delivery: (1n << 128n) - 1n }));
  });
  it('another status with a class', () =>
    refuses(withPw(1, { class: 4 }), 'decision_invalid', 'pathways[1].class'));
  it('another status with joules', () =>
    refuses(withPw(1, { joules: 1n }), 'decision_invalid', 'pathways[1].joules'));
  it('another status with a delivery', () =>
    refuses(withPw(2, { delivery: 1n << 127n }), 'decision_invalid', 'pathways[2].delivery'));
});

describe('§7.2 bullet 4: no digest named twice', () => {
  it('twice in one pathway', () =>
    refuses(
      withPw(0, { evidence: [fakeDigest(10), fakeDigest(10)] }),
      'decision_invalid',
      'pathways[0].evidence[1]',
    ));
  it('in two pathways (C9)', () =>
    refuses(
      withPw(2, { evidence: [fakeDigest(11)] }),
      'decision_invalid',
      'pathways[2].evidence[0]',
    ));
  it('valid: digests that differ in their last byte', () => {
    const a = fakeDigest(10);
    const b = a.slice();
    b[31]! ^= 1;
    reads(withPw(0, { evidence: [a, b] }));
  });
});

describe('§7.2 bullet 5: the priority is a permutation', () => {
  it('one index fewer', () => refuses({ ...D, priority: [2, 0] }, 'decision_invalid', 'priority'));
  it('one index more', () =>
    refuses({ ...D, priority: [2, 0, 1, 0] }, 'decision_invalid', 'priority'));
  it('an index twice', () =>
    refuses({ ...D, priority: [2, 0, 2] }, 'decision_invalid', 'priority[2]'));
  it('an index = the count', () =>
    refuses({ ...D, priority: [3, 0, 1] }, 'decision_invalid', 'priority[0]'));
  it('valid: every permutation of three', () => {
    const perms = [
      [0, 1, 2],
      [0, 2, 1],
      [1, 0, 2],
      [1, 2, 0],
      [2, 0, 1],
      [2, 1, 0],
    ];
    for (const priority of perms) reads({ ...D, priority });
  });
  it('valid: no pathway and an empty priority, nothing present', () =>
    reads({
      ...D,
      pathways: [],
      priority: [],
      report: { present: 0, pathway: 0, throughput: 0n, buffer: 0n },
    }));
});

describe('WSD1 record order: rules come after a complete read (C1)', () => {
  it('an invalid decision cut inside its priority is truncated there', () => {
    const d = { ...D, draw: 1_000_000 };
    const bytes = raw.decision(d);
    const at = offsetOf(decisionLayout(d), 'priority[1]');
    expectRefused(readDecision(bytes.subarray(0, at)), 'truncated', 'priority[1]', at);
  });
});

describeRoundTrip<DecisionFields>({
  magic: 'WSD1',
  domainHex: '7761693a7374656572696e672d6465636973696f6e01', // "wai:steering-decision" 0x01
  fields: D,
  secret: KEYS.steer.secret,
  signerOf: (d) => d.signer,
  withSigner: (d, signer) => ({ ...d, signer }),
  sign: signDecision,
  encode: encodeDecision,
  read: readDecision,
  layout: decisionLayout,
  verify: verifyDecisionSignature,
  tweak: (d) => ({ ...d, draw: d.draw + 1 }),
  invalid: { fields: { ...D, ttl: 0 }, reason: 'decision_invalid' },
});
