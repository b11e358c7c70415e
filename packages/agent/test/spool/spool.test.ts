import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { signHopRecord } from '@wai-steering/wire';
import { nodeBackend } from '@wai-steering/wire/node';
import { describe, expect, it } from 'vitest';
import {
  metricsText,
  modelSource,
  Spool,
  SpoolWriteError,
  serverId,
  spoolProblem,
} from '../../src/index.js';
import { B0, P, recordOf, rig, spans, unwritable, upServer } from '../helpers/rig.js';
import { ManualClock, makeRoom, type TestRoom, tempDir } from '../helpers/room.js';

const SERVERS = ['http://127.0.0.1:9'];

const itemOf = (room: TestRoom, k: bigint) => recordOf(room, k).item;

const files = (dir: string) => readdirSync(dir).sort();

describe('what the spool holds at start', () => {
  it('moves a cursor.json that does not read to refused/, with its reason', () => {
    const dir = join(tempDir(), 'spool');
    mkdirSync(dir);
    writeFileSync(join(dir, 'cursor.json'), '{"end": 12, "reading": {"values": {"a": 1}}}');
    const refused: string[] = [];
    const spool = new Spool(dir, SERVERS, { onRefused: (f, why) => refused.push(`${f}: ${why}`) });
    expect(refused).toEqual([
      `${join(dir, 'cursor.json')}: cursor.json states no end (µs, a decimal string)`,
    ]);
    expect(spool.cursor()).toBeUndefined();
    expect(readFileSync(join(dir, 'refused', 'cursor.json.reason'), 'utf8')).toBe(
      'spool cursor.json states no end (µs, a decimal string)\n',
    );
    expect(spool.refusedFiles).toBe(1);
  });

  it('a spool file that does not read goes to refused/, logged once and counted; the rest is sent', async () => {
    const room = makeRoom([
      ['energy/ModelBased', 'live/hop'],
      ['energy/ModelBased', 'live/hop'],
    ]);
    const server = await upServer(room);
    const spool = join(tempDir(), 'spool');
    const clock = new ManualClock(B0 + 1000n);
    const energy = modelSource({ idleWatts: 2, nanojoulesPerByte: 0 });
    await server.down();
    const a = rig(room, server, energy, { spool, clock });
    await a.agent.start();
    await a.at(1n);
    await a.at(2n);
    await a.agent.stop();
    const records = join(spool, 'records');
    const [first, second] = readdirSync(records).sort();
    // The second record cut short; files that are not this hop's records beside them.
    writeFileSync(join(records, second!), readFileSync(join(records, second!)).subarray(0, 100));
    const other = signHopRecord(
      {
        room: room.roomId,
        hop: room.hops[1]!.publicKey,
        start: B0 + 7n * P,
        end: B0 + 8n * P,
        sessions: 0,
        class: 0,
        joules: 0n,
        subscriber_us: new Array<bigint>(8).fill(0n),
        tracks: [],
      },
      room.hops[1]!.secretKey,
      { backend: nodeBackend },
    );
    const otherName = `${String(B0 + 7n * P).padStart(20, '0')}-${nodeBackend.sha256(other.subarray(0, other.length - 64)).reduce((h, b) => h + b.toString(16).padStart(2, '0'), '')}.wmh`;
    writeFileSync(join(records, otherName), other);
    writeFileSync(join(records, 'notes.txt'), 'hello');
    // In done/, a name that sorts last and would put the cursor past the end of time.
    const future = `99999999999999999999-${'ab'.repeat(32)}.wmh`;
    writeFileSync(join(spool, 'done', future), new Uint8Array(300).fill(255));
    writeFileSync(join(spool, 'cursor.json'), '{"end": "18446744073709551615"');
    await server.up();
    const b = rig(room, server, energy, { spool, clock });
    clock.set(B0 + 2n * P + 1000n);
    await b.agent.start();
    await b.at(3n);
    expect(await b.agent.delivered()).toBe(true);
    // The damaged record's span is cut again (the cursor follows the records that read).
    expect(spans(server.records)).toEqual([0n, 1n, 2n].map((k) => [k, k + 1n]));
    expect(server.received.length).toBe(3);
    const said = b.logs.filter((l) => l.msg === 'spool file does not read: moved to refused/');
    expect(
      said.map((l) => [String(l.file).split('/').slice(-2).join('/'), l.reason]).sort(),
    ).toEqual(
      [
        [`records/${second}`, 'does not read as a per-hop record: truncated at joules'],
        [
          `records/${otherName}`,
          `a record of another hop (${Buffer.from(room.hops[1]!.publicKey).toString('hex')})`,
        ],
        ['records/notes.txt', 'its name is not <start>-<digest>.wmh'],
        [`done/${future}`, 'does not read as a per-hop record: malformed at magic'],
        ['spool/cursor.json', 'cursor.json is not JSON'],
      ].sort(),
    );
    const refused = readdirSync(join(spool, 'refused'));
    for (const n of [second!, otherName, 'notes.txt', future, 'cursor.json']) {
      expect(refused).toContain(n);
      expect(readFileSync(join(spool, 'refused', `${n}.reason`), 'utf8')).toMatch(/^spool /);
    }
    expect(existsSync(join(records, first!))).toBe(false); // taken: done
    expect(metricsText(b.agent)).toContain('\nwai_agent_spool_files_refused_total 5\n');
  });

  it('removes the unfinished writes of a crash, and the records that read stay to be sent', () => {
    const room = makeRoom([['energy/ModelBased', 'live/hop']]);
    const dir = join(tempDir(), 'spool');
    const first = new Spool(dir, SERVERS, { room: room.roomId, hop: room.hops[0]!.publicKey });
    const item = itemOf(room, 0n);
    first.add(item, undefined);
    writeFileSync(join(dir, 'records', `.${itemOf(room, 1n).name}.tmp`), 'half');
    writeFileSync(join(dir, '.cursor.json.tmp'), '{"en');
    const spool = new Spool(dir, SERVERS, { room: room.roomId, hop: room.hops[0]!.publicKey });
    expect([files(join(dir, 'records')), files(dir)]).toEqual([
      [item.name],
      ['cursor.json', 'done', 'records', 'refused', 'taken'],
    ]);
    expect(spool.pending(SERVERS[0]!)).toEqual([item]);
    expect(spool.refusedFiles).toBe(0);
  });
});

