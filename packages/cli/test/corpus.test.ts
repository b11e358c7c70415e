// The repository's corpus through the command line's file paths: every request's `report`,
// every vector's `verify --json` (byte for byte the corpus's C8 outcome, exit 0 or 1), and the
// HLS tag and DASH element. Skipped when the corpus is not there.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Corpus } from '@wai-steering/verifier';
import {
  nobleBackend,
  parseHex,
  readDecision,
  readPolicy,
  secretKeyToJwk,
  toHex,
  unwrap,
} from '@wai-steering/wire';
import { describe, expect, it } from 'vitest';
import { cli, tempDir } from './helpers.js';
import { REPO_DIR } from './paths.js';

const VECTORS = join(REPO_DIR, 'conformance', 'vectors.json');

const corpus = existsSync(VECTORS)
  ? (JSON.parse(readFileSync(VECTORS, 'utf8')) as Corpus)
  : undefined;

const bytes = (hex: string): Uint8Array => parseHex(hex)!;

describe.skipIf(corpus === undefined)('the corpus, through the command line', () => {
  it('report gives every request its report, byte for byte', async () => {
    const dir = tempDir();
    for (const [i, r] of corpus!.requests.entries()) {
      writeFileSync(join(dir, `p${i}.wsp`), bytes(r.policy));
      writeFileSync(join(dir, `r${i}.json`), JSON.stringify(r.request));
      const got = await cli(['report', '--policy', `p${i}.wsp`, '--request', `r${i}.json`], dir);
      expect(got.code, r.name).toBe(0);
      expect(got.stdout, r.name).toBe(`${JSON.stringify(r.report)}\n`);
    }
  });

  it('verify --json gives every vector its outcome, byte for byte, and its exit status', async () => {
    const root = tempDir();
    for (const [i, v] of corpus!.vectors.entries()) {
      const dir = join(root, String(i));
      mkdirSync(join(dir, 'records'), { recursive: true });
      writeFileSync(join(dir, 'room'), bytes(v.room));
      if (v.key_log !== null) writeFileSync(join(dir, 'key-log'), bytes(v.key_log));
      writeFileSync(join(dir, 'policy'), bytes(v.policy));
      writeFileSync(join(dir, 'decision'), bytes(v.decision));
      // File-name order is the corpus's order.
      v.records.forEach((r, j) => {
        writeFileSync(join(dir, 'records', String(j).padStart(4, '0')), bytes(r));
      });
      if (v.manifest !== null) writeFileSync(join(dir, 'manifest'), v.manifest);
      const args = ['verify', '--room', 'room', '--policy', 'policy', '--decision', 'decision'];
      args.push('--records', 'records', '--json');
      if (v.key_log !== null) args.push('--key-log', 'key-log');
      if (v.manifest !== null) args.push('--manifest', 'manifest');
      const got = await cli(args, dir);
      expect(got.stdout, v.name).toBe(`${JSON.stringify(v.outcome)}\n`);
      expect(got.code, v.name).toBe(v.outcome.outcome === 'accept' ? 0 : 1);
      // The tag and element of a policy that reads (as the corpus runner checks them).
      const tag = await cli(['hls-tag', 'policy'], dir);
      if (tag.code === 0 && v.hls_tag !== undefined) expect(tag.stdout, v.name).toBe(v.hls_tag);
      const element = await cli(['dash-element', 'policy'], dir);
      if (element.code === 0 && v.dash_element !== undefined) {
        expect(element.stdout, v.name).toBe(v.dash_element);
      }
    }
  });

  it('decide remakes every accepted decision and its manifest, byte for byte', async () => {
    // The corpus's signers: secret = SHA-256("wai-conformance:" ‖ label) (conformance/src/keys.ts).
    const secrets = new Map<string, Uint8Array>();
    for (const label of ['origin-room/steer', 'origin-room/authority', 'solo-room/authority']) {
      const secret = nobleBackend.sha256(new TextEncoder().encode(`wai-conformance:${label}`));
      secrets.set(toHex(nobleBackend.publicKey(secret)), secret);
    }
    const root = tempDir();
    let compared = 0;
    for (const [i, v] of corpus!.vectors.entries()) {
      if (v.outcome.outcome !== 'accept') continue;
      const decision = unwrap(readDecision(bytes(v.decision)));
      const policy = unwrap(readPolicy(bytes(v.policy)));
      const secret = secrets.get(toHex(decision.signer));
      if (secret === undefined) continue;
      const dir = join(root, String(i));
      mkdirSync(join(dir, 'records'), { recursive: true });
      writeFileSync(join(dir, 'room'), bytes(v.room));
      if (v.key_log !== null) writeFileSync(join(dir, 'key-log'), bytes(v.key_log));
      writeFileSync(join(dir, 'policy'), bytes(v.policy));
      v.records.forEach((r, j) => {
        writeFileSync(join(dir, 'records', String(j).padStart(4, '0')), bytes(r));
      });
      writeFileSync(join(dir, 'key.jwk'), JSON.stringify(secretKeyToJwk(secret)));
      // A request that reads as the decision's report (§4.2, §4.3, §4.4).
      const { present, pathway, throughput, buffer } = decision.report;
      const family = decision.protocol === 1 ? '_HLS_' : '_DASH_';
      const query: string[] = [];
      if ((present & 1) !== 0) query.push(`${family}pathway=%22${policy.pathways[pathway]!.id}%22`);
      if ((present & 2) !== 0) query.push(`${family}throughput=${throughput}`);
      if ((present & 4) !== 0) query.push(`CMCD=bl%3D${buffer}`);
      const protocol = decision.protocol === 1 ? 'hls' : 'dash';
      writeFileSync(
        join(dir, 'request.json'),
        JSON.stringify({ protocol, target: `/steer?${query.join('&')}`, headers: {} }),
      );
      const args = ['decide', '--room', 'room', '--policy', 'policy', '--key', 'key.jwk'];
      args.push('--records', 'records', '--request', 'request.json');
      args.push('--session', toHex(decision.session), '--t', String(decision.t));
      args.push('--loads', decision.pathways.map((p) => p.load).join(','));
      args.push('--out-decision', 'out.wsd', '--out-manifest', 'out.json');
      if (v.key_log !== null) args.push('--key-log', 'key-log');
      const got = await cli(args, dir);
      expect(got.code, `${v.name}: ${got.stderr}`).toBe(0);
      expect(toHex(new Uint8Array(readFileSync(join(dir, 'out.wsd')))), v.name).toBe(v.decision);
      if (v.manifest !== null) {
        expect(readFileSync(join(dir, 'out.json'), 'utf8'), v.name).toBe(v.manifest);
      }
      compared++;
    }
    expect(compared).toBeGreaterThan(0);
  });
});
