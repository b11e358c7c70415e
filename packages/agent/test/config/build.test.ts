import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLASS, NO_CAPACITY_LIMIT, NOT_A_CLONE, signPolicy } from '@wai-steering/wire';
import { nodeBackend } from '@wai-steering/wire/node';
import { describe, expect, it } from 'vitest';
import {
  AgentConfigError,
  createHopAgent,
  loadHopConfig,
  parseHopConfig,
  readHopMaterials,
} from '../../src/index.js';
import { base, prom } from '../helpers/config.js';
import { makeRoom, type TestRoom, tempDir } from '../helpers/room.js';

/** The agent a configuration builds, its files (room, key log, key) written beside it. */
function createHopAgentOf(input: Record<string, unknown>) {
  const dir = tempDir();
  makeRoom([['energy/ModelBased', 'live/hop']]).write(dir);
  return createHopAgent(parseHopConfig(input, dir));
}

/** A policy of the room (one pathway, its hop), of the given P and L. */
function signPolicyOf(room: TestRoom, o: { period_us: bigint; lag_us: bigint }): Uint8Array {
  const hop = room.hops[0]!;
  return signPolicy(
    {
      room: room.roomId,
      signer: hop.publicKey,
      period_us: o.period_us,
      window_us: 5n * o.period_us,
      lag_us: o.lag_us,
      basis: 1,
      floor: 0,
      latency_ceiling_ms: 80,
      min_buffer_ms: 6000,
      hysteresis_ppm: 50_000,
      ttl_s: 300,
      min_ttl_s: 10,
      flags: 0,
      initial: 0,
      tiers: [1_000_000n],
      server_uri: 'https://steer.example.com/v1/steer',
      reload_uri: 'https://steer.example.com/v1/steer;reload',
      decision_uri: 'https://steer.example.com/v1/decisions/',
      pathways: [
        {
          id: 'cdn-a',
          base: NOT_A_CLONE,
          host: '',
          params: [],
          top_tier: 0,
          latency_ms: 40,
          capacity: NO_CAPACITY_LIMIT,
          min_share_ppm: 0,
          hops: [{ key: hop.publicKey, place: 1 }],
        },
      ],
    },
    hop.secretKey,
    { backend: nodeBackend },
  );
}

describe('building what hop.yaml describes', () => {
  it('reads YAML, resolves paths from its directory, and builds the agent', () => {
    const dir = tempDir();
    const room = makeRoom([['energy/ModelBased', 'live/hop']]);
    room.write(dir);
    const file = join(dir, 'hop.yaml');
    writeFileSync(
      file,
      [
        'room: room.wrd',
        'key_log: key-log.wkl',
        'key: hop0.jwk',
        'period: 2s',
        'lag: 500ms',
        'servers: [http://127.0.0.1:8080]',
        'spool: spool',
        'energy: { source: model, idle_watts: 35.5, nanojoules_per_byte: 62 }',
        'traffic:',
        '  source: nginx',
        '  log: access.log',
        '  routes:',
        "    - { match: '^/v/(?<tier>[0-7])/', track: 1, segment: 2s }",
      ].join('\n'),
    );
    const c = loadHopConfig(file);
    expect(c.baseDir).toBe(dir);
    expect(c.period).toBe(2_000_000n);
    const agent = createHopAgent(c);
    expect([agent.P, agent.L, agent.class]).toEqual([2_000_000n, 500_000n, CLASS.ModelBased]);
  });

  it('a counter claims only the class its source backs: built, with the class it states', () => {
    // What each may claim: built, with the class it states.
    const cls = (e: Record<string, unknown>) => createHopAgentOf(prom(e)).class;
    expect(cls({ preset: 'node_rapl' })).toBe(CLASS.OnChipCounter);
    expect(cls({ preset: 'node_rapl', class: 'Estimator' })).toBe(CLASS.Estimator);
    expect(cls({ preset: 'kepler' })).toBe(CLASS.Estimator);
    // Kepler's node counter may claim OnChipCounter: each scrape must back it.
    expect(cls({ preset: 'kepler', class: 'OnChipCounter' })).toBe(CLASS.OnChipCounter);
    expect(cls({ preset: 'scaphandre' })).toBe(CLASS.Estimator);
    expect(cls({ metric: 'scaph_host_rapl_psys_microjoules' })).toBe(CLASS.OnChipCounter);
    expect(cls({ metric: 'pdu_outlet_energy_joules_total' })).toBe(CLASS.Estimator);
  });

  it('P and L from the policy, unless the file gives them', () => {
    const dir = tempDir();
    const room = makeRoom([['energy/ModelBased', 'live/hop']]);
    room.write(dir);
    writeFileSync(
      join(dir, 'policy.wsp'),
      signPolicyOf(room, { period_us: 4_000_000n, lag_us: 1_000_000n }),
    );
    const { period: _, ...noPeriod } = base;
    const m = readHopMaterials(parseHopConfig({ ...noPeriod, policy: 'policy.wsp' }, dir));
    expect([m.period, m.lag, m.room.roomId, m.key.publicKey]).toEqual([
      4_000_000n,
      1_000_000n,
      room.roomId,
      room.hops[0]!.publicKey,
    ]);
    const given = readHopMaterials(parseHopConfig({ ...base, policy: 'policy.wsp' }, dir));
    expect([given.period, given.lag]).toEqual([2_000_000n, 1_000_000n]);
    expect(readHopMaterials(parseHopConfig(base, dir)).lag).toBeUndefined();
  });

  it('a file it names that cannot be read, or is not what it should be: one line naming it', () => {
    const dir = tempDir();
    const room = makeRoom([['energy/ModelBased', 'live/hop']]);
    room.write(dir);
    const materials = (more: Record<string, unknown>) => () =>
      readHopMaterials(parseHopConfig({ ...base, ...more }, dir));
    expect(materials({ room: 'nowhere.wrd' })).toThrow(
      new AgentConfigError(`room ${join(dir, 'nowhere.wrd')}: cannot read it (ENOENT)`),
    );
    writeFileSync(join(dir, 'text.jwk'), 'not json');
    expect(materials({ key: 'text.jwk' })).toThrow(
      new RegExp(`^key ${join(dir, 'text.jwk')}: not a JWK: not JSON text \\(.+\\)$`),
    );
    writeFileSync(join(dir, 'twice.jwk'), '{"kty":"OKP","crv":"Ed25519","kty":"EC"}');
    expect(materials({ key: 'twice.jwk' })).toThrow(
      new AgentConfigError(
        `key ${join(dir, 'twice.jwk')}: not a JWK: the name "kty" is given twice in one object`,
      ),
    );
    writeFileSync(join(dir, 'bad.wsp'), 'WSP1');
    expect(materials({ policy: 'bad.wsp' })).toThrow(
      new RegExp(`^policy ${join(dir, 'bad.wsp')}: does not read \\(.+\\)$`),
    );
    expect(materials({ key_log: null })).toThrow(AgentConfigError);
  });

  it('the overrides given win over the file', () => {
    const agent = createHopAgentOf({ ...base, lag: '1s' });
    expect(agent.L).toBe(1_000_000n);
    const dir = tempDir();
    makeRoom([['energy/ModelBased', 'live/hop']]).write(dir);
    const over = createHopAgent(parseHopConfig({ ...base, lag: '1s' }, dir), { lag: 3n });
    expect(over.L).toBe(3n);
  });
});
