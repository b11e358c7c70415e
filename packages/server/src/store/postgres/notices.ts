/**
 * The shared store's notifications: a commit that inserts records notifies `wai_records`
 * (payload: the digest in hex), a new blob `wai_blobs` (`kind:hex`), a capacity report kept or a
 * policy put in force `wai_live` (`capacity:hex`, `policy:hex`, the room's id), each inside its
 * transaction, so a listener hears of a row only once it is visible. One connection listens,
 * listened again a second after it breaks.
 */
import pg from 'pg';
import { describeError } from '../../health.js';
import type { BlobKind } from '../policies.js';
import { asBytes, type PgContext } from './context.js';

/** A notification of the store: a record or a blob another connection committed. */
export type StoreNotice =
  | { readonly kind: 'record'; readonly digest: Uint8Array }
  | { readonly kind: 'blob'; readonly blob: BlobKind; readonly digest: Uint8Array }
  /** A capacity report kept, or a policy put in force, for the room of that id. */
  | { readonly kind: 'live'; readonly what: 'capacity' | 'policy'; readonly room: Uint8Array }
  /** Listening again after the connection failed: notifications may have been missed. */
  | { readonly kind: 'listening' };

function readNotice(channel: string, payload: string | undefined): StoreNotice | undefined {
  if (payload === undefined) return undefined;
  if (channel === 'wai_records' && /^[0-9a-f]{64}$/.test(payload)) {
    return { kind: 'record', digest: asBytes(Buffer.from(payload, 'hex')) };
  }
  const live = /^(capacity|policy):([0-9a-f]{64})$/.exec(payload);
  if (channel === 'wai_live' && live !== null) {
    const what = live[1] as 'capacity' | 'policy';
    return { kind: 'live', what, room: asBytes(Buffer.from(live[2]!, 'hex')) };
  }
  const m = /^(policy|room|key-log):([0-9a-f]{64})$/.exec(payload);
  if (channel === 'wai_blobs' && m !== null) {
    return { kind: 'blob', blob: m[1] as BlobKind, digest: asBytes(Buffer.from(m[2]!, 'hex')) };
  }
  return undefined;
}

export class PgNotices {
  private listener: pg.Client | undefined;
  private readonly listeners = new Set<(n: StoreNotice) => void>();

  constructor(private readonly ctx: PgContext) {}

  /**
   * Calls `listener` for each record and blob committed from now on by any connection (this
   * instance's included). A notification can be lost (a dropped connection): the catch-up
   * query at each window move heals it.
   */
  async subscribe(listener: (n: StoreNotice) => void): Promise<() => void> {
    this.listeners.add(listener);
    if (this.listener === undefined) await this.listen();
    return () => {
      this.listeners.delete(listener);
    };
  }

  /**
   * The notification connection: `LISTEN` on its three channels, listened again a second after a
   * failure (and again until it works). Once listening again, the listeners are told
   * (`listening`), so that they read what was committed meanwhile.
   */
  private async listen(again = false): Promise<void> {
    const c = new pg.Client({ connectionString: this.ctx.url });
    c.on('error', (e) => this.listenerFailed(c, e));
    c.on('notification', (m) => {
      const notice = readNotice(m.channel, m.payload);
      if (notice !== undefined) for (const l of this.listeners) l(notice);
    });
    this.listener = c;
    try {
      await c.connect();
      await c.query('LISTEN wai_records');
      await c.query('LISTEN wai_blobs');
      await c.query('LISTEN wai_live');
    } catch (e) {
      this.listenerFailed(c, e);
      throw e;
    }
    if (again) {
      this.ctx.faults.clear('store_notifications');
      for (const l of this.listeners) l({ kind: 'listening' });
    }
  }

  /** The listening connection failed: told once, listened again in a second. */
  private listenerFailed(c: pg.Client, e: unknown): void {
    if (this.ctx.closed || this.listener !== c) return;
    this.ctx.faults.fail(
      'store_notifications',
      `the store's notification connection failed: ${describeError(e)}`,
    );
    this.listener = undefined;
    c.end().catch(() => {});
    // What is committed meanwhile comes with the catch-up once listening again.
    setTimeout(() => {
      if (!this.ctx.closed && this.listener === undefined && this.listeners.size > 0) {
        this.listen(true).catch(() => {});
      }
    }, 1000).unref();
  }

  /** Stops listening (the store closes): the listening connection's end. */
  close(): Promise<void> {
    const listener = this.listener;
    this.listener = undefined;
    return listener === undefined ? Promise.resolve() : listener.end();
  }
}