describe('the states of a record', () => {
  const servers = ['http://127.0.0.1:1', 'http://127.0.0.1:2'];
  const [one, two] = servers as [string, string];

  it('spooled: pending for every server, in the order of periods, until each took it; then done', () => {
    const room = makeRoom([['energy/ModelBased', 'live/hop']]);
    const dir = join(tempDir(), 'spool');
    const spool = new Spool(dir, servers);
    const [a, b] = [1n, 0n].map((k) => itemOf(room, k)) as [
      ReturnType<typeof itemOf>,
      ReturnType<typeof itemOf>,
    ];
    expect(spool.add(a, undefined)).toEqual({ cursorWritten: true });
    spool.add(b, { values: { z: '5' } });
    expect(spool.pending(one)).toEqual([b, a]);
    spool.markTaken(one, b.name);
    expect([spool.pending(one), spool.pending(two)]).toEqual([[a], [b, a]]);
    expect(existsSync(join(dir, 'taken', serverId(one), b.name))).toBe(true);
    spool.markTaken(two, b.name);
    expect([spool.pending(one), spool.pending(two)]).toEqual([[a], [a]]);
    expect([files(join(dir, 'records')), spool.doneNames()]).toEqual([[a.name], [b.name]]);
    // The marks of a record done are removed.
    expect(existsSync(join(dir, 'taken', serverId(one), b.name))).toBe(false);
    expect(existsSync(join(dir, 'taken', serverId(two), b.name))).toBe(false);
  });

  it('refused by a server: a copy and the reason kept in refused/; done once every server settled it', () => {
    const room = makeRoom([['energy/ModelBased', 'live/hop']]);
    const dir = join(tempDir(), 'spool');
    const spool = new Spool(dir, servers);
    const a = itemOf(room, 0n);
    spool.add(a, undefined);
    spool.markRefused(two, a.name, a.bytes, 'wrong_room {"field":"room"}');
    expect(spool.refusedNames()).toEqual([a.name]);
    expect(readFileSync(join(dir, 'refused', `${a.name}.reason`), 'utf8')).toBe(
      `${two} wrong_room {"field":"room"}\n`,
    );
    expect([spool.pending(one), spool.pending(two)]).toEqual([[a], []]);
    spool.markTaken(one, a.name);
    expect(spool.doneNames()).toEqual([a.name]);
  });

  it('done: the last `keep` kept', () => {
    const room = makeRoom([['energy/ModelBased', 'live/hop']]);
    const spool = new Spool(join(tempDir(), 'spool'), [one], { keep: 2 });
    const items = [0n, 1n, 2n, 3n].map((k) => itemOf(room, k));
    for (const i of items) {
      spool.add(i, undefined);
      spool.markTaken(one, i.name);
    }
    expect(spool.doneNames()).toEqual([items[2]!.name, items[3]!.name]);
  });
});

