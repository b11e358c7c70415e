/**
 * Load and checks for the tests of several instances or workers: steering loops over fixed
 * sessions (each chosen by the client, so a balancer hashing on `wai_session` places it from its
 * first request), hops posting records, and the verification of every manifest from what one
 * server serves by digest.
 */
import { createHash, randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { Agent, get as httpGet } from 'node:http';
import { VerifierCache, verifyDecision } from '@wai-steering/verifier';
import { readDecision, toHex, unwrap } from '@wai-steering/wire';
import { nodeBackend } from '@wai-steering/wire/node';
import type { DemoSetup } from '../../src/demo/setup.js';
import { HopSimulator } from '../../src/demo/simulator.js';
import { SessionMac } from '../../src/guard/session-mac.js';

/** A manifest received. */
export interface Served {
  readonly body: string;
  readonly session: string;
  /** The `x-wai-instance` header the balancer adds (empty without one). */
  readonly instance: string;
  /** The local time it was received, ms. */
  readonly at: number;
}

/**
 * Fresh sessions, 32 lowercase hex digits each, minted under the deployment's session secret
 * (`sessions.secret`, shared by its instances) as a server mints them, so that every instance
 * takes them as its own (`guard/session-mac.ts`).
 */
export function sessions(n: number, secret: Uint8Array): string[] {
  const mac = new SessionMac(secret);
  return Array.from({ length: n }, () => Buffer.from(mac.mint()).toString('hex'));
}

/** A session secret for a test deployment, written to `path`. */
export function writeSessionSecret(path: string): Uint8Array {
  const secret = new Uint8Array(randomBytes(32));
  writeFileSync(path, secret);
  return secret;
}

/** A GET on one keep-alive connection of `agent`. */
function getOn(
  agent: Agent,
  url: string,
): Promise<{ status: number; body: string; instance: string }> {
  return new Promise((resolve, reject) => {
    const req = httpGet(url, { agent }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c) => {
        body += c;
      });
      res.on('end', () => {
        const h = res.headers['x-wai-instance'];
        resolve({ status: res.statusCode ?? 0, body, instance: typeof h === 'string' ? h : '' });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.setTimeout(10_000, () => req.destroy(new Error('timeout')));
  });
}

/**
 * `concurrency` loops, each steering its share of `ids` in turn at `base` on a keep-alive
 * connection of its own (so that behind a socket shared by workers a session stays on one
 * worker while its connection lives), until `stop()` is true; every manifest is added to
 * `served` (by its decision's digest). Resolves with the failures (a refused or reset
 * connection, a 5xx) and the first reasons once every loop stopped. Bounded by `maxMs`.
 */
export async function steer(
  base: string,
  ids: readonly string[],
  served: Map<string, Served>,
  o: { concurrency: number; stop: () => boolean; maxMs?: number },
): Promise<{ failures: number; reasons: string[] }> {
  let failures = 0;
  const reasons: string[] = [];
  const fail = (why: string): void => {
    failures++;
    if (reasons.length < 10) reasons.push(why);
  };
  const deadline = Date.now() + (o.maxMs ?? 30_000);
  await Promise.all(
    Array.from({ length: o.concurrency }, async (_, w) => {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      for (let i = w; !o.stop() && Date.now() < deadline; i += o.concurrency) {
        const session = ids[i % ids.length]!;
        const q =
          i % 2 === 0
            ? `_HLS_pathway=cdn-b&_HLS_throughput=${4_000_000 + w}`
            : '_DASH_pathway=cdn-a';
        try {
          const res = await getOn(agent, `${base}/steer/reload?wai_session=${session}&${q}`);
          if (res.status !== 200) {
            fail(`${res.status} ${res.body.slice(0, 200)}`);
            continue;
          }
          const m = JSON.parse(res.body)['science.transaction.wai-decision'] as string;
          served.set(m.slice(-64), {
            body: res.body,
            session,
            instance: res.instance,
            at: Date.now(),
          });
        } catch (e) {
          fail(String((e as Error).message));
          await new Promise((r) => setTimeout(r, 20));
        }
      }
      agent.destroy();
    }),
  );
  return { failures, reasons };
}

/** The bytes of a GET, and its status. */
async function get(url: string): Promise<{ status: number; bytes: Uint8Array }> {
  const res = await fetch(url);
  return { status: res.status, bytes: new Uint8Array(await res.arrayBuffer()) };
}

/**
 * Fetches from `base` the decision of every digest of `manifests`, requires its bytes to hash to
 * the digest, then the records they name, the policy, room and key log head, and verifies
 * each decision with its manifest (§9.1). The decisions fetched, by digest.
 */
export async function verifyFrom(
  base: string,
  manifests: ReadonlyMap<string, string>,
): Promise<{ decisions: Map<string, Uint8Array>; failures: string[] }> {
  const decisions = new Map<string, Uint8Array>();
  const failures: string[] = [];
  const hexes = [...manifests.keys()];
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < hexes.length) {
        const hex = hexes[next++]!;
        const { status, bytes } = await get(`${base}/decisions/${hex}`);
        const digest = createHash('sha256')
          .update(bytes.subarray(0, Math.max(0, bytes.length - 64)))
          .digest('hex');
        if (status !== 200 || digest !== hex) failures.push(`${hex}: ${status}, digest ${digest}`);
        else decisions.set(hex, bytes);
      }
    }),
  );
  if (decisions.size === 0) return { decisions, failures };
  const named = new Set<string>();
  for (const bytes of decisions.values()) {
    for (const p of unwrap(readDecision(bytes)).pathways) {
      for (const e of p.evidence) named.add(toHex(e));
    }
  }
  const records: Uint8Array[] = [];
  for (const hex of named) {
    const r = await get(`${base}/records/${hex}`);
    if (r.status !== 200) failures.push(`record ${hex}: ${r.status}`);
    else records.push(r.bytes);
  }
  const first = unwrap(readDecision(decisions.values().next().value!));
  const policy = (await get(`${base}/policies/${toHex(first.policy)}`)).bytes;
  const room = (await get(`${base}/rooms/${toHex(first.room)}/descriptor`)).bytes;
  const keyLog = (await get(`${base}/rooms/${toHex(first.room)}/key-log`)).bytes;
  const cache = new VerifierCache();
  for (const [hex, decision] of decisions) {
    const outcome = verifyDecision(
      { room, keyLog, policy, decision, records, manifest: manifests.get(hex)! },
      { backend: nodeBackend, cache },
    );
    if (outcome.outcome !== 'accept') failures.push(`${hex}: ${JSON.stringify(outcome)}`);
  }
  return { decisions, failures };
}

