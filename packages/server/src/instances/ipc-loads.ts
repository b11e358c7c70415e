/**
 * The loads exchange of `serve --workers N` (`loads.ts`): each worker's beat goes to the primary
 * process over the cluster's IPC channel, and the primary (`LoadsHub`, one thread: the lock)
 * answers with the sum of the other live workers' latest counts and the slots it grants.
 */
import { underLayout } from './layout.js';
import { grantAll, LeaseBook, publishedHeld } from './lease-book.js';
import { type LoadExchangeOptions, type PeerLoads, pathwaysOf } from './loads.js';

/** The messages of the workers' exchange (`serve --workers N`). */
export interface LoadsMessage {
  readonly wai: 'loads';
  readonly counts: readonly number[];
  /** From a worker: the layout its counts are under (`layout.ts`), as text. */
  readonly layout?: string;
  /** From the primary: how many live workers the counts add up. */
  readonly live?: number;
  /**
   * From a worker keeping leases: the slots it asks for, the capacities it counts, and the slots
   * it holds now (published as held until its next beat).
   */
  readonly targets?: readonly number[];
  readonly capacities?: readonly number[];
  readonly held?: readonly number[];
  /** From the primary: the slots granted to the worker. */
  readonly slots?: readonly number[];
  /** A worker's beat number, given back with the answer. */
  readonly seq?: number;
  /**
   * From the primary: the other workers not yet counted, those starting (rebuilding their
   * session tables) or started again in a dead one's place; a worker decides once it is 0.
   */
  readonly starting?: number;
}

/** Whether an IPC message is one of the loads exchange. */
export function isLoadsMessage(m: unknown): m is LoadsMessage {
  return (
    typeof m === 'object' &&
    m !== null &&
    (m as { wai?: unknown }).wai === 'loads' &&
    Array.isArray((m as { counts?: unknown }).counts)
  );
}

/** The channel of a worker to its primary (`process` in a worker of `node:cluster`). */
export interface IpcChannel {
  send?(message: unknown): unknown;
  on(event: 'message', listener: (m: unknown) => void): unknown;
  off(event: 'message', listener: (m: unknown) => void): unknown;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Another worker's counts and slots under the beating one's layout; `undefined`: another room. */
function mapped(
  mine: Uint8Array,
  theirs: Uint8Array,
  l: { readonly counts: readonly number[]; readonly slots: readonly number[] },
): { counts: number[]; slots: number[] } | undefined {
  const counts = underLayout(mine, theirs, l.counts);
  if (counts === undefined) return undefined;
  return { counts, slots: underLayout(mine, theirs, l.slots) ?? [] };
}

/** How long a worker that starts waits for the others to be counted before it decides anyway. */
export const SETTLE_MS = 10_000;

/**
 * How long the primary keeps counting a dead worker's latest loads while the worker started in
 * its place rebuilds its table (its sessions are still the dead one's meanwhile).
 */
export const HELD_MS = 60_000;

/**
 * The exchange of a worker process: each beat sends its own counts (and, keeping leases, the
 * slots it asks for) to the primary, which answers every worker with the sum of the other live
 * workers' latest and the slots it granted (`LoadsHub`).
 */
export class IpcLoadExchange implements PeerLoads {
  peers: Uint32Array;
  livePeers = 0;
  /**
   * Resolves once the primary counts every other worker (none is starting), or after
   * {@link SETTLE_MS}: a worker decides only with the others' loads (`server.ts`).
   */
  readonly settled: Promise<void>;
  private settle: () => void = () => {};
  private readonly timer: NodeJS.Timeout;
  private readonly onMessage: (m: unknown) => void;
  private readonly book: LeaseBook;
  private seq = 0;
  /** Beats sent whose answers are awaited: their start and who waits. */
  private readonly waiting = new Map<
    number,
    { started: number; short: boolean; done: () => void }
  >();
  private stopped = false;
  /** The beats, one after the other, and how many wait or run. */
  private queue: Promise<void> = Promise.resolve();
  private pending = 0;

  constructor(
    private readonly channel: IpcChannel,
    private readonly o: LoadExchangeOptions,
  ) {
    this.peers = new Uint32Array(pathwaysOf(o));
    this.book = new LeaseBook(o);
    this.settled = new Promise<void>((resolve) => {
      const bound = setTimeout(resolve, SETTLE_MS);
      bound.unref();
      this.settle = () => {
        clearTimeout(bound);
        resolve();
      };
    });
    this.onMessage = (m) => {
      const pathways = pathwaysOf(o);
      if (!isLoadsMessage(m) || m.counts.length !== pathways) return;
      if ((m.starting ?? 0) === 0) this.settle();
      if (this.peers.length !== pathways) this.peers = new Uint32Array(pathways);
      for (let i = 0; i < pathways; i++) this.peers[i] = m.counts[i]!;
      this.livePeers = m.live ?? 0;
      const w = m.seq === this.seq ? this.waiting.get(m.seq) : undefined;
      if (w === undefined) return;
      this.waiting.delete(m.seq!);
      const interval = o.intervalMs ?? 250;
      if (m.slots !== undefined && m.slots.length === pathways) {
        this.book.granted(m.slots, w.started, interval * (o.liveIntervals ?? 4), interval, w.short);
      }
      w.done();
    };
    channel.on('message', this.onMessage);
    void this.beat(false);
    this.timer = setInterval(() => {
      if (this.pending === 0) void this.beat(false);
    }, o.intervalMs ?? 250);
    this.timer.unref();
  }

