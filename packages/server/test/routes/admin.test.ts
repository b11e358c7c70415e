// `POST /admin/reload` (what SIGHUP runs): the policy file read again and put in force with the
// sessions and their loads kept, mapped by pathway ID; refused files leave what is in force.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { jwkToKeyPair, signPolicy, toHex } from '@wai-steering/wire';
import { nodeBackend } from '@wai-steering/wire/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../src/server.js';
import { demoRoom, freePort } from '../helpers/setup.js';

const TOKEN = 'a-token-of-the-admin-route';

describe('POST /admin/reload', () => {
  let server: RunningServer;
  let room: ReturnType<typeof demoRoom>;
  beforeAll(async () => {
    room = demoRoom(await freePort());
    server = await startServer({
      ...room.config,
      store: { path: ':memory:', synchronous: 'normal', create: true, checkTimeout: 0 },
      admin: { token: TOKEN },
      // One test client steers 40 sessions: no per-client budget.
      budget: {
        ...room.config.budget,
        requests: { rate: 0, burst: 1 },
        sessions: { rate: 0, burst: 1 },
      },
    });
  });
  afterAll(async () => {
    await server.close();
    room.remove();
  });

  const reload = (token?: string) =>
    fetch(`${server.url}/admin/reload`, {
      method: 'POST',
      headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
    });

  it('needs the bearer token, and says so with its challenge', async () => {
    const none = await reload();
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe(
      'Bearer realm="wai-steering admin", charset="UTF-8"',
    );
    expect(await none.json()).toEqual({
      error: 'unauthorised',
      message: 'the admin route needs a bearer token',
    });
    expect((await reload('wrong-token-of-the-same-size')).status).toBe(401);
    // The scheme in any case, as the console takes it (one check for both).
    const lower = await fetch(`${server.url}/admin/reload`, {
      method: 'POST',
      headers: { authorization: `bearer ${TOKEN}` },
    });
    expect(lower.status).toBe(200);
  });

  it('puts the new policy file in force and keeps the loads by pathway ID', async () => {
    for (let i = 0; i < 40; i++) {
      const res = await fetch(`${server.url}/steer?_HLS_throughput=5000000`);
      expect(res.status).toBe(200);
    }
    const ids = server.engine.policy.pathways.map((p) => p.id);
    const loads = Array.from(server.engine.sessions.loads);
    expect(loads.reduce((a, b) => a + b, 0)).toBe(40);
    // Nothing changed yet.
    const same = await reload(TOKEN);
    expect(same.status).toBe(200);
    expect(await same.json()).toMatchObject({ changed: false });
    // cdn-a removed: its sessions leave the loads; the others keep theirs.
    const p = room.setup.policy;
    const key = jwkToKeyPair(
      JSON.parse(readFileSync(join(room.setup.dir, 'keys', 'authority.jwk'), 'utf8')),
      nodeBackend,
    );
    const next = {
      ...p,
      initial: 0,
      pathways: [p.pathways[1]!, { ...p.pathways[2]!, base: 0 }],
    };
    writeFileSync(
      join(room.setup.dir, 'policy.wsp'),
      signPolicy(next, key.secretKey!, { backend: nodeBackend }),
    );
    const res = await reload(TOKEN);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { policy: string; changed: boolean };
    expect(body.changed).toBe(true);
    expect(body.policy).toBe(toHex(server.engine.policyDigest));
    expect(Array.from(server.engine.sessions.loads)).toEqual([
      loads[ids.indexOf('cdn-b')],
      loads[ids.indexOf('cdn-b-east')],
    ]);
    // A file that is no policy is refused (409) and the policy in force stays.
    writeFileSync(join(room.setup.dir, 'policy.wsp'), 'not a policy');
    const refused = await reload(TOKEN);
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { message: string }).message).toMatch(
      /policy\.wsp: does not read/,
    );
    expect(toHex(server.engine.policyDigest)).toBe(body.policy);
    // Decisions are made under it.
    const m = (await (await fetch(`${server.url}/steer`)).json()) as {
      'PATHWAY-PRIORITY': string[];
    };
    expect(m['PATHWAY-PRIORITY'].sort()).toEqual(['cdn-b', 'cdn-b-east']);
  });
});
