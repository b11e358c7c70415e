import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AuditResult, renderHtml } from '@wai-steering/auditor';
import { type ArchiveAudit, auditArchive } from '@wai-steering/auditor/node';
import { formatDuration, formatInstant } from '@wai-steering/config-text';
import type { Command, Context } from '../internal/command.js';
import { energySummary } from '../internal/energy.js';
import { EXIT, UserError } from '../internal/errors.js';
import { spanOf } from '../internal/export.js';
import { exportFromUrl } from '../internal/export-url.js';
import { writeOutput } from '../internal/files.js';
import { parseHexKey } from '../internal/keys.js';
import { durationOption } from '../internal/time.js';

/**
 * `--grace`: a duration as every option reads it (`10s`, `1500ms`, `2m`); in whole seconds,
 * rounded up (the grace is counted in the room clock's seconds).
 */
export function graceSeconds(text: string): number {
  const us = durationOption(text, 'grace');
  const s = (us + 999_999n) / 1_000_000n;
  if (s > 0xffff_ffffn) throw new UserError(`--grace ${text}: at most 2^32 − 1 seconds`);
  return Number(s);
}

function wholeOption(ctx: Context, name: string, min: number, max: number): number | undefined {
  const v = ctx.optional(name);
  if (v === undefined) return undefined;
  if (!/^[0-9]{1,9}$/.test(v) || Number(v) < min || Number(v) > max) {
    throw new UserError(`--${name} ${v}: expected a whole number from ${min} to ${max}`);
  }
  return Number(v);
}

/** A progress bar on stderr, drawn only when stderr is a terminal. */
function progressBar(
  ctx: Context,
): ((done: number, bytes: number, total: number) => void) | undefined {
  if (ctx.io.stderr.isTTY !== true) return undefined;
  return (done, bytes, total) => {
    const f = total === 0 ? 1 : Math.min(1, bytes / total);
    const width = 30;
    const filled = Math.round(f * width);
    ctx.io.stderr.write(
      `\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${(f * 100).toFixed(0).padStart(3)}% ${done} decisions${f >= 1 ? '\n' : ''}`,
    );
  };
}

/** Writes to stdout, waiting for a stream that asks to (its buffer full) to drain. */
async function write(ctx: Context, chunk: string): Promise<void> {
  const stdout = ctx.io.stdout as { write(c: string): unknown; once?: unknown };
  if (stdout.write(chunk) === false && typeof stdout.once === 'function') {
    await new Promise<void>((done) => (stdout as NodeJS.WritableStream).once('drain', done));
  }
}

