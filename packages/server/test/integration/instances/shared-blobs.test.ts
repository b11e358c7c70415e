/**
 * Policies, room descriptors and key log heads across instances on one PostgreSQL: any instance
 * serves them by digest, and a key log head one instance reads is adopted by the others.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { digestOf, jwkToKeyPair, readKeyLog, signKeyLog, toHex, unwrap } from '@wai-steering/wire';
import { nodeBackend } from '@wai-steering/wire/node';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/read.js';
import { setupDemo } from '../../../src/demo/setup.js';
import { type RunningServer, startServer } from '../../../src/server.js';
import { type PgCluster, startPostgres } from '../../helpers/postgres.js';
import { tempDir } from '../../helpers/setup.js';

describe('blobs across instances', () => {
  const t = tempDir('wai-blobs-');
  let cluster: PgCluster | undefined;
  const servers: RunningServer[] = [];
  afterAll(async () => {
    for (const s of servers) await s.close();
    await cluster?.stop();
    t.remove();
  });

  it('serves every kept blob from any instance, and adopts a later key log head', async () => {
    cluster = await startPostgres();
    const url = await cluster.createDatabase('blobs');
    const setup = setupDemo(t.dir, { port: 8080, periodMs: 500 });
    const config = JSON.parse(readFileSync(setup.configPath, 'utf8'));
    const path = join(t.dir, 'config-pg.json');
    writeFileSync(path, JSON.stringify({ ...config, listen: { port: 0 }, store: { url } }));
    const a = await startServer(loadConfig(path));
    servers.push(a);
    const b = await startServer(loadConfig(path));
    servers.push(b);
    const room = toHex(setup.roomId);
    const keyLogAt = async (s: RunningServer) =>
      new Uint8Array(await (await fetch(`${s.url}/rooms/${room}/key-log`)).arrayBuffer());
    expect(toHex(await keyLogAt(b))).toBe(toHex(setup.keyLogBytes));

    // The origin appends to its log (seq 1); instance A reads the file again.
    const head0 = unwrap(readKeyLog(setup.keyLogBytes));
    const origin = jwkToKeyPair(
      JSON.parse(readFileSync(join(t.dir, 'keys', 'origin.jwk'), 'utf8')),
      nodeBackend,
    );
    const head1 = signKeyLog(
      {
        origin: head0.origin,
        seq: 1n,
        prev: digestOf(head0, nodeBackend),
        entries: head0.entries,
      },
      origin.secretKey!,
      { backend: nodeBackend },
    );
    writeFileSync(join(t.dir, 'key-log.wkl'), head1);
    await a.reloadKeyLog();
    expect(toHex(await keyLogAt(a))).toBe(toHex(head1));
    // B adopts it from the store's notification, without reading any file.
    let atB = await keyLogAt(b);
    for (let i = 0; i < 1200 && toHex(atB) !== toHex(head1); i++) {
      await new Promise((r) => setTimeout(r, 50));
      atB = await keyLogAt(b);
    }
    expect(toHex(atB)).toBe(toHex(head1));
    expect(b.engine.keyLog?.seq).toBe(1n);
    // The policy and the room descriptor, by digest, from B.
    const policyHex = toHex(a.engine.policyDigest);
    const policy = await fetch(`${b.url}/policies/${policyHex}`);
    expect(toHex(new Uint8Array(await policy.arrayBuffer()))).toBe(toHex(setup.policyBytes));
    expect((await fetch(`${b.url}/rooms/${room}/descriptor`)).status).toBe(200);
  });
});
