// The hop agent when the system clock is set 10 minutes forward, and 10 minutes back, while it
// runs: a real agent process (a model's energy, nginx's access log, a spool, a steering server
// over HTTP) whose clock libfaketime moves (a control file read at every call, the monotonic
// clock left alone, as a step of the system clock leaves it). Whatever the clock does, the spans
// signed tile the room clock once (none twice, none overlapping, no gap), no period the hop did
// not live states energy or traffic, no line logged at a time already signed is stated, every
// other period states exactly the lines logged in it, and each step is said in one line.
import { type ChildProcess, spawn } from 'node:child_process';
import { appendFileSync, existsSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLASS, type HopRecord } from '@wai-steering/wire';
import { afterAll, describe, expect, it } from 'vitest';
import { makeRoom, tempDir } from '../helpers/room.js';
import { TestSteeringServer } from '../helpers/steering.js';

const CHILD = join(import.meta.dirname, '..', 'helpers', 'hop-child.ts');
const P = 1_000_000n;
const STEP_S = 600;
const NORMAL = 1000n;
const REPEATED = 1_000_000_000n;

/** Debian's libfaketime (`faketime`, installed by scripts/setup.sh). */
function libfaketime(): string {
  for (const arch of readdirSync('/usr/lib')) {
    const lib = join('/usr/lib', arch, 'faketime', 'libfaketime.so.1');
    if (existsSync(lib)) return lib;
  }
  throw new Error('libfaketime is not installed: run packages/agent/scripts/setup.sh');
}

const children: ChildProcess[] = [];
const servers: TestSteeringServer[] = [];
afterAll(async () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  for (const s of servers) await s.down();
});