function summary(
  r: AuditResult,
  counts: { refused: number; inconsistent: number; duplicated: number },
): string {
  const lines = [
    `room ${r.room}`,
    `${r.decisions} decisions, ${r.sessions} sessions, ${r.records} records`,
    `verified: ${r.accepted} accepted, ${counts.refused} refused`,
  ];
  for (const x of r.refused.slice(0, 20)) {
    const w = [
      x.where.at,
      x.where.pathway === undefined ? '' : ` pathway ${x.where.pathway + 1}`,
      x.where.record === undefined ? '' : ` record ${x.where.record + 1}`,
    ].join('');
    lines.push(`  refused ${x.digest}: ${x.reason} at ${w}`);
  }
  if (counts.refused > 20)
    lines.push(`  … and ${counts.refused - 20} more (--json lists them all)`);
  lines.push(
    `loads: ${r.loads.checked} decisions checked (tolerance ${r.loads.tolerance}, grace ${formatDuration(BigInt(r.loads.grace_s) * 1_000_000n)}), ${counts.inconsistent} inconsistent`,
  );
  for (const l of r.loads.inconsistent.slice(0, 20)) {
    lines.push(`  ${l.digest} ${l.pathway}: stated ${l.stated}, replayed ${l.replayed}`);
  }
  if (counts.inconsistent > 20) lines.push(`  … and ${counts.inconsistent - 20} more`);
  if (counts.duplicated > 0) {
    lines.push(`duplicated: ${counts.duplicated} decision frames given again`);
    for (const d of r.duplicated.slice(0, 20)) {
      lines.push(`  duplicated ${d.digest}: frame ${d.frame}, a copy of frame ${d.first}`);
    }
    if (counts.duplicated > 20) lines.push(`  … and ${counts.duplicated - 20} more`);
  }
  if (r.shares.length === 0) lines.push('shares: no pathway has a minimum share');
  for (const s of r.shares) {
    lines.push(
      `share ${s.pathway}: ${s.in_band} of ${s.sessions} sessions in its band of ${s.min_share_ppm} ppm (expected ${s.expected}), z = ${s.z}${s.flagged ? ' FLAGGED' : ''}`,
    );
  }
  for (const p of r.policies) {
    const span =
      p.first === null
        ? (p.invalid ?? 'named by no decision')
        : `${p.decisions} decisions from ${formatInstant(BigInt(p.first))} to ${formatInstant(BigInt(p.last!))}`;
    lines.push(
      `policy ${p.digest}: ${span}${p.changes.length > 0 ? `; changed ${p.changes.map((c) => c.field).join(', ')}` : ''}`,
    );
  }
  if (r.log === null) {
    lines.push(
      'log: the archive carries no checkpoint: withheld and unlogged decisions not checked',
    );
  } else {
    const l = r.log;
    lines.push(
      `log ${l.origin}: checkpoint of ${l.size} entries verified; ${l.withheld.length} withheld, ${l.unlogged.length} unlogged`,
    );
    for (const w of l.withheld.slice(0, 20)) {
      lines.push(
        `  withheld ${w.digest} at ${formatInstant(BigInt(w.t))}: entry ${w.index} of the log, not in the archive`,
      );
    }
    if (l.withheld.length > 20) lines.push(`  … and ${l.withheld.length - 20} more withheld`);
    for (const u of l.unlogged.slice(0, 20)) {
      lines.push(
        `  unlogged ${u.digest} at ${formatInstant(BigInt(u.t))}: in the archive, not in the log`,
      );
    }
    if (l.unlogged.length > 20) lines.push(`  … and ${l.unlogged.length - 20} more unlogged`);
  }
  lines.push(...energySummary(r));
  lines.push(`findings: ${r.findings}`);
  return `${lines.join('\n')}\n`;
}

