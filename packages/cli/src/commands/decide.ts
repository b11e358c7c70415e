import { MemoryEvidenceStore, selectEvidence, windowAt } from '@wai-steering/evidence';
import { decisionUri, writeManifest } from '@wai-steering/manifest';
import { assembleDecision, readReport } from '@wai-steering/rule';
import { checkSigner, openHopRecord, openRoom } from '@wai-steering/verifier';
import {
  bytesEqual,
  digestOf,
  parseHex,
  REASON_NAME,
  readDecision,
  readHopRecord,
  STATUS,
  signDecision,
  toHex,
  unwrap,
  verifyPolicySignature,
} from '@wai-steering/wire';
import type { Command } from '../internal/command.js';
import { UserError } from '../internal/errors.js';
import { readBytes, readDir, writeOutput } from '../internal/files.js';
import { readSecretKeyFile } from '../internal/keys.js';
import { describeRefusal, readPolicyFile, readRoomFile } from '../internal/records.js';
import { readRequestFile } from '../internal/request.js';
import { signing } from '../internal/sign.js';
import { instantOption } from '../internal/time.js';

/** `--loads N,N,…`: one u32 per pathway. */
function parseLoads(text: string, count: number): number[] {
  const items = text.split(',');
  const loads = items.map((item, i) => {
    if (!/^\d+$/.test(item) || BigInt(item) > 0xffff_ffffn) {
      throw new UserError(
        `--loads: item ${i} "${item}" is not a whole number from 0 to 4294967295`,
      );
    }
    return Number(item);
  });
  if (loads.length !== count) {
    throw new UserError(
      `--loads: ${loads.length} load${loads.length === 1 ? '' : 's'} given, but the policy has ${count} pathway${count === 1 ? '' : 's'} (one load each, in the policy's order)`,
    );
  }
  return loads;
}

