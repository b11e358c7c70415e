/**
 * `wai-steer log watch` (a monitor: each checkpoint of a server's decision log verified, and
 * consistent with the last one held) and `wai-steer log witness` (a tlog-witness).
 */
import { readFileSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import type { RoomCheckpoint } from '@wai-steering/auditor';
import { formatDuration } from '@wai-steering/config-text';
import { isTlogRefusal, verifyConsistency } from '@wai-steering/tlog';
import { nodeBackend } from '@wai-steering/wire/node';
import { writeAtomic } from '../internal/atomic.js';
import type { Command, Context } from '../internal/command.js';
import { EXIT, UserError } from '../internal/errors.js';
import { readCheckpointText } from '../internal/export-log.js';
import { parseHexKey } from '../internal/keys.js';
import { fetchCheckpoint, fetchRoom, LogError, tileReader } from '../internal/log-client.js';
import { durationOption } from '../internal/time.js';
import { loadWitnessConfig, startWitness } from '../internal/witness.js';

/**
 * A duration option (`1s`, `500ms`, `2m`) in ms, from `minUs` (10 ms, or 0) to a day.
 */
function durationMs(flag: string, text: string, minUs = 10_000n): number {
  const us = durationOption(text, flag);
  if (us < minUs || us > 86_400_000_000n) {
    throw new UserError(`--${flag} ${text}: from ${minUs === 0n ? '0s' : '10ms'} to 1d`);
  }
  return Number(us / 1000n);
}

/** The state file's directory exists and is one: otherwise the one line that says how to fix it. */
function checkStateDir(path: string): void {
  const dir = dirname(path);
  let isDir: boolean;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    isDir = false;
  }
  if (!isDir) {
    throw new UserError(
      `--state ${path}: the directory ${dir} does not exist (create it: mkdir -p ${dir})`,
    );
  }
}

/** Without --once, an unchanged log is said at most this often (a summary), not at every check. */
const UNCHANGED_EVERY_MS = 10 * 60_000;

/** What a check of the log found. */
type Watched =
  | { kind: 'none' }
  | { kind: 'first'; served: RoomCheckpoint }
  | { kind: 'same'; served: RoomCheckpoint }
  | { kind: 'grown'; served: RoomCheckpoint; from: bigint }
  | { kind: 'fork' | 'shrink'; served: RoomCheckpoint; held: string; why: string }
  /** A larger checkpoint, signed, whose consistency the log's tiles did not give (yet). */
  | { kind: 'unproven'; served: RoomCheckpoint; held: string; from: bigint; why: string };

/** The checkpoint held in the state file, or `undefined` when there is none yet. */
function readHeld(path: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new UserError(`--state ${path}: cannot read (${(e as NodeJS.ErrnoException).code})`);
  }
  return text;
}

/** One check: the served checkpoint verified, and consistent with the held one (from the tiles). */
async function check(base: URL, roomId: Uint8Array, statePath: string): Promise<Watched> {
  const heldText = readHeld(statePath);
  const held =
    heldText === undefined ? undefined : readCheckpointText(heldText, `--state ${statePath}`);
  const ctx = await fetchRoom(base, roomId);
  const served = await fetchCheckpoint(base, ctx, held?.origin);
  if (served === undefined) return { kind: 'none' };
  if (held === undefined) return { kind: 'first', served };
  const n = served.checkpoint.size;
  if (n < held.size) {
    return {
      kind: 'shrink',
      served,
      held: heldText!,
      why: `the log shrank: the checkpoint held is of ${held.size} entries, the one served of ${n}`,
    };
  }
  if (n === held.size) {
    if (Buffer.from(served.checkpoint.root).equals(Buffer.from(held.root))) {
      return { kind: 'same', served };
    }
    return {
      kind: 'fork',
      served,
      held: heldText!,
      why: `the log forked: two checkpoints of ${n} entries with different roots`,
    };
  }
  let proof: Uint8Array[];
  try {
    proof = await tileReader(base, served).consistencyProof(held.size, n);
  } catch (e) {
    if (isTlogRefusal(e) && e.reason === 'bad_tile') {
      return {
        kind: 'fork',
        served,
        held: heldText!,
        why: `the log forked: its tiles do not give the checkpoint served (${e.message})`,
      };
    }
    // A tile not served (404), or not fetched: the log has not proved what it signed, yet.
    if (isTlogRefusal(e) && e.reason === 'tile_missing') {
      return { kind: 'unproven', served, held: heldText!, from: held.size, why: e.message };
    }
    throw isTlogRefusal(e) ? new UserError(`${base.origin}: the log's tiles: ${e.message}`) : e;
  }
  const refused = verifyConsistency(
    { oldSize: held.size, newSize: n, oldRoot: held.root, newRoot: served.checkpoint.root, proof },
    nodeBackend,
  );
  if (refused !== undefined) {
    return {
      kind: 'fork',
      served,
      held: heldText!,
      why: `the log forked: no consistency proof from the ${held.size} entries held to the ${n} served (${refused.message})`,
    };
  }
  return { kind: 'grown', served, from: held.size };
}

