import {
  fetchAndVerify,
  type NetworkVerification,
  RoomPinError,
  verifyDecision,
} from '@wai-steering/verifier';
import { fromHex, type Policy, readDecision, readPolicy } from '@wai-steering/wire';
import { nodeBackend } from '@wai-steering/wire/node';
import type { Command, Context } from '../internal/command.js';
import { EXIT, UserError } from '../internal/errors.js';
import { readBytes, readDir } from '../internal/files.js';
import { fetchInclusion, fetchRoom, type Inclusion } from '../internal/log-client.js';
import { type C8Outcome, outcomeLine, outcomeText } from '../internal/outcome.js';
import { selfName } from '../internal/self.js';
import { evidenceOf } from '../internal/stale.js';
import { noFigure, noFigureText } from '../internal/why.js';

const FILE_OPTIONS = ['room', 'key-log', 'policy', 'decision', 'records', 'manifest'] as const;

function print(
  ctx: Context,
  outcome: C8Outcome,
  policyBytes?: Uint8Array,
  explain?: (policy: Policy, none: ReadonlySet<number>) => string[],
): number {
  if (ctx.flag('json')) {
    ctx.out(`${outcomeLine(outcome)}\n`);
  } else {
    const read = policyBytes === undefined ? undefined : readPolicy(policyBytes);
    const policy = read?.ok === true ? read.value : undefined;
    ctx.out(
      outcomeText(
        outcome,
        policy === undefined
          ? {}
          : { pathwayIds: policy.pathways.map((p) => p.id), basis: policy.basis },
      ),
    );
    // An accepted decision with pathways of no figure: why (§5.2 to §5.4), stale ones hop by
    // hop with the periods they miss.
    if (outcome.outcome === 'accept' && policy !== undefined && explain !== undefined) {
      const none = new Set(outcome.pathways.flatMap((p, i) => (p.status !== 'figure' ? [i] : [])));
      if (none.size > 0) for (const line of explain(policy, none)) ctx.out(`${line}\n`);
    }
  }
  return outcome.outcome === 'accept' ? EXIT.ok : EXIT.refused;
}

/** What a decision's place in the log reads as, for people. */
function logLine(l: Inclusion): string {
  switch (l.kind) {
    case 'logged':
      return `in the decision log ${l.origin} at index ${l.index} (checkpoint of ${l.size} entries, signed by ${l.signer}; inclusion proof verified)`;
    case 'not_yet':
      return `not in the decision log yet: no checkpoint holds it${l.retryAfterS === undefined ? '' : ` (the server says to ask again in ${l.retryAfterS} s)`}`;
    case 'not_found':
      return 'not in the decision log: the server has no proof of it (GET /log/proof answers not_found)';
    case 'bad_proof':
      return `the server's proof of inclusion does not verify: ${l.why}`;
  }
}

/**
 * The decision's place in the server's log, when the decision reads; the room as the server
 * serves it, pinned to the room verified against. A network failure is a usage error with
 * --require-log, a line without it.
 */
async function inclusionOf(
  ctx: Context,
  verified: NetworkVerification,
): Promise<Inclusion | undefined> {
  const read = readDecision(verified.decision);
  if (!read.ok) return undefined;
  const base = new URL(verified.decisionUri);
  try {
    const room = await fetchRoom(base, fromHex(verified.roomId));
    return await fetchInclusion(base, room, {
      t: read.value.t,
      digest: nodeBackend.sha256(read.value.body),
    });
  } catch (e) {
    if (!(e instanceof UserError) || ctx.flag('require-log')) throw e;
    const line = `log      not checked: ${e.message}\n`;
    if (ctx.flag('json')) ctx.io.stderr.write(line);
    else ctx.out(line);
    return undefined;
  }
}

