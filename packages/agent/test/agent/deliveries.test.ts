import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLASS } from '@wai-steering/wire';
import { describe, expect, it } from 'vitest';
import { Deliveries } from '../../src/agent/deliveries.js';
import { emptyTraffic, modelSource, Spool } from '../../src/index.js';
import { B0, onCleanup, P, recordOf, rig, spans, upServer } from '../helpers/rig.js';
import { freePort, ManualClock, makeRoom, tempDir } from '../helpers/room.js';

describe('delivery', () => {
  it('with the server down for several periods, every record arrives once, in period order', async () => {
    const room = makeRoom([['energy/ModelBased', 'live/hop']]);
    const server = await upServer(room);
    const r = rig(room, server, modelSource({ idleWatts: '35.5', nanojoulesPerByte: '62' }), {
      // A period's line waits for its record's receipt up to min(L, 5 s): a long lag, so that
      // on a busy machine the line says where the record went rather than that it was late.
      lag: 60_000_000n,
    });
    await r.agent.start();
    await r.at(1n);
    expect(await r.agent.delivered()).toBe(true);
    await server.down();
    for (const k of [2n, 3n, 4n, 5n]) await r.at(k);
    expect(r.agent.servers[0]!.pending).toBe(4);
    await server.up();
    await r.at(6n);
    expect(await r.agent.delivered()).toBe(true);
    expect(spans(server.records)).toEqual([0n, 1n, 2n, 3n, 4n, 5n].map((k) => [k, k + 1n]));
    expect(server.received.every((x) => x.status === 201)).toBe(true);
    // 35.5 W over 1 s, no traffic: 35 500 000 µJ each.
    expect(
      server.records.every((x) => x.class === CLASS.ModelBased && x.joules === 35_500_000n),
    ).toBe(true);
    const warn = r.logs.filter((l) => l.msg === 'server not taking records; retrying with backoff');
    expect(warn.length).toBe(1);
    const periods = r.logs.filter((l) => l.msg === 'period');
    expect(periods.length).toBe(6);
    expect(periods[0]).toMatchObject({
      joules_uj: '35500000',
      bytes: '0',
      sessions: 0,
      sent: [server.url],
    });
    // The span in the one form of human output, its exact µs beside it; the durations readable.
    const iso = (us: bigint) => new Date(Number(us / 1000n)).toISOString();
    expect(periods[0]).toMatchObject({
      start: iso(B0),
      start_us: String(B0),
      end: iso(B0 + P),
      end_us: String(B0 + P),
    });
    expect(r.logs.find((l) => l.msg === 'started')).toMatchObject({
      period: '1 s',
      period_us: '1000000',
      lag: '1 min',
      lag_us: '60000000',
    });
  });

  it('moves a record a server refuses to refused/ with its reason, logged once', async () => {
    const room = makeRoom([['energy/ModelBased', 'live/hop']]);
    const other = makeRoom([['live/hop']]); // another room: its server refuses wrong_room
    const refusing = await upServer(other);
    const server = await upServer(room);
    const spool = join(tempDir(), 'spool');
    const r = rig(room, server, modelSource({ idleWatts: 1, nanojoulesPerByte: 0 }), {
      spool,
      servers: [server.url, refusing.url],
    });
    await r.agent.start();
    await r.at(1n);
    await r.at(2n);
    expect(await r.agent.delivered()).toBe(true);
    expect(spans(server.records)).toEqual([
      [0n, 1n],
      [1n, 2n],
    ]);
    expect(refusing.refused).toEqual(['wrong_room', 'wrong_room']);
    const refused = readdirSync(join(spool, 'refused')).sort();
    expect(refused.filter((n) => n.endsWith('.wmh')).length).toBe(2);
    const reason = readFileSync(
      join(spool, 'refused', refused.find((n) => n.endsWith('.reason'))!),
      'utf8',
    );
    expect(reason).toContain(`${refusing.url} wrong_room`);
    expect(r.logs.filter((l) => l.msg === 'record refused').length).toBe(2);
    // Every server settled them: done.
    expect(readdirSync(join(spool, 'done')).length).toBe(2);
    expect(readdirSync(join(spool, 'records')).filter((n) => n.endsWith('.wmh'))).toEqual([]);
  });

  it('resends at restart what the spool holds, once, in period order', async () => {
    const room = makeRoom([['energy/ModelBased', 'live/hop']]);
    const server = await upServer(room);
    await server.down();
    const spool = join(tempDir(), 'spool');
    const clock = new ManualClock(B0 + 1000n);
    const energy = modelSource({ idleWatts: 2, nanojoulesPerByte: 0 });
    const a = rig(room, server, energy, { spool, clock });
    await a.agent.start();
    await a.at(1n);
    await a.at(2n);
    await a.agent.stop();
    expect(readdirSync(join(spool, 'records')).filter((n) => n.endsWith('.wmh')).length).toBe(2);
    await server.up();
    const b = rig(room, server, energy, { spool, clock });
    await b.agent.start();
    expect(await b.agent.delivered()).toBe(true);
    expect(b.logs.some((l) => l.msg === 'resending the spool' && l.records === 2)).toBe(true);
    await b.at(3n);
    expect(await b.agent.delivered()).toBe(true);
    expect(spans(server.records)).toEqual([
      [0n, 1n],
      [1n, 2n],
      [2n, 3n],
    ]);
    expect(server.received.length).toBe(3);
  });
});

