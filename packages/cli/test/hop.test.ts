// `wai-steer hop run`: the hop agent as the bin runs it, against the real steering server.
// Two agents (child processes) feed the server; their records are the decisions' evidence. An
// agent killed with SIGKILL mid-period and restarted leaves no gap it could fill, and cuts no
// span twice.

import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  appendFileSync,
  chmodSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { loadConfig, type RunningServer, startServer } from '@wai-steering/server';
import {
  CLASS_LABEL,
  compareBytes,
  type Decision,
  type KeyLogEntry,
  NO_CAPACITY_LIMIT,
  NOT_A_CLONE,
  type PolicyFields,
  readDecision,
  readHopRecord,
  readRoom,
  roomIdOf,
  STATUS,
  secretKeyToJwk,
  signKeyLog,
  signPolicy,
  signRoom,
  toHex,
  unwrap,
} from '@wai-steering/wire';
import { nodeBackend } from '@wai-steering/wire/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, expectUserError, type Ran, tempDir } from './helpers.js';
import { BIN } from './paths.js';

const P = 1_000_000n; // 1 s
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

function newKey() {
  const secretKey = new Uint8Array(randomBytes(32));
  return { secretKey, publicKey: nodeBackend.publicKey(secretKey) };
}

const writeKey = (path: string, k: { secretKey: Uint8Array }) =>
  writeFileSync(path, JSON.stringify(secretKeyToJwk(k.secretKey, nodeBackend)), { mode: 0o600 });

interface Hop {
  readonly name: string;
  readonly dir: string;
  readonly config: string;
  readonly powercap: string;
  readonly log: string;
  readonly spool: string;
  /** µJ the counter gains, and bytes logged, each 100 ms. */
  readonly ujPerTick: bigint;
  counter: bigint;
  child?: ChildProcess;
  stderr: string;
}

/**
 * A room with an origin; a key log granting the steering key `live/steer` and each hop
 * `live/hop` and `energy/OnChipCounter`; a policy of two pathways of one edge hop each (P 1 s,
 * W 2 s, L 600 ms, joules per byte); the server's config; and each hop's powercap tree,
 * access log and `hop.yaml`.
 */