export const verify: Command = {
  name: ['verify'],
  summary: 'Verify a decision (§9): exit 0 accepted, 1 refused, 2 a usage or I/O error.',
  usage: [
    'wai-steer verify --room FILE [--key-log FILE] --policy FILE --decision FILE --records DIR [--manifest FILE] [--json]',
    'wai-steer verify --url URL [--room-id HEX] [--require-log] [--json]',
  ],
  options: {
    room: { type: 'string', arg: 'FILE', description: 'the room descriptor' },
    'key-log': { type: 'string', arg: 'FILE', description: "the head of the origin's key log" },
    policy: { type: 'string', arg: 'FILE', description: 'the policy' },
    decision: { type: 'string', arg: 'FILE', description: 'the decision (WSD1)' },
    records: { type: 'string', arg: 'DIR', description: 'the per-hop records, one per file' },
    manifest: {
      type: 'string',
      arg: 'FILE',
      description: 'the manifest served with the decision (checked byte for byte)',
    },
    url: {
      type: 'string',
      arg: 'URL',
      description: 'fetch a steering manifest and everything it names, and verify them',
    },
    'room-id': {
      type: 'string',
      arg: 'HEX',
      description:
        'with --url: the id of the room you trust (64 hex digits); a decision of another room is refused',
    },
    'require-log': {
      type: 'boolean',
      description: 'with --url: a decision not in the decision log (yet) is refused, exit 1',
    },
    json: { type: 'boolean', description: "print exactly companion C8's outcome JSON, one line" },
  },
  description: `
Runs §9.1's steps from files and stops at the first refusal: the room (and key log), the policy,
the decision, each record it names, the evidence, the output of the rule and, when --manifest is
given, the manifest. The records of DIR are every file in it, in file-name order (companion C9).

Without --json it prints a readable account: for an accepted decision, the priority, the reason,
the TTL, each pathway's status and figure (J/D with its class) and limits; for a refusal, the
reason, the place and what it means. With --json it prints exactly companion C8's outcome:

  {"outcome":"accept","digest":…,"priority":[…],"ttl":N,"reason":…,"pathways":[…],"manifest":…,"uri":…}
  {"outcome":"refuse","reason":"<code>","where":{"at":"<place>",…}}

With --url it fetches the steering manifest at URL (or a decision URI), the decision it names,
and the room, key log, policy and records the steering server publishes, and verifies them; it
then also prints the room and the authority key it trusted. Without --room-id the room is the
one the decision names, which proves the decision is that room's, not that the room is the one
you mean: give --room-id HEX (from the room's operator, or wai-steer room inspect) to verify
against that room only. A server that serves another room's descriptor for it is an error.

With --url it also says where the decision is in the server's decision log (GET
/log/proof/<digest>, a tlog proof): its index and the checkpoint that holds it, verified (the
checkpoint signed under its origin by a key that may sign the room's decisions, the inclusion
proof against its root), or that no checkpoint holds it yet. With --json that line goes to
stderr. A proof that does not verify is a refusal (exit 1); with --require-log, so is a decision
the log does not hold yet.`,
  exitStatus: `
  0 accepted; 1 refused (with --room-id, also: the server serves another room for it; the log's
  proof does not verify; with --require-log, the decision is not in the log);
  2 a usage or I/O error (one line on stderr; a network failure names its cause).`,
  async run(ctx) {
    const url = ctx.optional('url');
    const roomId = ctx.optional('room-id');
    if (url !== undefined) {
      const given = FILE_OPTIONS.filter((o) => ctx.optional(o) !== undefined);
      if (given.length > 0) {
        throw new UserError(`verify: --url is given alone, without --${given.join(', --')}`);
      }
      if (roomId !== undefined && !/^[0-9a-fA-F]{64}$/.test(roomId)) {
        throw new UserError(`verify: --room-id: expected 64 hexadecimal digits, got "${roomId}"`);
      }
      let verified: NetworkVerification;
      try {
        verified = await fetchAndVerify(url, roomId === undefined ? {} : { roomId });
      } catch (e) {
        const exit = e instanceof RoomPinError ? EXIT.refused : EXIT.usage;
        const fix =
          e instanceof RoomPinError
            ? `; check --room-id (${selfName()} room inspect FILE prints a room's id)`
            : '';
        throw new UserError(
          `verify --url ${url}: ${e instanceof Error ? e.message : String(e)}${fix}`,
          exit,
        );
      }
      const code = print(ctx, verified.outcome as C8Outcome, verified.policy, (p, none) => {
        const read = readDecision(verified.decision);
        return read.ok
          ? noFigureText(noFigure(p, read.value.t, evidenceOf(verified.records), none))
          : [];
      });
      if (!ctx.flag('json')) {
        const how =
          roomId === undefined
            ? 'named by the decision; pin it with --room-id'
            : 'pinned by --room-id';
        ctx.out(`room     ${verified.roomId} (${how})\n`);
        ctx.out(`authority ${verified.authority ?? '(the descriptor does not read)'}\n`);
      }
      const logged = await inclusionOf(ctx, verified);
      if (logged === undefined) return code;
      const line = `log      ${logLine(logged)}\n`;
      if (ctx.flag('json')) ctx.io.stderr.write(line);
      else ctx.out(line);
      if (logged.kind === 'bad_proof') return EXIT.refused;
      if (logged.kind !== 'logged' && ctx.flag('require-log')) return EXIT.refused;
      return code;
    }
    if (roomId !== undefined) {
      throw new UserError('verify: --room-id goes with --url (from files, --room is the room)');
    }
    if (ctx.flag('require-log')) {
      throw new UserError("verify: --require-log goes with --url (the log is the server's)");
    }
    for (const option of ['room', 'policy', 'decision', 'records'] as const) {
      if (ctx.optional(option) === undefined) {
        throw new UserError(
          `verify: missing --${option} (or give --url URL; see wai-steer verify --help)`,
        );
      }
    }
    const keyLog = ctx.optional('key-log');
    const manifest = ctx.optional('manifest');
    const policy = readBytes(ctx.path(ctx.string('policy')), 'policy');
    const decision = readBytes(ctx.path(ctx.string('decision')), 'decision');
    const records = readDir(ctx.path(ctx.string('records')), 'records directory').map(
      (f) => f.bytes,
    );
    const outcome = verifyDecision({
      room: readBytes(ctx.path(ctx.string('room')), 'room'),
      keyLog: keyLog === undefined ? null : readBytes(ctx.path(keyLog), 'key log'),
      policy,
      decision,
      records,
      manifest: manifest === undefined ? null : readBytes(ctx.path(manifest), 'manifest'),
    }) as C8Outcome;
    return print(ctx, outcome, policy, (p, none) => {
      const read = readDecision(decision);
      return read.ok ? noFigureText(noFigure(p, read.value.t, evidenceOf(records), none)) : [];
    });
  },
};