/** Deliveries logging into an array; `line()` resolves with the next period line. */
function deliveries(servers: readonly string[], lag: bigint, dryRun = false) {
  const lines: Record<string, unknown>[] = [];
  const waiting: ((l: Record<string, unknown>) => void)[] = [];
  const d = new Deliveries({
    servers,
    lag,
    dryRun,
    backoff: { initialMs: 10, maxMs: 100 },
    log: (l) => {
      lines.push(l);
      if (l.msg === 'period') waiting.shift()?.(l);
    },
  });
  onCleanup(() => d.stop());
  const line = () => new Promise<Record<string, unknown>>((r) => waiting.push(r));
  return { d, lines, line };
}

describe("the period's line", () => {
  it('waits until every server settled the record, and names where it went', async () => {
    const room = makeRoom([['energy/ModelBased', 'live/hop']]);
    const server = await upServer(room);
    const refusing = await upServer(makeRoom([['live/hop']]));
    const servers = [server.url, refusing.url];
    const { d, line } = deliveries(servers, 60_000_000n);
    d.open(new Spool(join(tempDir(), 'spool'), servers));
    const { rec, item } = recordOf(room, 0n);
    d.push(item);
    const next = line();
    d.logPeriod(rec, emptyTraffic());
    expect(await next).toMatchObject({
      msg: 'period',
      class: CLASS.ModelBased,
      joules_uj: '1000000',
      digest: rec.digest,
      sent: [server.url],
      pending: [],
      refused: [refusing.url],
    });
    expect(d.pending()).toEqual({ [server.url]: 0, [refusing.url]: 0 });
  });

  it('a server that does not answer: written after the lag, the record pending there', async () => {
    const room = makeRoom([['energy/ModelBased', 'live/hop']]);
    const down = `http://127.0.0.1:${await freePort()}`; // nothing listens there
    const { d, line } = deliveries([down], 200_000n); // L = 200 ms
    d.open(new Spool(join(tempDir(), 'spool'), [down]));
    const { rec, item } = recordOf(room, 0n);
    d.push(item);
    const next = line();
    d.logPeriod(rec, emptyTraffic());
    expect(await next).toMatchObject({ sent: [], pending: [down], refused: [] });
    expect(d.pending()).toEqual({ [down]: 1 });
    expect(await d.delivered(50)).toBe(false);
  });

  it('in a dry run: no courier; the line is written at once and says so', async () => {
    const room = makeRoom([['energy/ModelBased', 'live/hop']]);
    const { d, line } = deliveries(['http://127.0.0.1:9'], 60_000_000n, true);
    const { rec } = recordOf(room, 0n);
    const next = line();
    d.logPeriod(rec, emptyTraffic());
    expect(await next).toMatchObject({ sent: [], pending: [], refused: [], dryRun: true });
    expect(d.servers).toEqual([]);
    expect(await d.delivered(0)).toBe(true);
  });

  it('resends what the spool holds, said once for each server with records to send', async () => {
    const room = makeRoom([['energy/ModelBased', 'live/hop']]);
    const spoolDir = join(tempDir(), 'spool');
    const servers = ['http://127.0.0.1:9', 'http://127.0.0.1:10'];
    const spool = new Spool(spoolDir, servers);
    for (const k of [0n, 1n]) spool.add(recordOf(room, k).item, undefined);
    spool.markTaken(servers[1]!, recordOf(room, 0n).item.name);
    const { d, lines } = deliveries(servers, 60_000_000n);
    d.open(spool);
    expect(lines.filter((l) => l.msg === 'resending the spool')).toEqual([
      { msg: 'resending the spool', server: servers[0], records: 2 },
      { msg: 'resending the spool', server: servers[1], records: 1 },
    ]);
  });
});
