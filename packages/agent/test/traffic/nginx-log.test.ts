import { randomBytes } from 'node:crypto';
import {
  appendFileSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { CLASS, type HopRecord } from '@wai-steering/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HopAgent, modelSource, nginxLogSource, SourceError } from '../../src/index.js';
import { type RunningNginx, startNginx } from '../helpers/nginx.js';
import { makeRoom, tempDir } from '../helpers/room.js';
import { TestSteeringServer } from '../helpers/steering.js';

const P = 1_000_000n;
const SEGMENT_US = 2_000_000n;

let nginx: RunningNginx;
beforeAll(async () => {
  nginx = await startNginx();
});
afterAll(async () => {
  await nginx?.stop();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits for `cond`, checked every 20 ms, for at most `ms` (a ceiling, not a duration). */
async function until(what: string, cond: () => boolean, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/** The lines the files hold (a file not there holds none). */
function linesIn(files: readonly string[]): number {
  let n = 0;
  for (const f of files) {
    if (!existsSync(f)) continue;
    n += readFileSync(f, 'utf8')
      .split('\n')
      .filter((l) => l !== '').length;
  }
  return n;
}

/** Segment files of three tiers and an audio track, and a playlist, of random sizes. */
function media(root: string): string[] {
  const files: string[] = ['/live/index.m3u8'];
  mkdirSync(join(root, 'live'), { recursive: true });
  writeFileSync(join(root, 'live', 'index.m3u8'), '#EXTM3U\n');
  for (const dir of ['video/0', 'video/1', 'video/2', 'audio']) {
    mkdirSync(join(root, 'live', dir), { recursive: true });
    for (let i = 0; i < 4; i++) {
      const name = `/live/${dir}/seg${i}.m4s`;
      writeFileSync(join(root, name), randomBytes(1000 + Math.floor(Math.random() * 40_000)));
      files.push(name);
    }
  }
  return files;
}

interface Line {
  msec: string;
  request_uri: string;
  status: string;
  bytes_sent: string;
  remote_addr: string;
  http_user_agent: string;
}

/** The test's own reading of nginx's log: by period, each track's bytes, tiers' 2xx, clients. */
function expected(lines: Line[], start: bigint) {
  const per = new Map<
    bigint,
    { t1: bigint; t2: bigint; t9: bigint; tiers: bigint[]; clients: Set<string> }
  >();
  for (const l of lines) {
    const [s, ms] = l.msec.split('.');
    const us = BigInt(s!) * 1_000_000n + BigInt(ms!.padEnd(3, '0')) * 1000n;
    if (us < start) continue;
    const k = (us / P) * P;
    let e = per.get(k);
    if (e === undefined) {
      e = { t1: 0n, t2: 0n, t9: 0n, tiers: new Array<bigint>(8).fill(0n), clients: new Set() };
      per.set(k, e);
    }
    const b = BigInt(l.bytes_sent);
    const video = /^\/live\/video\/(\d)\//.exec(l.request_uri);
    if (video !== null) {
      e.t1 += b;
      if (l.status.startsWith('2')) e.tiers[Number(video[1])]! += SEGMENT_US;
    } else if (l.request_uri.startsWith('/live/audio/')) e.t2 += b;
    else e.t9 += b;
    e.clients.add(`${l.remote_addr} ${l.http_user_agent}`);
  }
  return per;
}

describe('nginx access log (Debian nginx, the shipped log_format)', () => {
  it('states exactly the bytes nginx logged, by track and tier, across a log rotation', async () => {
    const files = media(nginx.root);
    const room = makeRoom([['energy/ModelBased', 'live/hop']]);
    const server = new TestSteeringServer(room.ctx);
    await server.up(0);
    const agent = new HopAgent({
      room: room.ctx,
      key: room.hops[0]!,
      period: P,
      energy: modelSource({ idleWatts: '20', nanojoulesPerByte: '50.5' }),
      traffic: nginxLogSource({
        path: nginx.log,
        routes: [
          { pattern: /^\/live\/video\/(?<tier>[0-7])\//, track: 1, kind: 1, segmentUs: SEGMENT_US },
          { pattern: /^\/live\/audio\//, track: 2, kind: 1 },
          { pattern: /^\//, track: 9, kind: 2 },
        ],
      }),
      servers: [server.url],
      spool: join(tempDir(), 'spool'),
      cutDelay: 0n,
      manual: true,
      log: () => {},
    });
    const startUs = BigInt(Date.now()) * 1000n;
    await agent.start();
    const startedUs = BigInt(Date.now()) * 1000n;
    const rotated = `${nginx.log}.1`;
    let requests = 0;
    for (let period = 0; period < 4; period++) {
      if (period === 2) await nginx.rotate(rotated);
      for (let i = 0; i < 12; i++) {
        const f = files[(period * 7 + i * 5) % files.length]!;
        const res = await fetch(`${nginx.url}${f}`, {
          headers: { 'user-agent': `player-${i % 3}` },
        });
        await res.arrayBuffer();
        requests++;
      }
      // A 404 on a media route: its bytes count, its delivery time does not.
      await (await fetch(`${nginx.url}/live/video/1/missing.m4s`)).arrayBuffer();
      requests++;
      // nginx logs a request once its response is sent: every one logged, then past the next
      // boundary, and the agent cuts what is over.
      await until(`${requests} requests logged`, () => linesIn([rotated, nginx.log]) >= requests);
      const now = BigInt(Date.now()) * 1000n;
      await sleep(Number(((now / P + 1n) * P - now) / 1000n) + 20);
      await agent.poll();
    }
    expect(await agent.delivered()).toBe(true);
    await agent.stop();
    await server.down();

    const lines = [rotated, nginx.log]
      .flatMap((f) => readFileSync(f, 'utf8').split('\n'))
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Line);
    expect(lines.length).toBeGreaterThanOrEqual(requests);
    // The agent's first period is the one it started in (a boundary may pass as it starts).
    const first = server.records[0]!.start;
    expect(first >= (startUs / P) * P && first <= (startedUs / P) * P).toBe(true);
    const want = expected(lines, first);
    expect(want.size).toBeGreaterThanOrEqual(4);
    const got = new Map<bigint, HopRecord>(server.records.map((r) => [r.start, r]));
    let total = 0n;
    for (const [k, e] of want) {
      const r = got.get(k);
      expect(r, `a record of the period at ${k}`).toBeDefined();
      const bytes = (t: number) => r!.tracks.find((x) => x.track === t)?.bytes;
      expect([bytes(1), bytes(2), bytes(9)]).toEqual([e.t1, e.t2, e.t9]);
      expect(r!.subscriber_us).toEqual(e.tiers);
      expect(r!.sessions).toBe(e.clients.size);
      expect(r!.class).toBe(CLASS.ModelBased);
      // The model: 20 W over the period and 50.5 nJ for each byte sent, in whole µJ.
      const out = e.t1 + e.t2 + e.t9;
      expect(r!.joules).toBe((20_000_000n * P + 50_500n * out) / 1_000_000n);
      total += out;
    }
    // Every byte logged is in a record, once.
    const stated = server.records.reduce(
      (n, r) => n + r.tracks.reduce((m, t) => m + t.bytes, 0n),
      0n,
    );
    expect(stated).toBe(total);
    const logged = lines
      .filter((l) => BigInt(l.msec.replace('.', '')) * 1000n >= first)
      .reduce((n, l) => n + BigInt(l.bytes_sent), 0n);
    expect(stated).toBe(logged);
    // Records tile the run, in period order.
    const starts = server.records.map((r) => r.start);
    for (let i = 1; i < starts.length; i++) expect(starts[i]).toBe(starts[i - 1]! + P);
  });
});

describe('following the log', () => {
  const P2 = 1_000_000n;
  const T = 1_800_000_000_000_000n;
  const line = (us: bigint, bytes: number) =>
    `${JSON.stringify({ msec: `${us / 1_000_000n}.${String((us % 1_000_000n) / 1000n).padStart(3, '0')}`, request_uri: '/a', status: '200', bytes_sent: String(bytes), request_time: '0.000', remote_addr: '10.0.0.1', http_user_agent: 'u' })}\n`;

  it('reads what the old file gains after a rename, a new file, and a truncation in place', async () => {
    const write = writeFileSync;
    const dir = tempDir();
    const log = join(dir, 'access.log');
    write(log, line(T - 10n, 1) + line(T + 10n, 2)); // one before the start: not counted
    const src = nginxLogSource({
      path: log,
      routes: [{ pattern: /^\//, track: 1, kind: 1 }],
      pollMs: 60_000,
    });
    await src.start(T, P2);
    appendFileSync(log, line(T + 20n, 4));
    renameSync(log, `${log}.1`);
    write(log, line(T + 30n, 8));
    src.poll(); // follows to the new file
    appendFileSync(`${log}.1`, line(T + 40n, 16)); // a worker not yet reopened
    appendFileSync(log, line(T + 50n, 32).slice(0, 20)); // half a line
    src.poll();
    appendFileSync(log, line(T + 50n, 32).slice(20));
    const first = await src.take({ start: T, end: T + P2 });
    expect(first?.tracks).toEqual([
      { track: 1, kind: 1, direction: 2, bytes: 2n + 4n + 8n + 16n + 32n },
    ]);
    truncateSync(log, 0); // copytruncate
    appendFileSync(log, line(T + P2 + 5n, 64));
    const second = await src.take({ start: T + P2, end: T + 2n * P2 });
    expect(second?.tracks[0]?.bytes).toBe(64n);
    expect(second?.sessions).toBe(1);
    await src.close();
  });
});

describe('copytruncate (logrotate copies the log, then empties it in place)', () => {
  it('reads what was written after the last read from the copy, then the emptied log from 0 (Debian nginx)', async () => {
    const own = await startNginx();
    try {
      mkdirSync(join(own.root, 'seg'), { recursive: true });
      writeFileSync(join(own.root, 'seg', 'a.m4s'), randomBytes(7_000));
      writeFileSync(join(own.root, 'seg', 'b.m4s'), randomBytes(3_100));
      // One period spans the whole test: every byte logged is in it, once.
      const Pw = 3_600_000_000n;
      const from = ((BigInt(Date.now()) * 1000n) / Pw) * Pw;
      const src = nginxLogSource({
        path: own.log,
        routes: [{ pattern: /^\/seg\//, track: 1, kind: 1 }],
        pollMs: 60_000, // read only when the test says
      });
      await src.start(from, Pw);
      let sent = 0;
      const get = async (n: number) => {
        for (let i = 0; i < n; i++) {
          await (await fetch(`${own.url}/seg/${i % 2 === 0 ? 'a' : 'b'}.m4s`)).arrayBuffer();
        }
        sent += n;
      };
      const copy = `${own.log}.1`;
      await get(5);
      await until('5 requests logged', () => linesIn([own.log]) >= 5);
      src.poll(); // read up to here
      await get(7); // logged, not yet read
      await until('12 requests logged', () => linesIn([own.log]) >= 12);
      // logrotate's copytruncate: the file copied, then truncated in place; nginx writes on at
      // the start of the emptied file (it opened its log O_APPEND).
      copyFileSync(own.log, copy);
      truncateSync(own.log, 0);
      await get(12); // more than was read before: the emptied file grows past that offset
      await until('the 12 later requests logged', () => linesIn([copy, own.log]) >= sent);
      const t = await src.take({ start: from, end: from + Pw });
      await src.close();
      // What the two files hold of the requests (not nginx's answer to the test's probe of /).
      const seg = (f: string) =>
        readFileSync(f, 'utf8')
          .split('\n')
          .filter((l) => l !== '')
          .map((l) => JSON.parse(l) as { request_uri: string; bytes_sent: string })
          .filter((l) => l.request_uri.startsWith('/seg/'));
      const all = [...seg(copy), ...seg(own.log)];
      expect(all.length).toBe(sent);
      const want = all.reduce((n, l) => n + BigInt(l.bytes_sent), 0n);
      expect(t?.tracks).toEqual([{ track: 1, kind: 1, direction: 2, bytes: want }]);
      expect([src.truncations, src.copies, src.unreadable]).toEqual([1, 1, 0]);
    } finally {
      await own.stop();
    }
  });

  it('truncated in place with no copy beside it: the open periods are unknown, not short', async () => {
    const dir = tempDir();
    const log = join(dir, 'access.log');
    const T = 1_800_000_000_000_000n;
    const line = (us: bigint, bytes: number) =>
      `${JSON.stringify({ msec: `${us / 1_000_000n}.${String((us % 1_000_000n) / 1000n).padStart(3, '0')}`, request_uri: '/a', status: '200', bytes_sent: String(bytes), request_time: '0.000', remote_addr: '10.0.0.1', http_user_agent: 'u' })}\n`;
    writeFileSync(log, line(T + 10n, 100));
    let now = T + 500_000n;
    const src = nginxLogSource({
      path: log,
      routes: [{ pattern: /^\//, track: 1, kind: 1 }],
      pollMs: 60_000,
      clock: () => now,
    });
    await src.start(T, P);
    appendFileSync(log, line(T + 20n, 200)); // not read: lost with the truncation
    truncateSync(log, 0);
    appendFileSync(log, line(T + 900_000n, 300));
    now = T + 600_000n;
    src.poll(); // sees the truncation within the first period
    now = T + P + 100_000n;
    await expect(src.take({ start: T, end: T + P })).rejects.toThrow(SourceError);
    await expect(src.take({ start: T, end: T + P })).rejects.toThrow(
      /lines may have been lost: .*access\.log was truncated in place and no copy/,
    );
    src.commit({ start: T, end: T + P });
    // The next period is stated; a line of the unknown period read late is not moved into it.
    appendFileSync(log, line(T + 950_000n, 400) + line(T + P + 10n, 500));
    const next = await src.take({ start: T + P, end: T + 2n * P });
    expect(next?.tracks[0]?.bytes).toBe(500n);
    expect(src.dropped).toBe(1);
    await src.close();
  });

  it('a line that names a field twice is unreadable, never counted by one of its values', async () => {
    const dir = tempDir();
    const log = join(dir, 'access.log');
    const T = 1_800_000_000_000_000n;
    const msec = `${T / 1_000_000n}.000`;
    const good = `{"msec":"${msec}","request_uri":"/a","status":"200","bytes_sent":"100"}`;
    const twice = `{"msec":"${msec}","request_uri":"/a","status":"200","bytes_sent":"5","bytes_sent":"900000"}`;
    writeFileSync(log, `${good}\n${twice}\n`);
    const src = nginxLogSource({
      path: log,
      routes: [{ pattern: /^\//, track: 1, kind: 1 }],
      pollMs: 60_000,
    });
    await src.start(T, P);
    expect((await src.take({ start: T, end: T + P }))?.tracks[0]?.bytes).toBe(100n);
    expect(src.unreadable).toBe(1);
    renameSync(log, `${log}.old`);
    await src.close();
  });

  it('a period taken again before it is committed gives the same traffic; a line after it goes on', async () => {
    const dir = tempDir();
    const log = join(dir, 'access.log');
    const T = 1_800_000_000_000_000n;
    const line = (us: bigint, bytes: number) =>
      `${JSON.stringify({ msec: `${us / 1_000_000n}.${String((us % 1_000_000n) / 1000n).padStart(3, '0')}`, request_uri: '/a', status: '200', bytes_sent: String(bytes), request_time: '0.000', remote_addr: '10.0.0.1', http_user_agent: 'u' })}\n`;
    writeFileSync(log, line(T + 10n, 100));
    const src = nginxLogSource({
      path: log,
      routes: [{ pattern: /^\//, track: 1, kind: 1 }],
      pollMs: 60_000,
    });
    await src.start(T, P);
    const span = { start: T, end: T + P };
    expect((await src.take(span))?.tracks[0]?.bytes).toBe(100n);
    appendFileSync(log, line(T + 20n, 7)); // logged after its period was taken
    expect((await src.take(span))?.tracks[0]?.bytes).toBe(100n);
    src.commit(span);
    expect((await src.take({ start: T + P, end: T + 2n * P }))?.tracks[0]?.bytes).toBe(7n);
    renameSync(log, `${log}.old`);
    await src.close();
  });
});