function materials(
  dir: string,
  port: number,
  hops: readonly { name: string; ujPerTick: bigint; listen?: number }[],
) {
  mkdirSync(join(dir, 'keys'), { recursive: true });
  const authority = newKey();
  const origin = newKey();
  const steering = newKey();
  const keys = hops.map(() => newKey());
  const roomBytes = signRoom(
    { authority: authority.publicKey, origin: origin.publicKey, name: 'hop agent e2e' },
    authority.secretKey,
    { backend: nodeBackend },
  );
  const roomId = roomIdOf(unwrap(readRoom(roomBytes)), nodeBackend);
  const energy = [2, 3, 4, 5].map((c) => `energy/${CLASS_LABEL[c]}`);
  const entries: KeyLogEntry[] = [
    { key: authority.publicKey, status: 1, may_sign: ['live/room', ...energy].sort() },
    { key: steering.publicKey, status: 1, may_sign: ['live/steer', ...energy].sort() },
    ...keys.map((k) => ({
      key: k.publicKey,
      status: 1,
      may_sign: ['energy/OnChipCounter', 'live/hop'],
    })),
  ];
  entries.sort((x, y) => compareBytes(x.key, y.key));
  const keyLogBytes = signKeyLog(
    { origin: origin.publicKey, seq: 0n, prev: new Uint8Array(32), entries },
    origin.secretKey,
    { backend: nodeBackend },
  );
  const base = `http://127.0.0.1:${port}`;
  const policy: PolicyFields = {
    room: roomId,
    signer: authority.publicKey,
    period_us: P,
    window_us: 2n * P,
    lag_us: 600_000n,
    basis: 1,
    floor: 0,
    latency_ceiling_ms: 1000,
    min_buffer_ms: 0,
    hysteresis_ppm: 0,
    ttl_s: 10,
    min_ttl_s: 2,
    flags: 0,
    initial: 0,
    tiers: [2_000_000n],
    server_uri: `${base}/steer`,
    reload_uri: `${base}/steer/reload`,
    decision_uri: `${base}/decisions/`,
    pathways: hops.map((h, i) => ({
      id: h.name,
      base: NOT_A_CLONE,
      host: '',
      params: [],
      top_tier: 0,
      latency_ms: 20,
      capacity: NO_CAPACITY_LIMIT,
      min_share_ppm: 0,
      hops: [{ key: keys[i]!.publicKey, place: 1 }],
    })),
  };
  writeFileSync(join(dir, 'room.wrd'), roomBytes);
  writeFileSync(join(dir, 'key-log.wkl'), keyLogBytes);
  writeFileSync(
    join(dir, 'policy.wsp'),
    signPolicy(policy, authority.secretKey, { backend: nodeBackend }),
  );
  writeKey(join(dir, 'keys', 'steering.jwk'), steering);
  writeFileSync(
    join(dir, 'server.json'),
    JSON.stringify({
      room: 'room.wrd',
      key_log: 'key-log.wkl',
      policy: 'policy.wsp',
      signing_key: 'keys/steering.jwk',
      listen: { host: '127.0.0.1', port },
      store: { path: 'steering.sqlite', create: true },
    }),
  );
  return hops.map((h, i): Hop => {
    const hd = join(dir, h.name);
    const powercap = join(hd, 'powercap');
    mkdirSync(join(powercap, 'intel-rapl:0'), { recursive: true });
    writeFileSync(join(powercap, 'intel-rapl:0', 'max_energy_range_uj'), '262143328850\n');
    writeFileSync(join(powercap, 'intel-rapl:0', 'energy_uj'), '0\n');
    const log = join(hd, 'access.log');
    writeFileSync(log, '');
    writeKey(join(hd, 'hop.jwk'), keys[i]!);
    const config = join(hd, 'hop.yaml');
    writeFileSync(
      config,
      [
        'room: ../room.wrd',
        'key_log: ../key-log.wkl',
        'key: hop.jwk',
        'policy: ../policy.wsp',
        'servers:',
        `  - ${base}`,
        'spool: spool',
        'energy:',
        '  source: rapl',
        '  root: powercap',
        'traffic:',
        '  source: nginx',
        `  log: access.log`,
        '  routes:',
        "    - match: '^/seg/'",
        '      track: 1',
        '      tier: 0',
        '      segment: 2s',
        ...(h.listen === undefined ? [] : [`listen: { host: 127.0.0.1, port: ${h.listen} }`]),
        'delivery:',
        '  backoff: { initial: 50ms, max: 500ms }',
        '',
      ].join('\n'),
    );
    return {
      name: h.name,
      dir: hd,
      config,
      powercap,
      log,
      spool: join(hd, 'spool'),
      ujPerTick: h.ujPerTick,
      counter: 0n,
      stderr: '',
    };
  });
}

/** Each 100 ms: every hop's counter gains its µJ, and its log one 50 000-byte segment. */
function drive(hops: readonly Hop[]): () => void {
  const t = setInterval(() => {
    const msec = (Date.now() / 1000).toFixed(3);
    for (const h of hops) {
      h.counter += h.ujPerTick;
      // Replaced whole, as sysfs reads are: the agent never sees a half-written file.
      const file = join(h.powercap, 'intel-rapl:0', 'energy_uj');
      writeFileSync(`${file}.tmp`, `${h.counter}\n`);
      renameSync(`${file}.tmp`, file);
      appendFileSync(
        h.log,
        `${JSON.stringify({ msec, request_uri: '/seg/1.m4s', status: '200', bytes_sent: '50000', request_time: '0.001', remote_addr: '127.0.0.1', http_user_agent: `p-${h.name}` })}\n`,
      );
    }
  }, 100);
  return () => clearInterval(t);
}

