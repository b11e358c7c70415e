/**
 * The decision log of a deployment: two instances on one PostgreSQL, and `serve --workers 2` on
 * one SQLite file, deciding concurrently (each a child process, as `wai-steer serve` runs it).
 * One sequence for the deployment: every decision stored is in the log exactly once; every
 * instance serves the same checkpoint and the same tiles; the listing's equal `t` follow the log.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { setupDemo } from '../../../src/demo/setup.js';
import { type Child, exited, spawnChild } from '../../helpers/child.js';
import { checkServedLog, fetchLogFile, logKeyOf, readServedLog, until } from '../../helpers/log.js';
import { type PgCluster, startPostgres } from '../../helpers/postgres.js';
import { freePort, tempDir } from '../../helpers/setup.js';

const LOG = { interval: '200ms', max_delay: '1s' };

/**
 * `concurrency` loops steering at each base of `bases` at once, until `total` decisions were
 * served: the decisions served, by digest.
 */
async function load(
  bases: readonly string[],
  concurrency: number,
  total: number,
): Promise<string[]> {
  const served: string[] = [];
  await Promise.all(
    bases
      .flatMap((base) => Array.from({ length: concurrency }, () => base))
      .map(async (base) => {
        while (served.length < total) {
          const res = await fetch(`${base}/steer`);
          const body = await res.text();
          if (res.status !== 200) throw new Error(`${res.status} ${body}`);
          served.push((JSON.parse(body)['science.transaction.wai-decision'] as string).slice(-64));
        }
      }),
  );
  return served;
}

/** Every decision the store lists, by digest (`GET /decisions`, every page). */
async function listed(base: string): Promise<{ digest: string; t: string }[]> {
  const out: { digest: string; t: string }[] = [];
  let after = '0';
  for (;;) {
    const page = (await (await fetch(`${base}/decisions?after=${after}`)).json()) as {
      decisions: { digest: string; t: string }[];
      next: string | null;
    };
    out.push(...page.decisions);
    if (page.next === null) return out;
    after = page.next;
  }
}

/** The log's order sorted by t, equal t kept in the log's order: what the listing must be. */
function stableByT(entries: { t: bigint; digest: string }[]): { digest: string; t: string }[] {
  return entries
    .map((e, i) => ({ ...e, i }))
    .sort((a, b) => (a.t < b.t ? -1 : a.t > b.t ? 1 : a.i - b.i))
    .map((e) => ({ digest: e.digest, t: e.t.toString() }));
}

describe('the decision log of a deployment', () => {
  const t = tempDir('wai-log-instances-');
  const children: Child[] = [];
  let cluster: PgCluster | undefined;
  afterAll(async () => {
    for (const c of children) {
      if (c.proc.exitCode === null && c.proc.signalCode === null) {
        c.proc.kill('SIGKILL');
        await exited(c.proc);
      }
    }
    await cluster?.stop();
    t.remove();
  });

  it('two instances on one PostgreSQL: one sequence, the same checkpoint and tiles from both', async () => {
    cluster = await startPostgres();
    const url = await cluster.createDatabase('log');
    const setup = setupDemo(join(t.dir, 'pg'), { port: 8080, periodMs: 500, budgets: false });
    const base = JSON.parse(readFileSync(setup.configPath, 'utf8'));
    const ports: number[] = [];
    const configs: string[] = [];
    for (const name of ['a', 'b']) {
      const port = await freePort();
      const path = join(t.dir, 'pg', `config-${name}.json`);
      writeFileSync(
        path,
        JSON.stringify({ ...base, listen: { host: '127.0.0.1', port }, store: { url }, log: LOG }),
      );
      ports.push(port);
      configs.push(path);
    }
    // A begins the log (its origin is A's address); B joins it.
    const a = await spawnChild(configs[0]!);
    children.push(a);
    const b = await spawnChild(configs[1]!);
    children.push(b);
    const origin = `127.0.0.1:${ports[0]}/log`;
    const key = logKeyOf(origin, setup.steering.publicKey);

    const served = await load([a.url, b.url], 6, 600);
    const stored = await listed(a.url);
    expect(stored.length).toBe(served.length);

    // Once every decision is in a checkpoint, both serve the same one.
    await until(
      async () => {
        const [ta, tb] = await Promise.all(
          [a, b].map(async (c) => (await fetch(`${c.url}/log/checkpoint`)).text()),
        );
        return ta === tb && ta!.split('\n')[1] === String(stored.length);
      },
      60_000,
      'the same checkpoint of every decision from both',
    );
    const { log, entries } = await checkServedLog(a.url, origin, key, served);
    expect(entries.length).toBe(stored.length);
    expect(new Set(entries.map((e) => e.digest))).toEqual(new Set(stored.map((s) => s.digest)));
    // The same tiles from B, byte for byte.
    const fromB = await readServedLog(b.url, origin, key);
    expect(fromB.text).toBe(log.text);
    for (const [path, bytes] of log.fetched) {
      expect(Buffer.from((await fetchLogFile(b.url, path))!).equals(Buffer.from(bytes)), path).toBe(
        true,
      );
    }
    // The listing by time is the log's order sorted by t, equal t in the log's order.
    expect(stored).toEqual(stableByT(entries));
    expect(await listed(b.url)).toEqual(stored);
  });

  it('serve --workers 2 on one SQLite file: one sequence, the same checkpoint and tiles', async () => {
    const setup = setupDemo(join(t.dir, 'sqlite'), { port: 8080, periodMs: 500, budgets: false });
    const config = JSON.parse(readFileSync(setup.configPath, 'utf8'));
    const port = await freePort();
    const path = join(t.dir, 'sqlite', 'config-workers.json');
    writeFileSync(
      path,
      JSON.stringify({ ...config, listen: { host: '127.0.0.1', port }, log: LOG }),
    );
    const child = await spawnChild(path, 2);
    children.push(child);
    const origin = `127.0.0.1:${port}/log`;
    const key = logKeyOf(origin, setup.steering.publicKey);

    const served = await load([child.url], 12, 600);
    const stored = await listed(child.url);
    expect(stored.length).toBe(served.length);
    // Each request may land on either worker: every answer the same once all is logged.
    await until(
      async () => {
        const texts = await Promise.all(
          Array.from({ length: 8 }, async () =>
            (await fetch(`${child.url}/log/checkpoint`)).text(),
          ),
        );
        return texts.every((x) => x === texts[0] && x.split('\n')[1] === String(stored.length));
      },
      60_000,
      'the same checkpoint of every decision from every worker',
    );
    const { log, entries } = await checkServedLog(child.url, origin, key, served);
    expect(entries.length).toBe(stored.length);
    for (const [p, bytes] of log.fetched) {
      for (let i = 0; i < 3; i++) {
        expect(Buffer.from((await fetchLogFile(child.url, p))!).equals(Buffer.from(bytes)), p).toBe(
          true,
        );
      }
    }
    expect(stored).toEqual(stableByT(entries));
  });
});
