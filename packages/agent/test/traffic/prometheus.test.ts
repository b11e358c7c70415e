import { join } from 'node:path';
import { CLASS } from '@wai-steering/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HopAgent, modelSource, prometheusTrafficSource } from '../../src/index.js';
import { type RunningNodeExporter, startNodeExporter } from '../helpers/node-exporter.js';
import { ManualClock, makeRoom, tempDir } from '../helpers/room.js';
import { TestSteeringServer } from '../helpers/steering.js';

let exporter: RunningNodeExporter;
beforeAll(async () => {
  exporter = await startNodeExporter();
});
afterAll(async () => {
  await exporter?.stop();
});

const P = 1_000_000n;
const B0 = 1_800_000_000_000_000n;

const exposition = (bytes: bigint, sessions: number) =>
  [
    '# TYPE edge_bytes_sent_total counter',
    `edge_bytes_sent_total{dir="out",vhost="live"} ${bytes}`,
    `edge_bytes_sent_total{dir="in",vhost="live"} 7`,
    '# TYPE edge_sessions gauge',
    `edge_sessions ${sessions}`,
    '',
  ].join('\n');

describe('Prometheus byte counters (Debian node_exporter, textfile collector)', () => {
  it('state one track of the counter’s increase and the sessions gauge', async () => {
    const room = makeRoom([['energy/ModelBased', 'live/hop']]);
    const server = new TestSteeringServer(room.ctx);
    await server.up(0);
    const clock = new ManualClock(B0 + P / 2n);
    const agent = new HopAgent({
      room: room.ctx,
      key: room.hops[0]!,
      period: P,
      energy: modelSource({ idleWatts: 0, nanojoulesPerByte: 1000 }),
      traffic: prometheusTrafficSource({
        url: exporter.url,
        bytes: { metric: 'edge_bytes_sent_total', labels: { dir: 'out' } },
        sessions: { metric: 'edge_sessions' },
        track: 3,
        kind: 1,
      }),
      servers: [server.url],
      spool: join(tempDir(), 'spool'),
      clock: clock.now,
      monotonic: clock.now,
      cutDelay: 0n,
      manual: true,
      log: () => {},
    });
    // The byte counts pass 1e6 (node_exporter writes 1.2345e+06) and the counter resets.
    const steps: [bigint, number][] = [
      [1_000n, 3],
      [999_999n, 5],
      [1_234_500n, 8],
      [40n, 2],
    ];
    exporter.write(exposition(0n, 0));
    await agent.start(); // a model: the current period is its first, traffic unknown at its start
    for (let k = 0; k < steps.length; k++) {
      exporter.write(exposition(...steps[k]!));
      clock.set(B0 + BigInt(k + 1) * P + 1000n);
      await agent.poll();
    }
    expect(await agent.delivered()).toBe(true);
    await agent.stop();
    await server.down();
    const got = server.records.map((r) => [
      (r.start - B0) / P,
      r.class,
      r.sessions,
      r.tracks,
      r.joules,
    ]);
    const track = (bytes: bigint) => [{ track: 3, kind: 1, direction: 2, bytes }];
    expect(got).toEqual([
      // No reading of the counter at its start: its traffic is unknown, and so is the model's
      // energy (the unmetered marker, no track), rather than a model of no bytes.
      [0n, 0, 0, [], 0n],
      [1n, CLASS.ModelBased, 5, track(998_999n), 998_999n],
      [2n, CLASS.ModelBased, 8, track(234_501n), 234_501n],
      [3n, CLASS.ModelBased, 2, track(40n), 40n],
    ]);
  });
});