function run(h: Hop): void {
  const child = spawn(process.execPath, [BIN, 'hop', 'run', '--config', h.config], {
    cwd: h.dir,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  child.stderr?.on('data', (c: Buffer) => {
    h.stderr += c.toString();
  });
  h.child = child;
}

async function stop(h: Hop, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  const c = h.child;
  if (c === undefined || c.exitCode !== null || c.signalCode !== null) return;
  const done = new Promise((r) => c.once('exit', r));
  c.kill(signal);
  await done;
}

/** The records of a hop's spool (kept until taken, then done), by span start. */
function spooled(h: Hop) {
  const out = [];
  for (const sub of ['records', 'done']) {
    let names: string[] = [];
    try {
      names = readdirSync(join(h.spool, sub)).filter((n) => n.endsWith('.wmh'));
    } catch {
      continue;
    }
    for (const n of names) {
      let bytes: Uint8Array;
      try {
        bytes = new Uint8Array(readFileSync(join(h.spool, sub, n)));
      } catch (e) {
        // Moved from records/ to done/ since the listing (the agent runs): seen there next time.
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw e;
      }
      const rec = unwrap(readHopRecord(bytes));
      out.push({ name: n, sub, rec, digest: n.slice(21, 85) });
    }
  }
  return out.sort((a, b) => (a.rec.start < b.rec.start ? -1 : 1));
}

/** The agent's log lines that are not about a period, for a failure's message. */
function hopLog(h: Hop): string {
  return h.stderr
    .split('\n')
    .filter((l) => l !== '' && !l.includes('"msg":"period"'))
    .join(' | ');
}

/** Waits for `cond`, checked every 50 ms, for at most `ms`: a ceiling, not a duration. */
async function until(what: string, cond: () => boolean, ms = 60_000): Promise<void> {
  await untilAsync(what, async () => cond(), ms);
}

async function untilAsync(what: string, cond: () => Promise<boolean>, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

describe('hop run against the real steering server', () => {
  let dir: string;
  let server: RunningServer;
  let hops: Hop[];
  let undrive: () => void;
  let agentPort: number;

  beforeAll(async () => {
    dir = tempDir();
    const port = await freePort();
    agentPort = await freePort();
    // cdn-a spends a third of cdn-b's energy for the same bytes.
    hops = materials(dir, port, [
      { name: 'cdn-a', ujPerTick: 10_000n, listen: agentPort },
      { name: 'cdn-b', ujPerTick: 30_000n },
    ]);
    server = await startServer(loadConfig(join(dir, 'server.json')));
    undrive = drive(hops);
  });

  afterAll(async () => {
    undrive?.();
    for (const h of hops ?? []) await stop(h, 'SIGKILL');
    await server?.close();
  });

  it('two agents: decisions name their records with status figure; lower J/D ranks first', async () => {
    for (const h of hops) run(h);
    // The window (2 periods, ended L before) covered by metered records of both hops.
    await until('three metered records of each hop', () =>
      hops.every(
        (h) => spooled(h).filter((r) => r.sub === 'done' && r.rec.class === 4).length >= 3,
      ),
    );
    // A decision whose window both hops cover with metered records: on a busy machine a
    // period may be unmetered (a timer woken past the tolerance), so ask until one is.
    let manifest: Record<string, unknown> = {};
    let decision: Decision | undefined;
    const figures = async () => {
      const res = await fetch(`${server.url}/steer`);
      expect(res.status).toBe(200);
      manifest = (await res.json()) as Record<string, unknown>;
      const hex = String(manifest['science.transaction.wai-decision']).slice(-64);
      const bytes = new Uint8Array(
        await (await fetch(`${server.url}/decisions/${hex}`)).arrayBuffer(),
      );
      const d = unwrap(readDecision(bytes));
      decision = d;
      return d.pathways.every((p) => p.status === STATUS.figure);
    };
    await untilAsync('a decision with a figure for both pathways', figures);
    if (decision === undefined) throw new Error('no decision');
    expect(manifest['PATHWAY-PRIORITY']).toEqual(['cdn-a', 'cdn-b']);
    expect(decision.pathways.map((p) => p.status)).toEqual([STATUS.figure, STATUS.figure]);
    expect(decision.pathways.map((p) => p.class)).toEqual([4, 4]);
    decision.pathways.forEach((p, i) => {
      const mine = new Map(spooled(hops[i]!).map((r) => [r.digest, r.rec]));
      expect(p.evidence.length).toBe(2);
      let j = 0n;
      let d = 0n;
      for (const e of p.evidence) {
        const rec = mine.get(toHex(e));
        expect(rec, `evidence ${toHex(e)} is a record of ${hops[i]!.name}`).toBeDefined();
        j += rec!.joules;
        d += rec!.tracks.reduce((n, t) => n + t.bytes, 0n);
      }
      expect([p.joules, p.delivery]).toEqual([j, d]);
    });
    const [a, b] = decision.pathways;
    // a's J/D is below b's: compared by their products (§6.2).
    expect(
      a!.joules * b!.delivery < b!.joules * a!.delivery,
      `${a!.joules}/${a!.delivery} vs ${b!.joules}/${b!.delivery}`,
    ).toBe(true);
    // The agent's own endpoints: healthy, and the server keeping up (the record of the period
    // just over may be in flight).
    let h: { ok: boolean; pending: Record<string, number> } = { ok: false, pending: {} };
    await untilAsync('the agent healthy, at most one record pending', async () => {
      const health = await fetch(`http://127.0.0.1:${agentPort}/health`);
      h = (await health.json()) as typeof h;
      return health.status === 200 && (h.pending[server.url] ?? 0) <= 1;
    });
    expect(h.ok).toBe(true);
    // The agent counted at least the metered periods it had cut when asked (a count that grows
    // as the test runs: as many as the machine's pace gave, never fewer).
    const metered = spooled(hops[0]!).filter((r) => r.rec.class === 4).length;
    const metrics = await (await fetch(`http://127.0.0.1:${agentPort}/metrics`)).text();
    const periods = /^wai_agent_periods_total\{class="OnChipCounter"\} ([0-9]+)$/m.exec(metrics);
    expect(periods, metrics).not.toBeNull();
    expect(Number(periods![1])).toBeGreaterThanOrEqual(Math.max(3, metered));
    expect(metrics).toContain('wai_agent_records_refused_total{server=');
    const lines = hops[0]!.stderr.split('\n').filter((l) => l.includes('"msg":"period"'));
    expect(lines.length).toBeGreaterThanOrEqual(3);
    // A metered period's line, once the server took its record.
    const line = lines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.class === 4 && (l.sent as string[]).length === 1)
      .at(-1);
    expect(line, lines.join('\n')).toMatchObject({
      class: 4,
      sessions: 1,
      sent: [server.url],
      pending: [],
    });
  });

  it('kill -9 mid-period and restart: no gap it could fill, no span twice', async () => {
    const h = hops[0]!;
    const before = spooled(h).length;
    // Mid-period: 0.4 s past a boundary.
    const now = Date.now();
    await sleep(1000 - (now % 1000) + 400);
    await stop(h, 'SIGKILL');
    const killedAt = BigInt(Date.now()) * 1000n;
    await sleep(1700);
    const restartedAt = BigInt(Date.now()) * 1000n;
    run(h);
    await until('the restarted agent started', () => h.stderr.split('"msg":"started"').length > 2);
    await until('three records after the restart', () =>
      spooled(h).some((r) => r.rec.start > restartedAt + 3n * P),
    );
    // Its start over (it answers on its own port; it stops cleanly on SIGTERM from then on),
    // however long a busy machine makes it.
    let up = false;
    for (let i = 0; i < 1200 && !up; i++) {
      up = await fetch(`http://127.0.0.1:${agentPort}/health`).then(
        async (r) => {
          await r.arrayBuffer();
          return true;
        },
        () => false,
      );
      if (!up) await sleep(50);
    }
    expect(up).toBe(true);
    await stop(h);
    expect(h.child!.exitCode).toBe(0);
    const all = spooled(h);
    expect(all.length).toBeGreaterThan(before + 3);
    // Tiled: each span starts where the one before ended, one period each, never twice.
    for (let i = 1; i < all.length; i++) {
      expect(all[i]!.rec.start).toBe(all[i - 1]!.rec.end);
      expect(all[i]!.rec.end - all[i]!.rec.start).toBe(P);
    }
    expect(new Set(all.map((r) => r.rec.start)).size).toBe(all.length);
    // The periods the agent was down across are unmetered; the one after the restart too; the
    // rest are metered, but for a period a boundary of which the agent was woken too late to
    // read (a busy machine), which it says.
    const late = new Set(
      h.stderr
        .split('\n')
        .filter((l) => l.includes('"msg":"woken late'))
        .map((l) => BigInt(JSON.parse(l).boundary as string)),
    );
    const unmetered = all.filter((r) => r.rec.class === 0);
    expect(unmetered.length).toBeGreaterThanOrEqual(2);
    // Down from the kill to the first boundary the restarted agent read at.
    const started = h.stderr
      .split('\n')
      .filter((l) => l.includes('"msg":"started"'))
      .map((l) => BigInt(Date.parse(JSON.parse(l).time as string)) * 1000n)
      .at(-1)!;
    const down = (r: (typeof all)[number]) =>
      r.rec.end > killedAt - P && r.rec.start < (started / P + 1n) * P;
    expect(
      unmetered.every((r) => down(r) || late.has(r.rec.start) || late.has(r.rec.end)),
      `unmetered ${unmetered.map((r) => r.rec.start - killedAt).join(' ')} (µs from the kill); ${hopLog(h)}`,
    ).toBe(true);
    // Every record the spool holds as done reached the server; a record cut just before the
    // stop may still be in records/ (on a busy machine, more than one), kept to be sent at the
    // next start: none is lost.
    for (const r of all) {
      const got = await fetch(`${server.url}/records/${r.digest}`);
      await got.arrayBuffer();
      if (r.sub === 'done') expect(got.status, r.name).toBe(200);
      else expect([200, 404], r.name).toContain(got.status);
    }
  });
});

describe('hop run: errors', () => {
  it('names the field of a config that breaks a rule', async () => {
    const d = tempDir();
    writeFileSync(
      join(d, 'hop.yaml'),
      'room: r\nkey: k\nspool: s\nservers: [ftp://x]\nperiod: 2s\nenergy: { source: rapl }\n',
    );
    expectUserError(
      await cli(['hop', 'run', '--config', 'hop.yaml'], d),
      /servers\.0: expected an http\(s\) URL/,
    );
    writeFileSync(
      join(d, 'hop.yaml'),
      'room: r\nkey: k\nspool: s\nservers: [http://x]\nperiod: 2s\nenergy: { source: battery }\n',
    );
    expectUserError(await cli(['hop', 'run', '--config', 'hop.yaml'], d), /energy\.source: /);
  });

  it('refuses a key the key log does not grant the configured class, naming the entry', async () => {
    const d = tempDir();
    const port = await freePort();
    const [h] = materials(d, port, [{ name: 'edge', ujPerTick: 1n }]);
    writeFileSync(
      h!.config,
      readFileSync(h!.config, 'utf8').replace(
        /energy:\n {2}source: rapl\n {2}root: powercap\n/,
        'energy:\n  source: model\n  idle_watts: 10\n  nanojoules_per_byte: 5\n',
      ),
    );
    expectUserError(
      await cli(['hop', 'run', '--config', 'hop.yaml'], h!.dir),
      /entry [0-9a-f]{64} does not grant energy\/ModelBased for the configured class/,
    );
  });

  it('a wrong key is one line naming the file', async () => {
    const d = tempDir();
    const port = await freePort();
    const [h] = materials(d, port, [{ name: 'edge', ujPerTick: 1n }]);
    const jwk = JSON.parse(readFileSync(join(h!.dir, 'hop.jwk'), 'utf8'));
    delete jwk.d;
    writeFileSync(join(h!.dir, 'hop.jwk'), JSON.stringify(jwk));
    expectUserError(
      await cli(['hop', 'run', '--config', 'hop.yaml'], h!.dir),
      /key .*hop\.jwk: holds a public key only \(no "d"\)/,
    );
    writeFileSync(join(h!.dir, 'hop.jwk'), 'not json');
    expectUserError(
      await cli(['hop', 'run', '--config', 'hop.yaml'], h!.dir),
      /key .*hop\.jwk: not a JWK/,
    );
  });

  it('an unreadable source is one line naming it', async () => {
    const d = tempDir();
    const port = await freePort();
    const [h] = materials(d, port, [{ name: 'edge', ujPerTick: 1n }]);
    writeFileSync(
      h!.config,
      readFileSync(h!.config, 'utf8').replace('root: powercap', 'root: nowhere'),
    );
    expectUserError(
      await cli(['hop', 'run', '--config', 'hop.yaml'], h!.dir),
      /energy: cannot read .*nowhere: ENOENT/,
    );
  });

  it('--once --span prints one record of a past span; a counter cannot state it', async () => {
    const d = tempDir();
    const port = await freePort();
    const [h] = materials(d, port, [{ name: 'edge', ujPerTick: 1n }]);
    const start = ((BigInt(Date.now()) * 1000n) / P - 5n) * P;
    appendFileSync(
      h!.log,
      `${JSON.stringify({ msec: (Number(start + 100_000n) / 1e6).toFixed(3), request_uri: '/seg/9.m4s', status: '200', bytes_sent: '1234', request_time: '0.002', remote_addr: '10.0.0.1', http_user_agent: 'x' })}\n`,
    );
    const r = await cli(
      ['hop', 'run', '--config', 'hop.yaml', '--once', '--span', `${start}..${start + P}`],
      h!.dir,
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/warning: the record is the unmetered marker/);
    const rec = JSON.parse(r.stdout);
    expect(rec).toMatchObject({
      kind: 'WMH1',
      start: String(start),
      end: String(start + P),
      class: 0,
      joules: '0',
      sessions: 1,
    });
    expect(rec.tracks).toEqual([{ track: 1, kind: 1, direction: 2, bytes: '1234' }]);
    expect(rec.subscriber_us[0]).toBe('2000000');
  });

  it('--once --span takes two instants as every option does: now-4s..now-2s, RFC 3339', async () => {
    const d = tempDir();
    const port = await freePort();
    const [h] = materials(d, port, [{ name: 'edge', ujPerTick: 1n }]);
    const before = BigInt(Date.now()) * 1000n;
    const r = await cli(
      ['hop', 'run', '--config', 'hop.yaml', '--once', '--span', 'now-4s..now-2s'],
      h!.dir,
    );
    const after = BigInt(Date.now()) * 1000n;
    expect(r.code, r.stderr).toBe(0);
    const rec = JSON.parse(r.stdout) as { start: string; end: string };
    const [start, end] = [BigInt(rec.start), BigInt(rec.end)];
    expect(end - start).toBe(2_000_000n); // both ends read at one now
    expect(start >= before - 4_000_000n && start <= after - 4_000_000n).toBe(true);

    const at = (before / P - 5n) * P;
    const iso = (us: bigint) => new Date(Number(us / 1000n)).toISOString();
    const byTime = await cli(
      ['hop', 'run', '--config', 'hop.yaml', '--once', '--span', `${iso(at)}..${iso(at + P)}`],
      h!.dir,
    );
    expect(byTime.code, byTime.stderr).toBe(0);
    expect(JSON.parse(byTime.stdout)).toMatchObject({ start: String(at), end: String(at + P) });

    expectUserError(
      await cli(
        ['hop', 'run', '--config', 'hop.yaml', '--once', '--span', 'now-2s..now-4s'],
        h!.dir,
      ),
      /^wai-steer: --span: now-2s\.\.now-4s: the end is not after the start$/m,
    );
    expectUserError(
      await cli(
        ['hop', 'run', '--config', 'hop.yaml', '--once', '--span', 'yesterday..now'],
        h!.dir,
      ),
      /^wai-steer: --span: the start, yesterday: expected room-clock microseconds/m,
    );
  });

  it('the old camelCase spelling of a field is read with a warning; a misspelt one is refused', async () => {
    const d = tempDir();
    const port = await freePort();
    const [h] = materials(d, port, [{ name: 'edge', ujPerTick: 1n }]);
    const snake = readFileSync(h!.config, 'utf8');
    writeFileSync(h!.config, snake.replace('key_log:', 'keyLog:'));
    const start = ((BigInt(Date.now()) * 1000n) / P - 5n) * P;
    const once = [
      'hop',
      'run',
      '--config',
      'hop.yaml',
      '--once',
      '--span',
      `${start}..${start + P}`,
    ];
    const r = await cli(once, h!.dir);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      /^wai-steer: warning: hop config .*hop\.yaml: keyLog is the old spelling of key_log: read this release, not the next \(rename it\)$/m,
    );
    expect(JSON.parse(r.stdout)).toMatchObject({ kind: 'WMH1', start: String(start) });
    writeFileSync(h!.config, snake.replace('key_log:', 'keylog:'));
    expectUserError(
      await cli(once, h!.dir),
      /^wai-steer: hop config .*hop\.yaml: keylog: unknown field \(did you mean "key_log"\?\)/,
    );
    writeFileSync(
      h!.config,
      snake.replace('key_log: ../key-log.wkl', 'key_log: ../key-log.wkl\nkeyLog: ../key-log.wkl'),
    );
    expectUserError(
      await cli(once, h!.dir),
      /hop config .*hop\.yaml: keyLog: given with key_log, its new spelling: keep one/,
    );
  });

  it('--dry-run prints each record, and neither spools nor sends', async () => {
    const d = tempDir();
    const port = await freePort();
    const [h] = materials(d, port, [{ name: 'edge', ujPerTick: 1n }]);
    const child = spawn(
      process.execPath,
      [BIN, 'hop', 'run', '--config', 'hop.yaml', '--dry-run'],
      {
        cwd: h!.dir,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    let err = '';
    child.stdout?.on('data', (c: Buffer) => {
      out += c.toString();
    });
    child.stderr?.on('data', (c: Buffer) => {
      err += c.toString();
    });
    // A metered record (on a busy machine a period may be unmetered: a timer woken too late).
    const metered = () =>
      out
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .find((r) => r.class === 4);
    try {
      await until('a metered record printed', () => metered() !== undefined);
    } finally {
      const done = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await done;
    }
    expect(child.exitCode, err).toBe(0);
    const rec = metered()!;
    // The counter did not move: a metered record of 0 µJ.
    expect(rec).toMatchObject({ kind: 'WMH1', class: 4, joules: '0' });
    expect(BigInt(rec.end as string) - BigInt(rec.start as string)).toBe(P);
    expect(readdirSync(h!.dir)).not.toContain('spool');
    expect(err).toContain('"dryRun":true');
  });
});

/**
 * The bin in a process of its own, bounded: a run that hangs is killed after `ms` and fails the
 * test (status -1) rather than hanging it.
 */
function runBin(argv: readonly string[], cwd: string, ms = 60_000): Ran {
  const r = spawnSync(process.execPath, [BIN, ...argv], { cwd, encoding: 'buffer', timeout: ms });
  return {
    code: r.status ?? -1,
    stdout: r.stdout.toString('utf8'),
    stderr: r.stderr.toString('utf8'),
    stdoutBytes: new Uint8Array(r.stdout),
  };
}

/**
 * Makes a directory unwritable: by its mode for an unprivileged user (EACCES); for root, whom
 * modes do not stop, by the immutable attribute (EPERM) or a read-only bind mount (EROFS), as
 * asked. (The agent's tests have the same helper: test/helpers/read-only.ts.) Returns the code
 * the agent's writes then fail with, and a function that undoes it.
 */
function unwritable(dir: string, how: 'EPERM' | 'EROFS'): { code: string; undo: () => void } {
  const ok = (cmd: string, ...args: string[]) =>
    spawnSync(cmd, args, { stdio: 'ignore' }).status === 0;
  if (process.getuid?.() !== 0) {
    chmodSync(dir, 0o555);
    return { code: 'EACCES', undo: () => chmodSync(dir, 0o755) };
  }
  if (how === 'EPERM' && ok('chattr', '+i', dir)) {
    return { code: 'EPERM', undo: () => ok('chattr', '-i', dir) };
  }
  if (how === 'EROFS' && ok('mount', '--bind', dir, dir)) {
    if (ok('mount', '-o', 'remount,bind,ro', dir)) {
      return { code: 'EROFS', undo: () => ok('umount', dir) };
    }
    ok('umount', dir);
  }
  throw new Error(`cannot make ${dir} unwritable (${how}) as root here`);
}

describe('hop run: the spool, and what a counter may claim', () => {
  /** A hop whose config names `spool`. */
  async function hopWith(spool: string) {
    const d = tempDir();
    const [h] = materials(d, await freePort(), [{ name: 'edge', ujPerTick: 1n }]);
    writeFileSync(
      h!.config,
      readFileSync(h!.config, 'utf8').replace('spool: spool', `spool: ${spool}`),
    );
    return h!;
  }
  const run = (h: Hop) => runBin(['hop', 'run', '--config', 'hop.yaml'], h.dir);

  it('a spool under /proc: exit 2, one line, no hang', async () => {
    const h = await hopWith('/proc/nope');
    expectUserError(
      run(h),
      /^wai-steer: spool \/proc\/nope: under \/proc, a kernel file system that holds no files of the agent: choose a directory on a disk/,
    );
  });

  it('a spool under a file (ENOTDIR): exit 2, one line naming the path and the fix', async () => {
    const h = await hopWith('not-a-dir/spool');
    writeFileSync(join(h.dir, 'not-a-dir'), '');
    expectUserError(
      run(h),
      /^wai-steer: spool .*\/not-a-dir\/spool: cannot write it \(ENOTDIR\): a file stands where a directory belongs: move that file, or choose another spool$/m,
    );
  });

  it('a spool the agent may not create (EPERM) or write (read-only): exit 2, one line', async () => {
    const h = await hopWith('locked/spool');
    mkdirSync(join(h.dir, 'locked'));
    const locked = unwritable(join(h.dir, 'locked'), 'EPERM');
    try {
      expectUserError(
        run(h),
        new RegExp(`^wai-steer: spool .*/locked/spool: cannot write it \\(${locked.code}\\): `),
      );
    } finally {
      locked.undo();
    }
    const ro = await hopWith('ro-spool');
    mkdirSync(join(ro.dir, 'ro-spool'));
    const readOnly = unwritable(join(ro.dir, 'ro-spool'), 'EROFS');
    try {
      expectUserError(
        run(ro),
        new RegExp(`^wai-steer: spool .*/ro-spool: cannot write it \\(${readOnly.code}\\): `),
      );
    } finally {
      readOnly.undo();
    }
  });

  it('--once without --span: the last period over, printed, exit 0', async () => {
    const h = await hopWith('spool');
    appendFileSync(
      h.log,
      `${JSON.stringify({ msec: ((Date.now() - 1500) / 1000).toFixed(3), request_uri: '/seg/9.m4s', status: '200', bytes_sent: '1234', request_time: '0.002', remote_addr: '10.0.0.1', http_user_agent: 'x' })}\n`,
    );
    const before = BigInt(Date.now()) * 1000n;
    const r = runBin(['hop', 'run', '--config', 'hop.yaml', '--once'], h.dir);
    const after = BigInt(Date.now()) * 1000n;
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.split('\n').filter((l) => l !== '');
    expect(lines.length).toBe(1);
    const rec = JSON.parse(lines[0]!);
    expect(rec).toMatchObject({ kind: 'WMH1', class: 0, joules: '0' });
    const end = BigInt(rec.end);
    expect(BigInt(rec.start)).toBe(end - P);
    expect(end >= (before / P) * P && end <= (after / P) * P).toBe(true);
    // A counter cannot state a period it did not see begin: said, not a plausible number.
    expect(r.stderr).toMatch(
      /warning: the record is the unmetered marker: the span began before the agent read the counter/,
    );
    expect(readdirSync(h.dir)).not.toContain('spool');
  });

  it('a counter in a unit other than energy, or claiming more than its source backs: refused at start', async () => {
    const h = await hopWith('spool');
    const base = readFileSync(h.config, 'utf8');
    const energy = (lines: string) =>
      writeFileSync(
        h.config,
        base.replace(
          /energy:\n {2}source: rapl\n {2}root: powercap\n/,
          `energy:\n  source: prometheus\n  url: http://127.0.0.1:9/metrics\n${lines}`,
        ),
      );
    energy('  metric: node_cpu_seconds_total\n  unit: joules\n  class: OnChipCounter\n');
    expectUserError(
      await cli(['hop', 'run', '--config', 'hop.yaml'], h.dir),
      /hop config .*hop\.yaml: energy\.metric: node_cpu_seconds_total is not a counter of energy: its name says seconds/,
    );
    energy('  preset: scaphandre\n  class: OnChipCounter\n');
    expectUserError(
      await cli(['hop', 'run', '--config', 'hop.yaml'], h.dir),
      /hop config .*hop\.yaml: energy\.class: class OnChipCounter is more than scaph_host_energy_microjoules can back \(.*\): state Estimator$/m,
    );
  });
});