export const logWatch: Command = {
  name: ['log', 'watch'],
  summary:
    "Monitor a server's decision log: each checkpoint verified and consistent with the last (exit 1 on a fork).",
  usage: [
    'wai-steer log watch --url SERVER --room-id HEX --state FILE [--interval 1s] [--prove-within 60s] [--once]',
  ],
  options: {
    url: { type: 'string', arg: 'SERVER', description: 'the steering server', required: true },
    'room-id': {
      type: 'string',
      arg: 'HEX',
      description: 'the room whose keys may sign the log',
      required: true,
    },
    state: {
      type: 'string',
      arg: 'FILE',
      description: 'the last checkpoint verified (written atomically; created at the first)',
      required: true,
    },
    interval: {
      type: 'string',
      arg: 'DURATION',
      description: 'how often to check (default 1s)',
    },
    'prove-within': {
      type: 'string',
      arg: 'DURATION',
      description:
        'how long a larger checkpoint may go unproved consistent with the one held before it is an alarm, exit 1 (default 60s)',
    },
    once: { type: 'boolean', description: 'check once, then exit (0 when all is well)' },
  },
  description: `
Fetches the server's latest checkpoint (GET /log/checkpoint) and verifies it: signed under its
origin by a key that may sign the room's decisions (the room's descriptor and key log head,
fetched and pinned by --room-id, §3.5). Then it proves it consistent with the checkpoint held in
FILE: a larger log by a consistency proof computed from the server's tiles (each checked against
the root it serves), the same size by the same root. FILE then holds the checkpoint served (its
text as served), replaced atomically; a first run creates it.

When the log forks (two checkpoints of one size with different roots, or a larger one no
consistency proof joins to the one held) or shrinks, it prints both checkpoints and exits 1,
leaving FILE as it was. A larger checkpoint, signed, whose proof the log's tiles do not give
(they answer 404, or cannot be fetched) is asked again every --interval, --once or not; when the
log has not proved it within --prove-within (60s by default) of the first try, it prints both
checkpoints and exits 1: the log signed what it does not prove. Without --once it checks every
--interval; a server that does not answer is said on stderr and asked again at the next. Every
body is read within its bound: a checkpoint 1 MiB, a tile 32 bytes a hash (8 192 for a full
one), a room descriptor 198 bytes, a key log 2^24.`,
  exitStatus: `
  0 (with --once) the log is consistent with FILE; 1 the log forked or shrank, or did not prove
  a checkpoint it signed within --prove-within;
  2 a usage or input error, or (with --once) a server that does not answer.`,
  async run(ctx) {
    let base: URL;
    try {
      base = new URL(ctx.string('url'));
    } catch {
      throw new UserError(`--url ${ctx.string('url')}: not a URL`);
    }
    const roomId = parseHexKey(ctx.string('room-id'), '--room-id');
    const state = ctx.path(ctx.string('state'));
    checkStateDir(state);
    const every = durationMs('interval', ctx.optional('interval') ?? '1s');
    const proveWithin = durationMs('prove-within', ctx.optional('prove-within') ?? '60s', 0n);
    const once = ctx.flag('once');
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    /** When (monotonic ms) the log first left a checkpoint unproved, since the last proved. */
    let unprovedSince: number | undefined;
    // What was last said, so that an unchanged log is said once and then as a periodic summary.
    const quiet: Quiet = { line: '', at: 0, again: 0 };
    for (;;) {
      let w: Watched;
      try {
        w = await check(base, roomId, state);
      } catch (e) {
        if (e instanceof LogError) throw new UserError(e.message);
        if (once || !(e instanceof UserError) || e.message.startsWith('--state')) throw e;
        ctx.io.stderr.write(
          `wai-steer: log watch: ${e.message}; again in ${formatDuration(BigInt(every) * 1000n)}\n`,
        );
        await sleep(every);
        continue;
      }
      if (w.kind === 'unproven') {
        const now = performance.now();
        unprovedSince ??= now;
        const waited = now - unprovedSince;
        if (waited >= proveWithin) return alarm(ctx, w, state, proveWithin);
        const next = Math.min(every, proveWithin - waited);
        ctx.io.stderr.write(
          `wai-steer: log watch: ${w.served.checkpoint.origin}: the checkpoint of ${w.served.checkpoint.size} entries is not proved consistent with the ${w.from} held yet (${w.why}); again in ${formatDuration(BigInt(Math.ceil(next)) * 1000n)}, an alarm after ${formatDuration(BigInt(proveWithin) * 1000n)}\n`,
        );
        await sleep(next);
        continue;
      }
      unprovedSince = undefined;
      const code = report(ctx, w, state, once ? undefined : quiet);
      if (code !== undefined) return code;
      if (once) return EXIT.ok;
      await new Promise((r) => setTimeout(r, every));
    }
  },
};

/**
 * A signed checkpoint the log has not proved consistent with the one held within `ms`: both
 * printed, exit 1 (an alarm: the log signed what it does not prove), the state left as it was.
 */
