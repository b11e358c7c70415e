/**
 * A worker of `auditArchive`'s pool (`node.ts`): reads the archive's materials itself and
 * verifies the batches of decisions it is sent, answering each batch's verdicts in its order.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { fromHex } from '@wai-steering/wire';
import { nodeBackend } from '@wai-steering/wire/node';
import { packVerdicts } from './internal/pack.js';
import { readArchiveMaterials } from './node/materials.js';
import { DecisionVerifier } from './verdict.js';

const { dir, roomId } = workerData as { dir: string; roomId: string };
const port = parentPort!;
let verifier: DecisionVerifier | undefined;
let error: string | undefined;
try {
  const m = readArchiveMaterials(dir);
  verifier = new DecisionVerifier({ ...m, roomId: fromHex(roomId), backend: nodeBackend });
} catch (e) {
  error = (e as Error).message;
}

port.on('message', (m: { id: number; buf: Uint8Array; ends: Uint32Array }) => {
  if (verifier === undefined) {
    port.postMessage({ id: m.id, error: error ?? 'the worker could not read the archive' });
    return;
  }
  const verdicts = [];
  let start = 0;
  for (const end of m.ends) {
    verdicts.push(verifier.verify(m.buf.subarray(start, end)));
    start = end;
  }
  const packed = packVerdicts(verdicts);
  port.postMessage({ id: m.id, ...packed }, [packed.buf.buffer as ArrayBuffer]);
});
