// The README's worked example end to end: keys, room, key log,
// policy, records, decide, verify accepted, then a tampered decision refused with its reason.
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { outcomeJson, verifyDecision } from '@wai-steering/verifier';
import {
  digestOf,
  readDecision,
  readKeyLog,
  readPolicy,
  signDecision,
  toHex,
  unwrap,
} from '@wai-steering/wire';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildExample, decideArgs, type Example, SESSION, verifyArgs } from './example.js';
import { cli, ok, tempDir } from './helpers.js';

let ex: Example;
let dir: string;

beforeAll(async () => {
  dir = tempDir();
  ex = await buildExample(dir);
});

const read = (name: string): Uint8Array => new Uint8Array(readFileSync(join(dir, name)));

describe('the worked example', () => {
  it('writes secret keys with mode 0600', async () => {
    await ok(['keygen', '--out', 'fresh.jwk'], dir);
    expect(statSync(join(dir, 'fresh.jwk')).mode & 0o777).toBe(0o600);
    const jwk = JSON.parse(readFileSync(join(dir, 'fresh.jwk'), 'utf8'));
    expect(Object.keys(jwk)).toEqual(['kty', 'crv', 'x', 'd']);
    expect(jwk.kty).toBe('OKP');
    expect(jwk.crv).toBe('Ed25519');
  });

  it('chains the key log heads: seq + 1, prev the digest of the head before', () => {
    const heads = [0, 1, 2].map((i) => unwrap(readKeyLog(read(`keylog-${i}.wkl`))));
    expect(heads.map((h) => h.seq)).toEqual([0n, 1n, 2n]);
    expect(toHex(heads[1]!.prev)).toBe(toHex(digestOf(heads[0]!)));
    expect(toHex(heads[2]!.prev)).toBe(toHex(digestOf(heads[1]!)));
    const last = heads[2]!;
    const keys = last.entries.map((e) => toHex(e.key));
    expect(keys).toEqual([...keys].sort());
    expect(last.entries.find((e) => toHex(e.key) === ex.keys['hop-old'])?.status).toBe(2);
    expect(last.entries.find((e) => toHex(e.key) === ex.keys['hop-c-edge'])?.may_sign).toEqual([
      'energy/OnChipCounter',
      'live/hop',
    ]);
  });

  it('compiles the policy from YAML with its readable units', async () => {
    const policy = unwrap(readPolicy(read('policy.wsp')));
    expect(toHex(digestOf(policy))).toBe(ex.policyDigest);
    expect(toHex(policy.room)).toBe(ex.roomId);
    expect(toHex(policy.signer)).toBe(ex.keys.steer);
    expect(policy.period_us).toBe(2_000_000n);
    expect(policy.window_us).toBe(4_000_000n);
    expect(policy.lag_us).toBe(500_000n);
    expect(policy.latency_ceiling_ms).toBe(150);
    expect(policy.min_buffer_ms).toBe(4000);
    expect(policy.hysteresis_ppm).toBe(50_000);
    expect([policy.ttl_s, policy.min_ttl_s]).toEqual([300, 30]);
    expect(policy.tiers).toEqual([800_000n, 2_500_000n, 6_000_000n]);
    expect(policy.pathways.map((p) => [p.id, p.base, p.host, p.capacity, p.min_share_ppm])).toEqual(
      [
        ['cdn-a', 255, '', 0xffff_ffff, 20_000],
        ['cdn-b', 255, '', 0xffff_ffff, 0],
        ['cdn-b-eu', 1, 'eu.cdn-b.example.com', 1000, 0],
      ],
    );
    expect(policy.pathways[2]!.params).toEqual([{ name: 'region', value: 'eu' }]);
    const json = JSON.parse(await ok(['policy', 'inspect', 'policy.wsp', '--json'], dir));
    expect(json.digest).toBe(ex.policyDigest);
    expect(json.period_us).toBe('2000000');
    expect(await ok(['policy', 'inspect', 'policy.wsp'], dir)).toContain(
      'hysteresis       5% (50000 ppm)',
    );
  });

  it('prints the report of the request (C8)', async () => {
    const r = await cli(['report', '--policy', 'policy.wsp', '--request', 'request.json'], dir);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('{"pathway":0,"throughput":"5000000","buffer":"12000"}\n');
  });

  it('decides, and verify accepts (exit 0) with the C8 outcome', async () => {
    const digest = (await ok(decideArgs(), dir)).trim();
    const decisionBytes = read('decision.wsd');
    const decision = unwrap(readDecision(decisionBytes));
    expect(toHex(digestOf(decision))).toBe(digest);
    expect(toHex(decision.session)).toBe(SESSION);
    expect(decision.t).toBe(10_500_000n);
    expect(decision.pathways.map((p) => p.load)).toEqual([10, 20, 5]);
    expect(decision.pathways.map((p) => p.evidence.length)).toEqual([4, 2, 2]);
    const manifest = readFileSync(join(dir, 'manifest.json'), 'utf8');
    expect(manifest.endsWith('}')).toBe(true); // §8.1, C9: no line terminator

    const r = await cli([...verifyArgs(), '--json'], dir);
    expect(r.code).toBe(0);
    expect(r.stdout.endsWith('\n')).toBe(true);
    expect(r.stdout.slice(0, -1)).not.toContain('\n');
    const outcome = JSON.parse(r.stdout);
    // C8: the members in C8's order.
    expect(Object.keys(outcome)).toEqual([
      'outcome',
      'digest',
      'priority',
      'ttl',
      'reason',
      'pathways',
      'manifest',
      'uri',
    ]);
    expect(Object.keys(outcome.pathways[0])).toEqual([
      'id',
      'status',
      'class',
      'joules',
      'delivery',
      'limits',
    ]);
    expect(Object.keys(outcome.pathways[0].limits)).toEqual(['latency', 'quality', 'capacity']);
    expect(outcome).toMatchObject({
      outcome: 'accept',
      digest,
      priority: ['cdn-b', 'cdn-b-eu', 'cdn-a'],
      ttl: 300,
      reason: 'rank',
      manifest,
      uri: `https://steer.example.com/decisions/${digest}`,
    });
    expect(outcome.pathways[0]).toEqual({
      id: 'cdn-a',
      status: 'figure',
      class: 4,
      joules: '2660000',
      delivery: '102000000',
      limits: { latency: true, quality: true, capacity: true },
    });
    // The outcome is the verifier's, byte for byte.
    const { readdirSync } = await import('node:fs');
    const direct = verifyDecision({
      room: read('room.wrd'),
      keyLog: read('keylog-2.wkl'),
      policy: read('policy.wsp'),
      decision: decisionBytes,
      records: readdirSync(join(dir, 'records'))
        .sort()
        .map((f) => read(join('records', f))),
      manifest,
    });
    expect(r.stdout).toBe(`${outcomeJson(direct)}\n`);
  });

  it('gives a readable account of an accepted decision', async () => {
    const r = await cli(verifyArgs(), dir);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^ACCEPTED decision [0-9a-f]{64}\n/);
    expect(r.stdout).toContain('priority cdn-b, cdn-b-eu, cdn-a');
    expect(r.stdout).toContain('reason   rank: ');
    expect(r.stdout).toContain('ttl      300s');
    expect(r.stdout).toMatch(
      /cdn-a +figure +26\.07 J\/GB: 2\.66 J over 102 MB \(OnChipCounter\); latency ok, quality ok, capacity ok/,
    );
  });

  it('refuses a decision with one byte flipped (exit 1), with its reason and place', async () => {
    const bytes = read('decision.wsd');
    bytes[bytes.length - 70]! ^= 0x01; // a byte of the priority/ttl, under the signature
    writeFileSync(join(dir, 'flipped.wsd'), bytes);
    const r = await cli([...verifyArgs('flipped.wsd'), '--json'], dir);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe(
      '{"outcome":"refuse","reason":"bad_signature","where":{"at":"decision"}}\n',
    );
    const text = await cli(verifyArgs('flipped.wsd'), dir);
    expect(text.code).toBe(1);
    expect(text.stdout).toContain('REFUSED: bad_signature');
    expect(text.stdout).toContain('at       the decision');
    expect(text.stdout).toMatch(/meaning {2}The signature does not verify/);
  });

  it('refuses a decision re-signed with a wrong TTL: decision_mismatch at output', async () => {
    const decision = unwrap(readDecision(read('decision.wsd')));
    const secret = JSON.parse(readFileSync(join(dir, 'steer.jwk'), 'utf8')).d as string;
    const { parseBase64url } = await import('@wai-steering/wire');
    const wrong = signDecision({ ...decision, ttl: decision.ttl + 1 }, parseBase64url(secret)!);
    writeFileSync(join(dir, 'wrong-ttl.wsd'), wrong);
    const r = await cli([...verifyArgs('wrong-ttl.wsd', null), '--json'], dir);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe(
      '{"outcome":"refuse","reason":"decision_mismatch","where":{"at":"output"}}\n',
    );
  });

  it('refuses a manifest with a trailing newline (manifest_mismatch)', async () => {
    writeFileSync(
      join(dir, 'manifest-nl.json'),
      `${readFileSync(join(dir, 'manifest.json'), 'utf8')}\n`,
    );
    const r = await cli([...verifyArgs('decision.wsd', 'manifest-nl.json'), '--json'], dir);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe(
      '{"outcome":"refuse","reason":"manifest_mismatch","where":{"at":"manifest"}}\n',
    );
  });

  it('refuses when a named record is missing, at evidence with pathway and record', async () => {
    const { cpSync, rmSync } = await import('node:fs');
    cpSync(join(dir, 'records'), join(dir, 'records-2'), { recursive: true });
    rmSync(join(dir, 'records-2', 'a-mid-8s.wmh'));
    const args = verifyArgs().map((a) => (a === 'records' ? 'records-2' : a));
    const r = await cli([...args, '--json'], dir);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe(
      '{"outcome":"refuse","reason":"record_missing","where":{"at":"evidence","pathway":0,"record":3}}\n',
    );
    const text = await cli(args, dir);
    // People count from 1: C8's record 3 of pathway 0 is the fourth record of the first pathway.
    expect(text.stdout).toContain('at       record 4 named under pathway 1 (cdn-a)');
  });

  it('decides the same bytes twice (deterministic signing)', async () => {
    await ok(decideArgs('again.wsd', 'again.json'), dir);
    expect(read('again.wsd')).toEqual(read('decision.wsd'));
    expect(read('again.json')).toEqual(read('manifest.json'));
  });
});