function alarm(ctx: Context, w: Watched & { kind: 'unproven' }, state: string, ms: number): number {
  const cp = w.served.checkpoint;
  ctx.out(
    `log ${cp.origin}: the log did not prove the checkpoint of ${cp.size} entries consistent with the ${w.from} held within ${formatDuration(BigInt(ms) * 1000n)} (${w.why})\n\nheld (${state}):\n${w.held}\nserved:\n${w.served.text}`,
  );
  return EXIT.refused;
}

/** What a watch has said: its last line, when, and the checks since that said it again. */
interface Quiet {
  /** The last line said, without its count of checks. */
  line: string;
  at: number;
  again: number;
}

/**
 * Prints what a check found and keeps the state; an exit status when the watch must end. While
 * watching (`quiet` given), a line that would repeat the last one (the log unchanged, still no
 * checkpoint) is said only every {@link UNCHANGED_EVERY_MS}, with the checks since.
 */
function report(ctx: Context, w: Watched, state: string, quiet?: Quiet): number | undefined {
  if (w.kind === 'unproven') return undefined;
  let line: string;
  if (w.kind === 'none') {
    line = 'log: the server has no checkpoint yet';
  } else {
    const cp = w.served.checkpoint;
    if (w.kind === 'fork' || w.kind === 'shrink') {
      ctx.out(
        `log ${cp.origin}: ${w.why}\n\nheld (${state}):\n${w.held}\nserved:\n${w.served.text}`,
      );
      return EXIT.refused;
    }
    if (w.kind !== 'same') writeAtomic(state, w.served.text);
    const what =
      w.kind === 'first'
        ? `size ${cp.size}, verified; held from now on`
        : w.kind === 'grown'
          ? `size ${cp.size}, consistent with the ${w.from} held`
          : `size ${cp.size}, unchanged`;
    line = `log ${cp.origin}: ${what}`;
  }
  if (quiet === undefined) {
    ctx.out(`${line}\n`);
    return undefined;
  }
  const now = Date.now();
  const repeats = w.kind === 'none' ? quiet.line === line : w.kind === 'same' && quiet.line !== '';
  let said = line;
  if (repeats) {
    quiet.again++;
    if (now - quiet.at < UNCHANGED_EVERY_MS) return undefined;
    const since = formatDuration(BigInt(now - quiet.at) * 1000n);
    said = `${line} (checked ${quiet.again} times over ${since})`;
  }
  ctx.out(`${said}\n`);
  quiet.line = line;
  quiet.at = now;
  quiet.again = 0;
  return undefined;
}

export const logWitness: Command = {
  name: ['log', 'witness'],
  summary:
    'Run a tlog-witness: cosign the checkpoints of the logs it knows, each consistent with the last.',
  usage: ['wai-steer log witness --config FILE'],
  options: {
    config: {
      type: 'string',
      arg: 'FILE',
      description: "the witness's config (YAML or JSON)",
      required: true,
    },
  },
  description: `
Runs a witness of C2SP tlog-witness. It serves POST <prefix>/add-checkpoint: a checkpoint of a
log it knows (by origin and vkey), with the consistency proof from the size it cosigned last, is
cosigned (cosignature/v1, its key under its name) when the log's key signed it and it extends
the checkpoint held; otherwise 403 (no signature of the log), 404 (an unknown origin), 409 (the
old size is not the one held: the answer is that size), 422 (the proof does not verify, or the
same size with another root), 400 (a body that does not read). GET <prefix>/<origin hash>/checkpoint
gives the latest checkpoint it cosigned for a log (origin hash: SHA-256 of the origin, hex).

The config:

  listen: { host: 127.0.0.1, port: 8090 }
  prefix: /witness                  # default: none
  key: witness.jwk                  # its Ed25519 key (JWK with "d"): wai-steer keygen
  name: witness.example/w1          # its name: the key name of its cosignatures
  state: witness-state.json         # per log, what it cosigned last (replaced atomically)
  logs:
    - origin: steer.example.com/log
      vkey: steer.example.com/log+4afbb0f7+Ae…

It prints where it listens and its vkey (what a steering server's log.witnesses names) on stderr,
and runs until SIGINT or SIGTERM. The state is written (a temporary file, fsync, rename, fsync of
the directory) before a cosignature is answered, the check of the old size and the write one
step per log: a restart keeps every size it cosigned.`,
  async run(ctx) {
    const config = loadWitnessConfig(ctx.path(ctx.string('config')));
    const witness = await startWitness(config, (line) =>
      ctx.io.stderr.write(`wai-steer: witness: ${line}\n`),
    );
    ctx.io.stderr.write(
      `wai-steer: witness ${config.name} at ${witness.url} (vkey ${config.vkey}; SIGINT or SIGTERM stops)\n`,
    );
    await new Promise<void>((resolve) => {
      if (ctx.io.onStop === undefined) witness.server.once('close', () => resolve());
      else
        ctx.io.onStop(async () => {
          await witness.close();
          resolve();
        });
    });
    return EXIT.ok;
  },
};
