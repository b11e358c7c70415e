// What a server serves under, read from its configuration's files and checked before it
// listens: each problem names the field and the fix.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/errors.js';
import {
  checkMaterials,
  liveOptions,
  readMaterials,
  readSecret,
} from '../../src/start/materials.js';
import { demoRoom } from '../helpers/setup.js';

let cleanup: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanup) c();
  cleanup = [];
});

function errorOf(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('readMaterials', () => {
  it('checks the room, the policy and the key at start', () => {
    const { config, setup, remove } = demoRoom();
    cleanup.push(remove);
    expect(readMaterials(config).warnings).toEqual([]);
    expect(errorOf(() => readMaterials({ ...config, keyLog: null }))).toMatch(
      /^key_log: .*key_log_missing/,
    );
    expect(errorOf(() => readMaterials({ ...config, policy: config.room }))).toMatch(/^policy: /);
    // A policy YAML where its compiled WSP1 belongs: how to compile it.
    writeFileSync(join(setup.dir, 'policy.yaml'), 'room: room.wrd\nperiod: 2s\n');
    expect(
      errorOf(() => readMaterials({ ...config, policy: join(setup.dir, 'policy.yaml') })),
    ).toMatch(
      /^policy: .*policy\.yaml is a policy config, not a signed policy \(WSP1\): compile it with `wai-steer policy compile /,
    );
    // A key log file that is not a key log: the file named, what is wrong said once.
    writeFileSync(join(setup.dir, 'garbage.wkl'), 'not a key log at all');
    const garbage = errorOf(() =>
      readMaterials({ ...config, keyLog: join(setup.dir, 'garbage.wkl') }),
    );
    expect(garbage).toMatch(/^key_log: .*garbage\.wkl is not a key log head \(WKL1\): /);
    expect(garbage).not.toMatch(/room does not verify/);
    expect(garbage.match(/malformed/g)?.length ?? 0).toBeLessThanOrEqual(1);
    // A hop's key is not a steering key.
    const hopKey = join(setup.dir, 'keys', 'cdn-a-edge.jwk');
    expect(errorOf(() => readMaterials({ ...config, signingKey: hopKey }))).toMatch(
      /^signing_key: .*signer_not_authorised/,
    );
    writeFileSync(
      join(setup.dir, 'pub.jwk'),
      JSON.stringify({ kty: 'OKP', crv: 'Ed25519', x: 'AAAA' }),
    );
    expect(
      errorOf(() => readMaterials({ ...config, signingKey: join(setup.dir, 'pub.jwk') })),
    ).toMatch(/^signing_key: /);
  });
});

describe('checkMaterials', () => {
  it('names every problem at once: a missing key log, a policy config, a public steering key', () => {
    const { config, setup, remove } = demoRoom();
    cleanup.push(remove);
    writeFileSync(join(setup.dir, 'policy.yaml'), 'room: room.wrd\nperiod: 2s\n');
    writeFileSync(
      join(setup.dir, 'pub.jwk'),
      JSON.stringify({ kty: 'OKP', crv: 'Ed25519', x: 'AAAA' }),
    );
    const checked = checkMaterials({
      ...config,
      keyLog: join(setup.dir, 'nowhere.wkl'),
      policy: join(setup.dir, 'policy.yaml'),
      signingKey: join(setup.dir, 'pub.jwk'),
    });
    expect(checked.materials).toBeUndefined();
    expect(checked.issues.map((i) => i.split(':')[0])).toEqual([
      'key_log',
      'policy',
      'signing_key',
    ]);
    expect(checked.issues[0]).toMatch(/^key_log: cannot read .*nowhere\.wkl: no such file/);
    expect(checked.issues[1]).toMatch(/is a policy config, not a signed policy/);
    // And readMaterials throws them all, in one ConfigError.
    let error: ConfigError | undefined;
    try {
      readMaterials({ ...config, keyLog: join(setup.dir, 'nowhere.wkl'), policy: config.room });
    } catch (e) {
      error = e as ConfigError;
    }
    expect(error?.issues.map((i) => i.split(':')[0])).toEqual(['key_log', 'policy']);
    expect(checkMaterials(config).issues).toEqual([]);
    expect(checkMaterials(config).materials?.policy.pathways.map((p) => p.id)).toEqual(
      setup.policy.pathways.map((p) => p.id),
    );
  });
});

describe('liveOptions', () => {
  it('maps the live pathways by ID, and names one the policy lacks', () => {
    const { config, setup, remove } = demoRoom();
    cleanup.push(remove);
    const live = {
      pathways: ['cdn-b'],
      capacityThresholdPpm: 5,
      latencyThresholdMs: 7,
      maxAhead: 2000,
    };
    expect(liveOptions({ ...config, live: null }, setup.policy)).toBeUndefined();
    expect(liveOptions({ ...config, live }, setup.policy)).toEqual({
      pathways: new Set([1]),
      capacityThresholdPpm: 5,
      latencyThresholdMs: 7,
      maxAheadUs: 2_000_000n,
    });
    expect(
      liveOptions({ ...config, live: { ...live, pathways: 'all' } }, setup.policy)?.pathways,
    ).toEqual(new Set([0, 1, 2]));
    expect(
      errorOf(() =>
        liveOptions({ ...config, live: { ...live, pathways: ['cdn-z'] } }, setup.policy),
      ),
    ).toBe(
      'live.pathways: "cdn-z" is no pathway of the policy (its pathways: cdn-a, cdn-b, cdn-b-east)',
    );
  });
});

describe('readSecret', () => {
  it('takes a file of 16 bytes or more, and names a shorter one', () => {
    const { setup, remove } = demoRoom();
    cleanup.push(remove);
    writeFileSync(join(setup.dir, 'short'), 'x'.repeat(15));
    writeFileSync(join(setup.dir, 'long'), 'x'.repeat(16));
    expect(readSecret(join(setup.dir, 'long'))).toHaveLength(16);
    expect(errorOf(() => readSecret(join(setup.dir, 'short')))).toMatch(
      /^sessions\.secret: .*short holds 15 bytes; a session secret is at least 16 random bytes$/,
    );
  });
});
