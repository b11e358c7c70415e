/**
 * A small steering server for the agent's tests: `POST /records` verifies each record as the
 * real server does on ingest (companion C5, `openHopRecord` of the verifier), keeps it by digest
 * (`201` new, `200` already held, `400` with the reason), and can be taken down and brought
 * back on its port.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { openHopRecord, type RoomContext } from '@wai-steering/verifier';
import { type HopRecord, toHex } from '@wai-steering/wire';
import { nodeBackend } from '@wai-steering/wire/node';

export interface Received {
  readonly digest: string;
  readonly record: HopRecord;
  readonly status: number;
}

export class TestSteeringServer {
  /** Every POST that verified, in arrival order, with the status answered. */
  readonly received: Received[] = [];
  readonly byDigest = new Map<string, HopRecord>();
  /** Refusals answered. */
  readonly refused: string[] = [];
  private server: Server | undefined;
  port = 0;

  constructor(private readonly ctx: RoomContext) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async up(port = this.port): Promise<void> {
    const server = createServer((req, res) => {
      if (req.method !== 'POST' || req.url !== '/records') {
        res.writeHead(404).end();
        return;
      }
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const opened = openHopRecord(this.ctx, new Uint8Array(Buffer.concat(chunks)), {
          backend: nodeBackend,
        });
        if (!opened.ok) {
          this.refused.push(opened.refusal.reason);
          res.writeHead(400, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ reason: opened.refusal.reason, where: opened.refusal.where }));
          return;
        }
        const digest = toHex(opened.value.digest);
        const status = this.byDigest.has(digest) ? 200 : 201;
        this.byDigest.set(digest, opened.value.record);
        this.received.push({ digest, record: opened.value.record, status });
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ digest }));
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    this.server = server;
    this.port = (server.address() as AddressInfo).port;
  }

  async down(): Promise<void> {
    const s = this.server;
    this.server = undefined;
    if (s === undefined) return;
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }

  /** The records taken (status 201), in arrival order. */
  get records(): HopRecord[] {
    return this.received.filter((r) => r.status === 201).map((r) => r.record);
  }
}