/** Waits for `get` to give something (looked at every 50 ms), at most `ms`. */
async function until<T>(what: string, get: () => T | undefined | false, ms = 180_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const got = get();
    if (got !== undefined && got !== false) return got;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

interface Line {
  readonly at: bigint;
  readonly bytes: bigint;
}

/** A hop agent in a process of its own, on a clock the test sets (seconds from the true one). */
async function fakedHop() {
  const lib = libfaketime();
  const room = makeRoom([['energy/ModelBased', 'live/hop']]);
  const server = new TestSteeringServer(room.ctx);
  await server.up(0);
  servers.push(server);
  const dir = tempDir();
  room.write(dir);
  const accessLog = join(dir, 'access.log');
  writeFileSync(accessLog, '');
  const clockFile = join(dir, 'clock');
  let offset = 0;
  // Replaced whole (a rename): libfaketime reads it at every call, never half written.
  const setOffset = (s: number) => {
    offset = s;
    writeFileSync(`${clockFile}.new`, `${s < 0 ? '' : '+'}${s}\n`);
    renameSync(`${clockFile}.new`, clockFile);
  };
  setOffset(0);
  writeFileSync(
    join(dir, 'hop.yaml'),
    [
      'room: room.wrd',
      'key_log: key-log.wkl',
      'key: hop0.jwk',
      'period: 1s',
      `servers: ["${server.url}"]`,
      'spool: spool',
      'energy: { source: model, idle_watts: 10, nanojoules_per_byte: 1 }',
      'traffic:',
      '  source: nginx',
      '  log: access.log',
      '  routes: [{ match: "^/live/", track: 1 }]',
      '',
    ].join('\n'),
  );
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, join(dir, 'hop.yaml')], {
    env: {
      ...process.env,
      LD_PRELOAD: lib,
      FAKETIME_TIMESTAMP_FILE: clockFile,
      FAKETIME_NO_CACHE: '1',
      FAKETIME_DONT_FAKE_MONOTONIC: '1',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.push(child);
  const said: Record<string, unknown>[] = [];
  let partial = '';
  child.stderr!.on('data', (c: Buffer) => {
    const text = partial + c.toString();
    const lines = text.split('\n');
    partial = lines.pop()!;
    for (const l of lines) {
      if (l.trim() === '') continue;
      try {
        said.push(JSON.parse(l) as Record<string, unknown>);
      } catch {
        said.push({ msg: l });
      }
    }
  });
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  /** The faked clock now, µs: what the agent (and nginx) reads. */
  const now = () => BigInt(Date.now()) * 1000n + BigInt(offset) * 1_000_000n;
  const lines: Line[] = [];
  /** Logs a request of `bytes` at the faked clock now, as nginx does. */
  const request = (bytes: bigint): bigint => {
    const at = now();
    const msec = `${at / 1_000_000n}.${String((at % 1_000_000n) / 1000n).padStart(3, '0')}`;
    appendFileSync(
      accessLog,
      `${JSON.stringify({ msec, request_uri: '/live/seg.m4s', status: '200', bytes_sent: String(bytes), request_time: '0.010', remote_addr: '10.0.0.1', http_user_agent: 'player' })}\n`,
    );
    // The line's time, to the ms as nginx writes it.
    const ms = (at / 1000n) * 1000n;
    lines.push({ at: ms, bytes });
    return ms;
  };
  let writing = true;
  /**
   * Requests of NORMAL bytes every 50 ms while `writing`, each in the middle of its period (from
   * 0.2 P to 0.6 P: well before the period is cut, whatever the load), so that each is its
   * period's.
   */
  const traffic = (async () => {
    while (!child.killed && child.exitCode === null) {
      const inPeriod = now() % P;
      if (writing && inPeriod >= P / 5n && inPeriod <= (3n * P) / 5n) request(NORMAL);
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  const line = (start: string) => said.find((l) => String(l.msg).startsWith(start));
  await until('the agent started', () => line('started'));
  return {
    server,
    said,
    line,
    lines,
    request,
    setOffset,
    now,
    pause: () => {
      writing = false;
    },
    resume: () => {
      writing = true;
    },
    stop: async () => {
      writing = false;
      // The last line's period signed and taken, then a clean stop.
      const last = lines.at(-1)?.at ?? 0n;
      await until('the last line signed', () =>
        server.records.some((r) => r.start > last + P) ? true : undefined,
      );
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      await traffic;
    },
  };
}

/** The bytes a record states on its track. */
const bytesOf = (r: HopRecord) => r.tracks.reduce((n, t) => n + t.bytes, 0n);

/** The spans tile the room clock once: sorted, each P long, each ending where the next starts. */
function tiled(records: readonly HopRecord[]): HopRecord[] {
  const sorted = [...records].sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0));
  expect(new Set(sorted.map((r) => r.start)).size).toBe(sorted.length);
  for (let i = 0; i < sorted.length; i++) {
    expect(sorted[i]!.end - sorted[i]!.start).toBe(P);
    if (i > 0) expect(sorted[i]!.start).toBe(sorted[i - 1]!.end);
  }
  return sorted;
}

/** The normal lines logged in a span. */
const linesIn = (lines: readonly Line[], r: HopRecord) =>
  lines.filter((l) => l.bytes === NORMAL && l.at >= r.start && l.at < r.end);

describe('the hop agent, the system clock set 10 minutes forward and back while it runs', () => {
  it('forward: the periods it jumped over are not lived (unmetered, no traffic), none is missing', {
    timeout: 600_000,
  }, async () => {
    const h = await fakedHop();
    await until('three records', () => h.server.records.length >= 3);
    h.setOffset(STEP_S);
    const step = await until('the step said', () => h.line('the room clock stepped forward'));
    const to = BigInt(String(step.to_us));
    await until('three periods after it', () =>
      h.server.records.some((r) => r.start >= to + 3n * P),
    );
    await h.stop();

    const records = tiled(h.server.records);
    // One line for the step: its size, its bounds, the periods not lived.
    expect(step.level).toBe('warn');
    const size = BigInt(String(step.step_us));
    expect(size > BigInt(STEP_S - 1) * 1_000_000n && size < BigInt(STEP_S + 1) * 1_000_000n).toBe(
      true,
    );
    const from = BigInt(String(step.from_us));
    const notLived = {
      from: BigInt(String(step.not_lived_from_us)),
      to: BigInt(String(step.not_lived_to_us)),
    };
    // Not lived: the whole periods within neither stretch the monotonic clock lived, Δm from
    // each side of the step (docs/metering.md): exactly, whatever the machine's speed (on a busy
    // one the agent wakes late, Δm is longer and fewer periods were not lived).
    const dm = to - from - size;
    expect(dm >= 0n && dm < BigInt(STEP_S / 2) * 1_000_000n).toBe(true);
    const ceilTo = (t: bigint) => ((t + P - 1n) / P) * P;
    expect([notLived.from, notLived.to]).toEqual([ceilTo(from + dm), ((to - dm) / P) * P]);
    expect(BigInt(String(step.periods_not_lived)) * P).toBe(notLived.to - notLived.from);
    expect(Number(step.periods_not_lived)).toBeGreaterThan(0);
    expect(h.said.filter((l) => String(l.msg).startsWith('the room clock stepped'))).toHaveLength(
      1,
    );
    let skipped = 0;
    for (const r of records) {
      if (r.start >= notLived.from && r.end <= notLived.to) {
        // Not lived: no energy, no traffic, nothing invented.
        skipped++;
        expect([r.class, r.joules, r.sessions, r.tracks.length]).toEqual([0, 0n, 0, 0]);
      } else if (r.start < to && r.end > from) {
        // Crossed by the step: unmetered; the lines of it are the ones logged in it.
        expect([r.class, r.joules]).toEqual([0, 0n]);
        expect(bytesOf(r)).toBe(NORMAL * BigInt(linesIn(h.lines, r).length));
      } else {
        expect(r.class).toBe(CLASS.ModelBased);
        expect(bytesOf(r)).toBe(NORMAL * BigInt(linesIn(h.lines, r).length));
      }
    }
    expect(skipped).toBe(Number(step.periods_not_lived));
  });

  it('back, then forward again: nothing signed twice, the lines of times already signed not stated', {
    timeout: 600_000,
  }, async () => {
    const h = await fakedHop();
    await until('three records', () => h.server.records.length >= 3);
    h.pause();
    h.setOffset(-STEP_S);
    const back = await until('the step back said', () => h.line('the room clock stepped back'));
    const signedTo = BigInt(String(back.signed_to_us));
    // While the clock repeats periods already signed: requests logged at those times.
    const repeated: bigint[] = [];
    for (let i = 0; i < 10; i++) {
      repeated.push(h.request(REPEATED));
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(repeated.every((at) => at < signedTo)).toBe(true);
    // Back to the true time: a step forward of as much.
    h.setOffset(0);
    h.resume();
    const fwd = await until('the step forward said', () =>
      h.line('the room clock stepped forward'),
    );
    const to = BigInt(String(fwd.to_us));
    await until('three periods after it', () =>
      h.server.records.some((r) => r.start >= to + 3n * P),
    );
    await h.stop();

    const records = tiled(h.server.records);
    if (process.env.CLOCK_JUMPS_LOG !== undefined) {
      for (const l of h.said) if (String(l.msg).startsWith('the room clock')) console.log(l);
    }
    expect(h.said.filter((l) => String(l.msg).startsWith('the room clock stepped'))).toHaveLength(
      2,
    );
    expect(back.level).toBe('warn');
    const size = BigInt(String(back.step_us));
    expect(size > BigInt(STEP_S - 1) * 1_000_000n && size < BigInt(STEP_S + 1) * 1_000_000n).toBe(
      true,
    );
    // It waits for the room clock to reach the next boundary again: nothing before it signed
    // after the step but the periods it had not signed yet.
    expect(BigInt(String(back.waits_until_us))).toBeGreaterThan(signedTo - P);
    // No line logged at a time already signed is stated, anywhere.
    for (const r of records) expect(bytesOf(r) < REPEATED).toBe(true);
    const notLived = {
      from: BigInt(String(fwd.not_lived_from_us)),
      to: BigInt(String(fwd.not_lived_to_us)),
    };
    const from = BigInt(String(fwd.from_us));
    for (const r of records) {
      if (r.end <= signedTo) {
        // Signed before the step back, as it came: the hop's own.
        expect(r.class).toBe(CLASS.ModelBased);
        expect(bytesOf(r)).toBe(NORMAL * BigInt(linesIn(h.lines, r).length));
      } else if (r.start < signedTo + 2n * P) {
        // Left by the step back, lived again after it: unmetered, no traffic.
        expect([r.class, r.joules, r.tracks.length]).toEqual([0, 0n, 0]);
      } else if (r.start >= notLived.from && r.end <= notLived.to) {
        expect([r.class, r.joules, r.sessions, r.tracks.length]).toEqual([0, 0n, 0, 0]);
      } else if (r.start < to && r.end > from) {
        expect([r.class, r.joules]).toEqual([0, 0n]);
      } else {
        expect(r.class).toBe(CLASS.ModelBased);
        expect(bytesOf(r)).toBe(NORMAL * BigInt(linesIn(h.lines, r).length));
      }
    }
    // The records before the step back are the ones signed when it came; none after it is
    // before them.
    const before = records.filter((r) => r.end <= signedTo);
    expect(before.length).toBeGreaterThanOrEqual(3);
  });
});