/** A record posted, and when its post was answered (the room clock, µs). */
export interface Posted {
  readonly digest: string;
  readonly start: bigint;
  readonly end: bigint;
  readonly ackedAt: bigint;
}

/**
 * The demo's hops posting to `base` only: the history of a window at once, then each period's
 * records 50 ms after it ends; every post answered is noted. `stop()` ends it.
 */
export function postRecords(
  setup: DemoSetup,
  base: string,
  clock: () => bigint,
  posted: Posted[],
): { ready: Promise<void>; stop: () => Promise<void> } {
  const sim = new HopSimulator({
    policy: setup.policy,
    roomId: setup.roomId,
    hops: setup.hops,
    base,
    clock,
  });
  const P = setup.policy.period_us;
  let stopped = false;
  let inflight: Promise<void> = Promise.resolve();
  const period = async (end: bigint): Promise<void> => {
    await Promise.all(
      setup.hops.map(async (hop) => {
        const bytes = sim.record(hop, end - P, end, 100);
        try {
          const res = await fetch(`${base}/records`, { method: 'POST', body: bytes });
          const body = await res.text();
          if (res.status === 200 || res.status === 201) {
            posted.push({ digest: JSON.parse(body).digest, start: end - P, end, ackedAt: clock() });
          }
        } catch {}
      }),
    );
  };
  const ready = (async () => {
    const last = (clock() / P) * P;
    const history = Number(setup.policy.window_us / P) + 1;
    for (let k = history - 1; k >= 0; k--) await period(last - BigInt(k) * P);
    let next = last + P;
    const tick = (): void => {
      if (stopped) return;
      const wait = Number(next - clock()) / 1000 + 50;
      setTimeout(
        () => {
          if (stopped) return;
          const end = next;
          next += P;
          inflight = period(end);
          tick();
        },
        Math.max(0, wait),
      ).unref();
    };
    tick();
  })();
  return {
    ready,
    stop: async () => {
      stopped = true;
      await inflight;
    },
  };
}
