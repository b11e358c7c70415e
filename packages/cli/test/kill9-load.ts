/**
 * A steady load on `wai-steer serve` (one process, or the workers of `--workers N`) that a test
 * kills with `kill -9` and starts again: a fixed set of sessions, each on the worker it was
 * minted by (a kept-alive connection to that worker, found by the place its `/healthz` says),
 * asking again and again. New sessions come one at a time, and the next waits until every other
 * worker counts it (`wai_steering_peer_load`), so that no decision states a peer's load older
 * than the decisions before it: what an audit at `--load-tolerance 0` asks of several workers,
 * whose loads are exchanged by heartbeat (docs/audit.md, *Several instances*).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { Agent, get } from 'node:http';
import { expect } from 'vitest';
import { BIN } from './paths.js';

/** A running `wai-steer serve`. */
export interface Served {
  readonly proc: ChildProcess;
  readonly url: string;
  readonly stderr: () => string;
}

/** Starts `wai-steer serve --config FILE [--workers N]` in a process group of its own. */
export async function serve(config: string, workers: number, cwd: string): Promise<Served> {
  const args = [BIN, 'serve', '--config', config, '--init'];
  if (workers > 1) args.push('--workers', String(workers));
  const proc = spawn(process.execPath, args, {
    cwd,
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true,
  });
  let err = '';
  proc.stderr!.on('data', (c: Buffer) => {
    err += c.toString();
  });
  // A start on a machine whose cores are busy takes seconds: a generous ceiling.
  const deadline = Date.now() + 120_000;
  for (;;) {
    const m = /serving at (http:\/\/[^\s,]+)/.exec(err);
    if (m !== null) return { proc, url: m[1]!, stderr: () => err };
    if (proc.exitCode !== null || Date.now() > deadline) throw new Error(`serve: ${err}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Whether a process has exited. */
function exited(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => proc.once('exit', () => resolve()));
}

/** `kill -9` of the server, every process of its group (the primary and its workers). */
export async function kill9(s: Served): Promise<void> {
  process.kill(-s.proc.pid!, 'SIGKILL');
  await exited(s.proc);
}

/** Stops the server as an operator does (SIGTERM: what is queued is answered and written). */
export async function stop(s: Served): Promise<void> {
  s.proc.kill('SIGTERM');
  await exited(s.proc);
}

/** An answer: its status and body. */
interface Answer {
  readonly status: number;
  readonly body: string;
}

function request(url: string, agent: Agent): Promise<Answer> {
  return new Promise((resolve, reject) => {
    get(url, { agent }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        body += c;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', reject);
    }).on('error', reject);
  });
}

/** A session of the load: the worker it is on and the target it asks next. */
interface Session {
  readonly slot: number;
  next: string;
}

/** The steady load: sessions on their workers, asking again and again. */
export class SteadyLoad {
  private agents: Agent[] = [];
  private base = '';
  readonly sessions: Session[] = [];
  /** Decisions answered (200) since the last {@link attach}. */
  answered = 0;
  /** The digests of every decision answered. */
  readonly served: string[] = [];
  /** Answers other than 200 (never, from an honest server that runs). */
  readonly refused: string[] = [];

  constructor(private readonly workers: number) {}

  /**
   * Connects to a server (again): a kept-alive connection to each worker, found by opening
   * connections until one reaches it (the primary hands them out in turn).
   */
  async attach(url: string): Promise<void> {
    for (const a of this.agents) a.destroy();
    this.agents = [];
    this.base = url;
    this.answered = 0;
    // Every worker listens within seconds of the first (it decides once the others are
    // counted); on a busy machine later: a generous ceiling.
    const deadline = Date.now() + 120_000;
    for (let slot = 0; slot < this.workers; slot++) {
      for (;;) {
        expect(Date.now()).toBeLessThan(deadline);
        const agent = new Agent({ keepAlive: true, maxSockets: 1 });
        const health = await request(`${url}/healthz`, agent);
        const worker = (JSON.parse(health.body) as { worker?: number }).worker ?? 0;
        if (health.status === 200 && worker === slot) {
          this.agents.push(agent);
          break;
        }
        agent.destroy();
        await new Promise((r) => setTimeout(r, 10));
      }
    }
  }

  /** One decision for a session; `false` when the server went away. */
  private async ask(s: Session): Promise<boolean> {
    let a: Answer;
    try {
      a = await request(`${this.base}${s.next}`, this.agents[s.slot]!);
    } catch {
      return false;
    }
    if (a.status !== 200) {
      this.refused.push(`${a.status} ${a.body}`);
      return true;
    }
    const m = JSON.parse(a.body) as Record<string, unknown>;
    this.served.push((m['science.transaction.wai-decision'] as string).slice(-64));
    const reload = new URL(m['RELOAD-URI'] as string);
    reload.searchParams.set('_HLS_pathway', `"${(m['PATHWAY-PRIORITY'] as string[])[0]}"`);
    s.next = `${reload.pathname}${reload.search}`;
    this.answered++;
    return true;
  }

  /** The peers' load each worker adds to its own, summed over the pathways. */
  private async peerLoad(slot: number): Promise<number> {
    const m = await request(`${this.base}/metrics`, this.agents[slot]!);
    let sum = 0;
    for (const line of m.body.split('\n')) {
      const hit = /^wai_steering_peer_load\{[^}]*\} (\d+)$/.exec(line);
      if (hit !== null) sum += Number(hit[1]);
    }
    return sum;
  }

  /** Mints `n` sessions, one at a time, in turn on each worker; each counted by every other. */
  async mint(n: number): Promise<void> {
    for (let i = 0; i < n; i++) {
      const s: Session = {
        slot: i % this.workers,
        next: `/steer?_HLS_throughput=${3_000_000 + i * 10_000}`,
      };
      expect(await this.ask(s)).toBe(true);
      this.sessions.push(s);
      for (let other = 0; other < this.workers; other++) {
        if (other === s.slot) continue;
        const want = this.sessions.filter((x) => x.slot !== other).length;
        const deadline = Date.now() + 60_000;
        while ((await this.peerLoad(other)) !== want) {
          expect(Date.now()).toBeLessThan(deadline);
          await new Promise((r) => setTimeout(r, 20));
        }
      }
    }
  }

  /**
   * Every session asks again, the workers at once, each worker's sessions in turn on its
   * connection. Once `limit` decisions are answered since {@link attach}: `atLimit` is called
   * (a `kill -9`, say) and the load goes on until the server goes away; without it, the load
   * stops. Resolves with whether the server went away.
   */
  async run(limit: number, atLimit?: () => void): Promise<boolean> {
    let gone = false;
    let fired = false;
    await Promise.all(
      Array.from({ length: this.workers }, async (_, slot) => {
        const mine = this.sessions.filter((s) => s.slot === slot);
        for (let k = 0; !gone; k++) {
          if (this.answered >= limit) {
            if (atLimit === undefined) return;
            if (!fired) {
              fired = true;
              atLimit();
            }
          }
          if (!(await this.ask(mine[k % mine.length]!))) gone = true;
        }
      }),
    );
    return gone;
  }

  close(): void {
    for (const a of this.agents) a.destroy();
    this.agents = [];
  }
}
