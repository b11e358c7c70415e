import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLASS } from '@wai-steering/wire';
import { describe, expect, it } from 'vitest';
import { AgentConfigError, createHopAgent, loadHopConfig, parseHopConfig } from '../src/index.js';
import { makeRoom, tempDir } from './helpers/room.js';

const base = {
  room: 'room.wrd',
  keyLog: 'key-log.wkl',
  key: 'hop0.jwk',
  period: '2s',
  servers: ['http://127.0.0.1:8080'],
  spool: 'spool',
  energy: { source: 'model', idleWatts: 10, nanojoulesPerByte: '1.5' },
};

function refusal(input: unknown): string {
  try {
    parseHopConfig(input, '/tmp');
  } catch (e) {
    expect(e).toBeInstanceOf(AgentConfigError);
    return (e as Error).message;
  }
  throw new Error('accepted');
}

describe('hop.yaml', () => {
  it('names the field that breaks a rule', () => {
    expect(refusal({ ...base, servers: [] })).toMatch(
      /servers: expected at least one steering server/,
    );
    expect(refusal({ ...base, period: '1.5s' })).toMatch(/period: expected the period P/);
    expect(refusal({ ...base, energy: { source: 'prometheus', url: 'http://h/metrics' } })).toMatch(
      /energy: give a preset, or a metric and its unit/,
    );
    expect(refusal({ ...base, energy: { source: 'rapl', zone: 'x' } })).toMatch(
      /energy: unknown field "zone"/,
    );
    expect(
      refusal({
        ...base,
        traffic: { source: 'nginx', log: 'a.log', routes: [{ match: 'x', track: -1 }] },
      }),
    ).toMatch(/traffic\.routes\.0\.track: expected an integer from 0 to 4294967295/);
    const { period: _, ...noPeriod } = base;
    expect(refusal(noPeriod)).toMatch(/period: give the policy/);
    expect(refusal({ ...base, spool: undefined })).toMatch(/spool: missing/);
  });

  it('reads YAML, resolves paths from its directory, and builds the agent', () => {
    const dir = tempDir();
    const room = makeRoom([['energy/ModelBased', 'live/hop']]);
    room.write(dir);
    const file = join(dir, 'hop.yaml');
    writeFileSync(
      file,
      [
        'room: room.wrd',
        'keyLog: key-log.wkl',
        'key: hop0.jwk',
        'period: 2s',
        'lag: 500ms',
        'servers: [http://127.0.0.1:8080]',
        'spool: spool',
        'energy: { source: model, idleWatts: 35.5, nanojoulesPerByte: 62 }',
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

  it('a model of more digits than it holds exactly is refused', () => {
    const dir = tempDir();
    makeRoom([['live/hop']]).write(dir);
    const c = parseHopConfig(
      { ...base, energy: { source: 'model', idleWatts: '1.0000001', nanojoulesPerByte: 1 } },
      dir,
    );
    expect(() => createHopAgent(c)).toThrow(
      /energy\.idleWatts: 1\.0000001 has more than 6 decimals/,
    );
  });
});