  /**
   * One beat: resolves when the primary answered it (or after an interval without answer). Beats
   * go one at a time, and only the answer to the latest is applied: the lease applied is always
   * the one the primary holds for this worker (a late answer is ignored; the primary then counts
   * the more of the two, on the side of the limit).
   */
  private beat(short: boolean, waiting = 0): Promise<void> {
    this.pending++;
    const run = this.queue
      .then(() => this.beatNow(short, waiting))
      .finally(() => {
        this.pending--;
      });
    this.queue = run;
    return run;
  }

  private beatNow(short: boolean, waiting: number): Promise<void> {
    if (this.stopped) return Promise.resolve();
    const pathways = pathwaysOf(this.o);
    const own = Array.from(this.o.own());
    const targets = this.book.targets(own, pathways, short, waiting);
    const seq = ++this.seq;
    const started = performance.now();
    const layout = this.o.layout?.();
    const message: LoadsMessage = {
      wai: 'loads',
      counts: own,
      seq,
      ...(layout === undefined ? {} : { layout: decoder.decode(layout) }),
      ...(targets === undefined
        ? {}
        : {
            targets,
            capacities: this.book.capacities(pathways),
            held: this.book.held(pathways),
          }),
    };
    return new Promise<void>((resolve) => {
      const timeout = setTimeout(() => {
        this.waiting.delete(seq);
        resolve();
      }, this.o.intervalMs ?? 250);
      timeout.unref();
      this.waiting.set(seq, {
        started,
        short,
        done: () => {
          clearTimeout(timeout);
          resolve();
        },
      });
      this.channel.send?.(message);
    });
  }

  lease(): Uint32Array | undefined {
    return this.book.lease(this.peers.length);
  }

  take(waiting = 1): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return this.book.take(() => this.beat(true, waiting));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.settle();
    clearInterval(this.timer);
    this.channel.off('message', this.onMessage);
    for (const w of this.waiting.values()) w.done();
    this.waiting.clear();
  }
}

/**
 * The primary's side of the workers' exchange: keeps each worker's latest counts and slots and
 * when they came, by its place among the workers (a worker started again in a dead one's place
 * takes its place), answers a worker's beat with the sum of the others' that are live, and grants
 * its slots within what the live others hold (the primary's one thread is the lock).
 *
 * A worker that died is counted as it last beat until the one started in its place beats (it has
 * rebuilt the dead one's sessions by then: `engine/rebuild.ts`), at most {@link HELD_MS}; a
 * worker's answer says how many others are not counted yet (`starting`): a place with no beat
 * yet, or one held for a dead worker.
 */
export class LoadsHub {
  private readonly latest = new Map<
    number,
    {
      counts: readonly number[];
      slots: readonly number[];
      /** The layout its counts and slots are under (`layout.ts`), when the worker sent one. */
      layout: Uint8Array | undefined;
      at: number;
      /** Held for a dead worker until this instant (ms), or `undefined` for a live one. */
      heldUntil: number | undefined;
    }
  >();

  constructor(
    private readonly intervalMs = 250,
    private readonly liveIntervals = 4,
    /** The places (N of `serve --workers N`); the ones never beaten count as starting. */
    private readonly places = 0,
  ) {}

  /** A worker's beat: the others' live loads summed, and its slots, to send back to it. */
  beat(place: number, message: LoadsMessage | readonly number[], nowMs: number): LoadsMessage {
    const m: LoadsMessage = Array.isArray(message)
      ? { wai: 'loads', counts: message as readonly number[] }
      : (message as LoadsMessage);
    const counts = m.counts;
    const layout = m.layout === undefined ? undefined : encoder.encode(m.layout);
    const sum = new Array<number>(counts.length).fill(0);
    const live = this.intervalMs * this.liveIntervals;
    const others: { counts: readonly number[]; slots: readonly number[] }[] = [];
    let counted = 0;
    for (const [id, l] of this.latest) {
      if (id === place) continue;
      const gone = l.heldUntil === undefined ? nowMs - l.at > live : nowMs > l.heldUntil;
      if (gone) {
        this.latest.delete(id);
        continue;
      }
      if (l.heldUntil === undefined) counted++;
      // Under the beating worker's pathways, by ID (`layout.ts`); by index without layouts.
      const other =
        layout !== undefined && l.layout !== undefined
          ? mapped(layout, l.layout, l)
          : l.counts.length === counts.length
            ? l
            : undefined;
      if (other === undefined) continue;
      others.push(other);
      for (let i = 0; i < sum.length; i++) sum[i]! += other.counts[i]!;
    }
    const slots =
      m.targets !== undefined && m.capacities !== undefined
        ? grantAll(m.targets, counts, m.capacities, others)
        : [];
    this.latest.set(place, {
      counts,
      slots: publishedHeld(slots, m.held ?? []),
      layout,
      at: nowMs,
      heldUntil: undefined,
    });
    return {
      wai: 'loads',
      counts: sum,
      live: others.length,
      ...(this.places === 0 ? {} : { starting: Math.max(0, this.places - 1 - counted) }),
      ...(m.targets === undefined ? {} : { slots }),
      ...(m.seq === undefined ? {} : { seq: m.seq }),
    };
  }

  /** A worker that exited for good: its loads and slots stop counting at once. */
  drop(place: number): void {
    this.latest.delete(place);
  }

  /**
   * A worker that died, another to be started in its place: its latest loads and slots count
   * until that one beats, at most {@link HELD_MS}.
   */
  hold(place: number, nowMs: number): void {
    const l = this.latest.get(place);
    if (l !== undefined) l.heldUntil = nowMs + HELD_MS;
  }
}
