import {
  digestOf,
  isRefusal,
  readPolicy,
  signPolicy,
  toHex,
  unwrap,
  verifyPolicySignature,
} from '@wai-steering/wire';
import type { Command } from '../internal/command.js';
import { UserError } from '../internal/errors.js';
import { writeOutput } from '../internal/files.js';
import { readSecretKeyFile } from '../internal/keys.js';
import {
  compilePolicyConfig,
  configDir,
  configField,
  readConfigFile,
} from '../internal/policy-config.js';
import { describeRefusal, detailOf, readPolicyFile } from '../internal/records.js';
import { policyJson, policyText } from '../internal/show.js';

export const CONFIG_REFERENCE = `
The config (YAML, or JSON when its name ends in .json) names, with readable units:

  room: <room id, 64 hex digits> | <room file, relative to the config>
  period: 2s            window: 6s          lag: 500ms     (durations: us, ms, s, m, h)
  basis: bytes          # or seconds (joules per second at or above the floor tier)
  tiers: ["800k", "2.5M", "6M"]              # bits per second, tier 0 first
  floor: 1              # a tier index (default 0)
  latency_ceiling: 150ms
  min_buffer: 4s
  hysteresis: 5%        # or 50000ppm
  ttl: 300s             min_ttl: 30s
  query_before_start: false                  # DASH queryBeforeStart (default false)
  initial: cdn-a        # default: the first pathway that is not a clone
  server_uri: https://steer.example.com/steer
  reload_uri: https://steer.example.com/steer
  decision_uri: https://steer.example.com/decisions/
  pathways:
    - id: cdn-a
      latency: 40ms
      capacity: unlimited                    # or a number of sessions (default unlimited)
      min_share: 2%                          # default 0%
      top_tier: 2                            # default: the top tier
      hops:
        - { key: <64 hex digits>, place: edge }
        - { key: <64 hex digits>, place: interior }
    - id: cdn-a-eu
      clone: { base: cdn-a, host: eu.cdn-a.example.com, params: { region: eu } }
      latency: 60ms
      hops: [{ key: <64 hex digits>, place: edge }]
`;

export const policyCompile: Command = {
  name: ['policy', 'compile'],
  summary: 'Compile a hand-written policy (YAML or JSON) to a signed WSP1; print its digest.',
  args: ['CONFIG'],
  options: {
    key: {
      type: 'string',
      arg: 'KEY',
      description: 'the signer: the room authority or a live/steer key',
      required: true,
    },
    out: { type: 'string', arg: 'FILE', description: 'the policy file to write', required: true },
    json: { type: 'boolean', description: 'print the compiled policy as JSON' },
  },
  description: `
Validates the config field by field (a message names the field and the rule it breaks), checks
the policy against the rules of §3.3, signs it with KEY (whose public key becomes the policy's
signer) and writes its bytes.
${CONFIG_REFERENCE}`,
  run(ctx) {
    const path = ctx.path(ctx.args[0]!);
    const key = readSecretKeyFile(ctx.path(ctx.string('key')), '--key key file');
    const data = readConfigFile(path);
    const fields = compilePolicyConfig(data, key.publicKey, configDir(path));
    let bytes: Uint8Array;
    try {
      bytes = signPolicy(fields, key.secretKey);
    } catch (e) {
      if (!isRefusal(e)) throw e;
      const field = e.where.field === undefined ? 'the policy' : configField(e.where.field);
      throw new UserError(
        `${field}: ${detailOf(e) ?? 'breaks a rule of §3.3'} (${e.reason}, §3.3)`,
      );
    }
    writeOutput(ctx.path(ctx.string('out')), bytes, 'policy file');
    const policy = unwrap(readPolicy(bytes));
    ctx.out(
      ctx.flag('json') ? `${JSON.stringify(policyJson(policy))}\n` : `${toHex(digestOf(policy))}\n`,
    );
    return 0;
  },
};

export const policyInspect: Command = {
  name: ['policy', 'inspect'],
  summary: 'Print a policy: its digest, limits, tiers, URIs, pathways and hops.',
  args: ['FILE'],
  options: { json: { type: 'boolean', description: 'print the policy as JSON' } },
  description: `
Reads a steering policy (WSP1), checks its rules and its signature by its signer, and prints it.
--json prints every field under the specification's name (u64 values as decimal strings, keys
and digests as hex).`,
  run(ctx) {
    const path = ctx.path(ctx.args[0]!);
    const { value: policy } = readPolicyFile(path);
    const bad = verifyPolicySignature(policy);
    if (bad !== undefined) throw new UserError(`policy ${path}: ${describeRefusal(bad)}`);
    ctx.out(ctx.flag('json') ? `${JSON.stringify(policyJson(policy))}\n` : policyText(policy));
    return 0;
  },
};
