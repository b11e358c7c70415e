// The demo room: files a server starts from as an operator's, keys only its owner reads.
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/read.js';
import { setupDemo } from '../../src/demo/setup.js';
import { readMaterials } from '../../src/start/materials.js';
import { tempDir } from '../helpers/setup.js';

const cleanup: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanup.splice(0)) c();
});

describe('setupDemo', () => {
  it('writes a room, key log, policy, keys and config that the server reads as an operator’s', () => {
    const { dir, remove } = tempDir();
    cleanup.push(remove);
    const setup = setupDemo(dir, { port: 9123, periodMs: 500, budgets: false, capacity: 7 });
    const config = loadConfig(setup.configPath);
    expect(config.listen).toEqual({ host: '127.0.0.1', port: 9123 });
    expect(config.budget.requests.rate).toBe(0);
    const m = readMaterials(config);
    expect(m.warnings).toEqual([]);
    expect(m.policy.period_us).toBe(500_000n);
    expect(m.policy.pathways.map((p) => p.id)).toEqual(['cdn-a', 'cdn-b', 'cdn-b-east']);
    expect(m.policy.pathways[1]!.capacity).toBe(7);
    expect(m.policy.server_uri).toBe(`${setup.base}/steer`);
    expect(setup.hops).toHaveLength(6);
    expect(statSync(join(dir, 'keys', 'authority.jwk')).mode & 0o777).toBe(0o600);
    // Written again: a fresh room, the old store gone.
    const again = setupDemo(dir, { port: 9123 });
    expect(again.roomId).not.toEqual(setup.roomId);
  });
});