export const audit: Command = {
  name: ['audit'],
  summary:
    "Audit a server's decision log: every decision verified, loads replayed, bands' shares (exit 0 clean, 1 findings).",
  usage: [
    'wai-steer audit --archive DIR --room-id HEX [--json] [--html FILE] [--grace 10s] [--load-tolerance 2] [--jobs N]',
    'wai-steer audit --url SERVER --room-id HEX [--from T] [--to T] [--json] [--html FILE] [--grace 10s] [--load-tolerance 2] [--jobs N]',
  ],
  options: {
    archive: { type: 'string', arg: 'DIR', description: 'the archive (wai-steer archive export)' },
    url: {
      type: 'string',
      arg: 'SERVER',
      description: 'a running server: exported over HTTP, then audited',
    },
    'room-id': {
      type: 'string',
      arg: 'HEX',
      description: 'the room the audit trusts: another room is an error',
      required: true,
    },
    from: {
      type: 'string',
      arg: 'T',
      description: 'with --url: from this instant (room-clock µs, an RFC 3339 time, now, now-1h)',
    },
    to: { type: 'string', arg: 'T', description: 'with --url: before this instant' },
    json: { type: 'boolean', description: 'print the result as one line of JSON (docs/audit.md)' },
    html: { type: 'string', arg: 'FILE', description: 'write a self-contained HTML report' },
    grace: {
      type: 'string',
      arg: 'DURATION',
      description: "the server's session grace (default: the archive's grace_s)",
    },
    'load-tolerance': {
      type: 'string',
      arg: 'N',
      description: 'sessions a stated load may differ by (default 2)',
    },
    jobs: {
      type: 'string',
      arg: 'N',
      description: 'threads verifying decisions: N − 1 workers and this one (default 1)',
    },
  },
  description: `
Checks a steering server's decision log (§9.2, §12): every decision verifies (§9.1), each
record's signature once; the loads replay (a session counts at the first pathway of its latest
decision while the room clock is below that decision's t + (TTL + grace) s, to the µs, carried
by pathway ID across a change of policy, and each stated load must be the count just before the
decision, within --load-tolerance); for each
pathway with a minimum share, the sessions whose draw falls in its band against the binomial
expectation (flagged at |z| >= 4); each policy, its span and what changed from the one before;
and, as a report, each interior hop's bytes out against its edge hops' bytes in. When the archive
carries the decision log (its checkpoint and log-entries.bin), the checkpoint must be signed by a
key of the room under its origin and the entries must give its root (else exit 2); then each
entry of the archive's span whose decision the archive lacks is withheld, and each decision the
log lacks is unlogged.

--room-id pins the trust: an archive (or server) of another room is an error, never an audit of
the wrong room. With --json it prints exactly the result of docs/audit.md on stdout:
{"decisions":N,"sessions":M,"accepted":A,"refused":[…],"loads":{…},"shares":[…],"policies":[…],"findings":F,…}`,
  exitStatus: `
  0 no findings; 1 findings (refused decisions, inconsistent loads, flagged shares, withheld or
  unlogged decisions);
  2 a usage or input error (one line on stderr).`,
  async run(ctx) {
    const roomId = parseHexKey(ctx.string('room-id'), '--room-id');
    const archive = ctx.optional('archive');
    const url = ctx.optional('url');
    if ((archive === undefined) === (url === undefined)) {
      throw new UserError('audit: give --archive DIR or --url SERVER (one of them)');
    }
    if (
      archive !== undefined &&
      (ctx.optional('from') !== undefined || ctx.optional('to') !== undefined)
    ) {
      throw new UserError('audit: --from and --to go with --url (an archive is audited whole)');
    }
    const grace = ctx.optional('grace');
    const graceS = grace === undefined ? undefined : graceSeconds(grace);
    const loadTolerance = wholeOption(ctx, 'load-tolerance', 0, 1_000_000_000);
    const jobs = wholeOption(ctx, 'jobs', 1, 256) ?? 1;
    const html = ctx.optional('html');
    let dir = archive === undefined ? undefined : ctx.path(archive);
    let temp: string | undefined;
    let out: ArchiveAudit;
    try {
      if (dir === undefined) {
        temp = mkdtempSync(join(tmpdir(), 'wai-audit-'));
        dir = temp;
        try {
          await exportFromUrl(url!, dir, spanOf(ctx.optional('from'), ctx.optional('to')), {
            roomId,
            ...(graceS === undefined ? {} : { graceS }),
          });
        } catch (e) {
          if (e instanceof Error && e.name === 'ArchiveError') {
            throw new UserError(`audit: ${e.message}`);
          }
          throw e;
        }
      }
      const progress = progressBar(ctx);
      try {
        out = await auditArchive(dir, {
          roomId,
          jobs,
          ...(graceS === undefined ? {} : { graceS }),
          ...(loadTolerance === undefined ? {} : { loadTolerance }),
          ...(progress === undefined ? {} : { onProgress: progress }),
        });
      } catch (e) {
        if (e instanceof Error && e.name === 'ArchiveError')
          throw new UserError(`audit: ${e.message}`);
        throw e;
      }
    } finally {
      if (temp !== undefined) rmSync(temp, { recursive: true, force: true });
    }
    try {
      if (html !== undefined)
        writeOutput(ctx.path(html), renderHtml(out.result, out.series), 'HTML report');
      if (ctx.flag('json')) {
        // Written as it was kept: the refusals past the first come from a temporary file.
        await out.writeJson((chunk) => write(ctx, chunk));
        await write(ctx, '\n');
      } else {
        ctx.out(summary(out.result, out));
      }
    } finally {
      out.dispose();
    }
    return out.result.findings === 0 ? EXIT.ok : EXIT.refused;
  },
};
