import { dirname, resolve } from 'node:path';
import { checkSigner, openRoom } from '@wai-steering/verifier';
import {
  bytesEqual,
  digestOf,
  isRefusal,
  type PolicyFields,
  readPolicy,
  signPolicy,
  toHex,
  unwrap,
  verifyPolicySignature,
} from '@wai-steering/wire';
import type { Command, Context } from '../internal/command.js';
import { UserError } from '../internal/errors.js';
import { REASON_SENTENCE } from '../internal/explain.js';
import { readBytes, writeOutput } from '../internal/files.js';
import { hopGrantProblems } from '../internal/grants.js';
import { readSecretKeyFile } from '../internal/keys.js';
import {
  compilePolicyConfig,
  configDir,
  configField,
  readConfigFile,
} from '../internal/policy-config.js';
import { describeRefusal, detailOf, readPolicyFile, readRoomFile } from '../internal/records.js';
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
    room: {
      type: 'string',
      arg: 'FILE',
      description: "the room file, to check KEY may sign its policies (default: the config's)",
    },
    'key-log': {
      type: 'string',
      arg: 'FILE',
      description: "the origin's key log head, to check KEY may sign the room's policies",
    },
    json: { type: 'boolean', description: 'print the compiled policy as JSON' },
  },
  description: `
Validates the config field by field (every problem, on one line; a message names the field and
the rule it breaks, and an unknown field the known one it is most likely meant to be), checks
the policy against the rules of §3.3, signs it with KEY (whose public key becomes the policy's
signer) and writes its bytes.

When the room is known (--room, or the config's room given as a file) it checks that KEY may
sign the room's policies (§3.5: the room authority, or a live/steer key of the origin's key log,
not revoked; a room that names an origin needs --key-log for it). A KEY that may not is a
warning on stderr (the policy is written all the same, exit 0): the server and every verifier
would refuse it (signer_not_authorised). With the key log it also warns of each hop whose key the
log does not list with live/hop (or lists revoked): every record that hop signs would be
refused, so its pathway could never have a figure.
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
        `${field}: ${detailOf(e) ?? 'breaks a rule every policy keeps'} (${e.reason})`,
      );
    }
    checkPolicySigner(ctx, data, path, fields.room, key.publicKey, fields.pathways);
    writeOutput(ctx.path(ctx.string('out')), bytes, 'policy file');
    const policy = unwrap(readPolicy(bytes));
    ctx.out(
      ctx.flag('json') ? `${JSON.stringify(policyJson(policy))}\n` : `${toHex(digestOf(policy))}\n`,
    );
    return 0;
  },
};

/**
 * §3.5 at compile time: may `signer` sign policies of the room? A warning when it may not (a
 * room that names an origin is checked with its key log only, given with --key-log).
 */
function checkPolicySigner(
  ctx: Context,
  data: unknown,
  configPath: string,
  roomId: Uint8Array,
  signer: Uint8Array,
  pathways: PolicyFields['pathways'],
): void {
  const roomOption = ctx.optional('room');
  const configRoom = (data as { room?: unknown } | null)?.room;
  let roomPath: string | undefined;
  if (roomOption !== undefined) roomPath = ctx.path(roomOption);
  else if (typeof configRoom === 'string' && !/^[0-9a-fA-F]{64}$/.test(configRoom)) {
    roomPath = resolve(dirname(configPath), configRoom);
  }
  const keyLogOption = ctx.optional('key-log');
  if (roomPath === undefined) {
    if (keyLogOption !== undefined) {
      throw new UserError('policy compile: --key-log needs the room: give --room FILE too');
    }
    return;
  }
  const { bytes: roomBytes } = readRoomFile(roomPath);
  const opened = openRoom(
    roomBytes,
    keyLogOption === undefined ? null : readBytes(ctx.path(keyLogOption), 'key log'),
  );
  if (!opened.ok) {
    // A room that names an origin is checked only with its key log (--key-log).
    if (opened.refusal.reason === 'key_log_missing') return;
    throw new UserError(`--room ${roomPath}: ${describeRefusal(opened.refusal)}`);
  }
  if (!bytesEqual(opened.value.roomId, roomId)) {
    throw new UserError(
      `--room ${roomPath} is room ${toHex(opened.value.roomId)}, but the config's room is ${toHex(roomId)}`,
    );
  }
  const refusal = checkSigner(opened.value, signer);
  if (refusal !== undefined) {
    ctx.warn(
      `--key ${toHex(signer)} may not sign policies of this room (${refusal.reason}: ${REASON_SENTENCE[refusal.reason]}): the server and every verifier will refuse this policy; sign it with the room authority or a live/steer key`,
    );
  }
  // C5.4: a hop the key log does not list with live/hop has its every record refused.
  for (const p of hopGrantProblems(opened.value, pathways)) ctx.warn(p.text);
}

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