describe('the cursor', () => {
  it("the later of cursor.json and the newest record kept: a crash between the record's write and the cursor's", () => {
    const room = makeRoom([['energy/ModelBased', 'live/hop']]);
    const dir = join(tempDir(), 'spool');
    const spool = new Spool(dir, SERVERS);
    const reading = { values: { z: '5' } };
    spool.add(itemOf(room, 0n), reading);
    expect(spool.cursor()).toEqual({ end: B0 + P, reading });
    // The record of period 1 written, its cursor not.
    writeFileSync(join(dir, 'records', itemOf(room, 1n).name), itemOf(room, 1n).bytes);
    expect(new Spool(dir, SERVERS).cursor()).toEqual({ end: B0 + 2n * P });
    // Records done, and refused by a server, count too.
    const two = new Spool(dir, SERVERS);
    two.markTaken(SERVERS[0]!, itemOf(room, 0n).name);
    two.markTaken(SERVERS[0]!, itemOf(room, 1n).name);
    const three = itemOf(room, 2n);
    two.markRefused(SERVERS[0]!, three.name, three.bytes, 'bad_signature');
    expect(new Spool(dir, SERVERS).cursor()).toEqual({ end: B0 + 3n * P });
  });

  it('a record written, its cursor not: the record is durable', () => {
    const room = makeRoom([['energy/ModelBased', 'live/hop']]);
    const dir = join(tempDir(), 'spool');
    const spool = new Spool(dir, SERVERS);
    mkdirSync(join(dir, 'cursor.json')); // a directory where the cursor belongs
    const item = itemOf(room, 0n);
    expect(spool.add(item, undefined)).toEqual({ cursorWritten: false });
    expect(spool.pending(SERVERS[0]!)).toEqual([item]);
    expect(spool.cursor()).toEqual({ end: B0 + P });
    expect(files(dir).filter((n) => n.startsWith('.'))).toEqual([]);
  });
});

describe('a spool that cannot be written later', () => {
  it('a record: a SpoolWriteError naming the path and the fix, with the code; nothing left', () => {
    const room = makeRoom([['energy/ModelBased', 'live/hop']]);
    const dir = join(tempDir(), 'spool');
    const spool = new Spool(dir, SERVERS);
    const u = unwritable(dir);
    const err = (() => {
      try {
        spool.add(itemOf(room, 0n), undefined);
      } catch (e) {
        return e;
      }
    })();
    u.restore();
    expect(err).toBeInstanceOf(SpoolWriteError);
    expect([(err as SpoolWriteError).code, (err as Error).message]).toEqual([
      u.code,
      spoolProblem(join(dir, 'records'), u.code),
    ]);
    expect([files(join(dir, 'records')), spool.pending(SERVERS[0]!)]).toEqual([[], []]);
  });
});