export const decide: Command = {
  name: ['decide'],
  summary: 'Decide and sign, from files, the decision and manifest a server would serve.',
  options: {
    room: { type: 'string', arg: 'FILE', description: 'the room descriptor', required: true },
    'key-log': {
      type: 'string',
      arg: 'FILE',
      description: "the origin's key log head (checks the signer)",
    },
    policy: { type: 'string', arg: 'FILE', description: 'the policy', required: true },
    key: {
      type: 'string',
      arg: 'KEY',
      description: 'the signer: the room authority or a live/steer key',
      required: true,
    },
    records: {
      type: 'string',
      arg: 'DIR',
      description: 'the per-hop records, one WMH1 per file',
      required: true,
    },
    request: {
      type: 'string',
      arg: 'REQUEST.json',
      description: 'the C8 steering request',
      required: true,
    },
    session: {
      type: 'string',
      arg: 'HEX32',
      description: "the client's session, 32 hex digits",
      required: true,
    },
    loads: {
      type: 'string',
      arg: 'N,N,…',
      description: "each pathway's load, in the policy's order",
      required: true,
    },
    t: {
      type: 'string',
      arg: 'TIME',
      description: "the decision's instant: room-clock µs, an RFC 3339 time, now, now-6s",
      required: true,
    },
    'out-decision': {
      type: 'string',
      arg: 'FILE',
      description: 'the decision (WSD1) to write',
      required: true,
    },
    'out-manifest': {
      type: 'string',
      arg: 'FILE',
      description: 'the steering manifest to write',
      required: true,
    },
    json: {
      type: 'boolean',
      description: 'print the digest, priority, ttl, reason, manifest and URI as JSON',
    },
  },
  description: `
Does what a steering server does for one request: the window at t (§5.1); the evidence of each
pathway from the records of DIR that a server would have taken in (companion C5: they read, are
of the room, are signed by their hop and the key log lets it sign them), tiling the window
(§5.2, §5.3);
the client's report from the request (§4); the rule (§6); the decision (§7), signed with KEY; the
manifest (§8.1). Writes the decision's bytes and the manifest's bytes (no trailing newline), and
prints the decision's digest. Other files of DIR are skipped, with a warning.

The signer's authority (§3.5) is checked against the key log; a signer the verifier would refuse
is a warning, and the decision is written all the same.`,
  run(ctx) {
    const { bytes: roomBytes, value: room } = readRoomFile(ctx.path(ctx.string('room')));
    const roomId = digestOf(room);
    const keyLogPath = ctx.optional('key-log');
    const keyLogBytes =
      keyLogPath === undefined ? undefined : readBytes(ctx.path(keyLogPath), 'key log');
    const policyPath = ctx.path(ctx.string('policy'));
    const { value: policy } = readPolicyFile(policyPath);
    if (!bytesEqual(policy.room, roomId)) {
      throw new UserError(
        `policy ${policyPath} is of room ${toHex(policy.room)}, not of the room given (${toHex(roomId)})`,
      );
    }
    const badPolicy = verifyPolicySignature(policy);
    if (badPolicy !== undefined) ctx.warn(`the policy's signature: ${describeRefusal(badPolicy)}`);
    const key = readSecretKeyFile(ctx.path(ctx.string('key')), '--key key file');
    const request = readRequestFile(ctx.path(ctx.string('request')));
    const sessionText = ctx.string('session');
    if (!/^[0-9a-fA-F]{32}$/.test(sessionText))
      throw new UserError('--session: expected 32 hex digits (16 bytes)');
    const session = parseHex(sessionText)!;
    const t = instantOption(ctx.string('t'), 't');
    const loads = parseLoads(ctx.string('loads'), policy.pathways.length);

    // §5: the records of DIR a server would hold, in file-name order: those that pass companion
    // C5 as on ingest (read, of the room, signed, their hop authorised by the key log), when the
    // room verifies; when it does not, those that read and are of the room.
    const opened = openRoom(roomBytes, keyLogBytes ?? null);
    const store = new MemoryEvidenceStore();
    const skipped: string[] = [];
    const recordsDir = ctx.path(ctx.string('records'));
    for (const file of readDir(recordsDir, 'records directory')) {
      if (opened.ok) {
        const record = openHopRecord(opened.value, file.bytes);
        if (record.ok) store.add(record.value.record, record.value.digest);
        else skipped.push(`${file.name} (${record.refusal.reason})`);
      } else {
        const read = readHopRecord(file.bytes);
        if (read.ok && bytesEqual(read.value.room, roomId))
          store.add(read.value, digestOf(read.value));
        else skipped.push(`${file.name} (${read.ok ? 'wrong_room' : read.refusal.reason})`);
      }
    }
    if (skipped.length > 0)
      ctx.warn(
        `${skipped.length === 1 ? 'a file' : `${skipped.length} files`} of the records directory ${recordsDir} skipped, not records a server would hold: ${skipped.join(', ')}`,
      );
    const window = windowAt(policy, t);
    const evidence = selectEvidence(policy, window, store);
    const fields = assembleDecision({
      roomId,
      signer: key.publicKey,
      policy,
      policyDigest: digestOf(policy),
      t,
      session,
      protocol: request.protocol,
      report: readReport(
        request,
        policy.pathways.map((p) => p.id),
      ),
      evidence,
      loads,
    });

    // §3.5: would a verifier take this signer? A warning, not an error.
    if (!opened.ok) {
      ctx.warn(
        `the room does not verify (${describeRefusal(opened.refusal)}): a verifier will refuse the decision`,
      );
    } else {
      const classes = fields.pathways.filter((p) => p.status === STATUS.figure).map((p) => p.class);
      const refusal = checkSigner(opened.value, key.publicKey, classes);
      if (refusal !== undefined) {
        ctx.warn(`the signer ${toHex(key.publicKey)} is refused by the room: ${refusal.reason}`);
      }
    }

    const bytes = signing(() => signDecision(fields, key.secretKey), 'the decision');
    const decision = unwrap(readDecision(bytes));
    const digest = digestOf(decision);
    const manifest = writeManifest(policy, decision, digest);
    writeOutput(ctx.path(ctx.string('out-decision')), bytes, 'decision file');
    writeOutput(ctx.path(ctx.string('out-manifest')), manifest, 'manifest file');
    if (ctx.flag('json')) {
      ctx.out(
        `${JSON.stringify({
          digest: toHex(digest),
          priority: decision.priority.map((i) => policy.pathways[i]!.id),
          ttl: decision.ttl,
          reason: REASON_NAME[decision.reason],
          manifest,
          uri: decisionUri(policy, digest),
        })}\n`,
      );
    } else {
      ctx.out(`${toHex(digest)}\n`);
    }
    return 0;
  },
};
