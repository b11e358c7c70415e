// The decision log of a server: its origin (the public URL's, kept by the store once the log
// begins), its key (the steering key), and its pruning with the decisions.
import { ed25519Signer, formatVerifierKey, parseVerifierKey } from '@wai-steering/tlog';
import { nodeBackend } from '@wai-steering/wire/node';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/errors.js';
import { DecisionLog, defaultLogOrigin } from '../../src/log/log.js';
import { SqliteStore } from '../../src/store/sqlite/index.js';
import { POLICY_LAG_US } from '../../src/store/store.js';
import { integrateAll } from '../helpers/log.js';
import { decisionAt } from '../store-contract.js';

const stores: SqliteStore[] = [];
const logs: DecisionLog[] = [];
afterEach(async () => {
  for (const l of logs.splice(0)) await l.stop();
  for (const s of stores.splice(0)) await s.close();
});

const secretKey = new Uint8Array(32).fill(9);
const listen = { host: '127.0.0.1', port: 8080 };
const retention = { records: 60_000, decisions: 60_000, sweep: 60_000 };

function open(
  store: SqliteStore,
  config: Partial<Parameters<typeof DecisionLog.open>[0]['config']> = {},
): Promise<DecisionLog> {
  return DecisionLog.open({
    store,
    config: { publicUrl: null, listen, retention, ...config },
    secretKey,
    backend: nodeBackend,
    clock: () => BigInt(Date.now()) * 1000n,
  }).then((l) => {
    logs.push(l);
    return l;
  });
}

function store(): SqliteStore {
  const s = new SqliteStore(':memory:');
  stores.push(s);
  return s;
}

describe('the log’s origin', () => {
  it('is the public URL without its scheme, then /log, else the listen address', () => {
    expect(defaultLogOrigin({ publicUrl: null, listen })).toBe('127.0.0.1:8080/log');
    expect(defaultLogOrigin({ publicUrl: 'https://steer.example.com', listen })).toBe(
      'steer.example.com/log',
    );
    expect(defaultLogOrigin({ publicUrl: 'https://steer.example.com:8443/a/b/', listen })).toBe(
      'steer.example.com:8443/a/b/log',
    );
    expect(defaultLogOrigin({ publicUrl: 'http://steer.example.com:80/', listen })).toBe(
      'steer.example.com/log',
    );
    expect(defaultLogOrigin({ publicUrl: null, listen: { host: '::1', port: 9 } })).toBe(
      '[::1]:9/log',
    );
  });

  it('is fixed when the log begins: the store’s is kept, a configured other one refused', async () => {
    const s = store();
    const first = await open(s);
    expect(first.origin).toBe('127.0.0.1:8080/log');
    // Another listen port, no log.origin: the store's origin stays.
    const second = await open(s, { listen: { host: '127.0.0.1', port: 9090 } });
    expect(second.origin).toBe('127.0.0.1:8080/log');
    const refused = open(s, {
      log: { origin: 'other.example/log', interval: 1000, maxDelay: 2000, witnesses: [] },
    });
    await expect(refused).rejects.toThrow(ConfigError);
    await expect(refused).rejects.toThrow(
      "log.origin: the store's decision log is 127.0.0.1:8080/log, not other.example/log",
    );
    // A configured origin on a new store is its origin.
    const third = await open(store(), {
      log: { origin: 'steer.example.com/decisions', interval: 1000, maxDelay: 2000, witnesses: [] },
    });
    expect(third.origin).toBe('steer.example.com/decisions');
  });

  it('signs with the steering key under the origin: the vkey verifiers hold', async () => {
    const log = await open(store());
    const expected = ed25519Signer('127.0.0.1:8080/log', secretKey, nodeBackend).verifierKey;
    expect(log.verifierKey).toEqual(expected);
    const read = parseVerifierKey(log.vkey);
    expect(read.ok && formatVerifierKey(read.value)).toBe(log.vkey);
  });
});

describe('the log’s pruning', () => {
  it('goes with the decisions’ retention, counted back from the latest checkpoint, an hour more', async () => {
    const s = store();
    const log = await open(s, { retention: { ...retention, decisions: 1000 } });
    // Checkpoints issued a second apart, an hour later, and seconds after that.
    const H = POLICY_LAG_US;
    const T = 1_800_000_000_000_000n;
    const signing = {
      origin: log.origin,
      signer: ed25519Signer(log.origin, secretKey, nodeBackend),
    };
    const issuedAt = [T, T + 1_000_000n, T + H, T + H + 2_500_000n, T + H + 3_000_000n];
    let n = 0;
    for (const at of issuedAt) {
      await s.commit({
        records: [],
        decisions: Array.from({ length: 10 }, () => decisionAt(BigInt(n), n++, [[]])),
      });
      await integrateAll(s, signing, { issued: () => at });
    }
    // Only the lease's holder prunes.
    expect(await log.prune()).toBeUndefined();
    await log.integrator.run();
    expect(log.integrator.holding).toBe(true);
    // Kept: issued at or after the latest − 1 s − 1 h = T + 2 s: the last three.
    const pruned = await log.prune();
    expect(pruned).toEqual({ minIndex: 20n, entries: 0, checkpoints: 2 });
    expect((await s.logCheckpoints(0n, 10)).map((c) => c.size)).toEqual([30n, 40n, 50n]);
  });
});
