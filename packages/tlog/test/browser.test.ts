// The package in a browser (Debian's Chromium, driven by playwright-core), as the operator
// console will use it: bundled by vite from the sources with `@wai-steering/wire` (its portable
// noble backend), it reads a vkey, verifies a tlog proof and a consistency proof made in Node,
// and refuses changed ones.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nodeBackend } from '@wai-steering/wire/node';
import { chromium } from 'playwright-core';
import { build } from 'vite';
import { afterAll, describe, expect, it } from 'vitest';
import {
  cosigner,
  ed25519Signer,
  formatTlogProof,
  formatVerifierKey,
  proveConsistency,
  proveInclusion,
  rootOf,
  signCheckpoint,
} from '../src/index.js';
import { entries } from './helpers/log.js';

const CHROMIUM = '/usr/bin/chromium';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
];

const work = mkdtempSync(join(tmpdir(), 'tlog-browser-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The page's program: the package's verifiers behind one function. */
const ENTRY = `
import {
  parseVerifierKey,
  verifyConsistency,
  verifyTlogProof,
} from ${JSON.stringify(join(import.meta.dirname, '..', 'src', 'index.ts'))};

const hex = (s) => Uint8Array.from(s.match(/../g) ?? [], (h) => parseInt(h, 16));
globalThis.tlog = ({ proof, entry, origin, vkey, witness, consistency }) => {
  const logKey = parseVerifierKey(vkey);
  const witnessKey = parseVerifierKey(witness);
  if (!logKey.ok || !witnessKey.ok) return { vkey: 'refused' };
  const verified = verifyTlogProof(proof, {
    entry: hex(entry),
    origin,
    logKeys: [logKey.value],
    witnessKeys: [witnessKey.value],
  });
  const c = verifyConsistency({
    oldSize: BigInt(consistency.oldSize),
    newSize: BigInt(consistency.newSize),
    oldRoot: hex(consistency.oldRoot),
    newRoot: hex(consistency.newRoot),
    proof: consistency.proof.map(hex),
  });
  return {
    proof: verified.ok ? 'ok' : verified.refusal.reason,
    size: verified.ok ? String(verified.value.checkpoint.size) : undefined,
    cosignatures: verified.ok ? verified.value.cosignatures.map((w) => w.name + ' ' + w.timestamp) : [],
    consistency: c === undefined ? 'ok' : c.reason,
    node: typeof process === 'undefined' && typeof Buffer === 'undefined',
  };
};
`;

async function bundle(): Promise<string> {
  const entry = join(work, 'entry.mjs');
  writeFileSync(entry, ENTRY);
  const out = await build({
    logLevel: 'silent',
    configFile: false,
    root: work,
    build: {
      write: false,
      minify: false,
      target: 'es2022',
      lib: { entry, formats: ['es'], fileName: 'tlog' },
    },
  });
  const outputs = (Array.isArray(out) ? out : [out]) as {
    output: { type: string; code?: string }[];
  }[];
  const chunk = outputs[0]!.output.find((o) => o.type === 'chunk');
  return chunk!.code!;
}

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const ORIGIN = 'steering.example/decisions';
const log = ed25519Signer(ORIGIN, new Uint8Array(32).fill(71), nodeBackend);
const witness = cosigner('witness.example/w1', new Uint8Array(32).fill(72), nodeBackend);
const all = entries(0, 1000);
const leafHashes = all.map((e) => nodeBackend.sha256(Uint8Array.of(0, ...e)));
const source = (level: number, index: bigint) => {
  const start = Number(index) << level;
  return rootOf(leafHashes.slice(start, start + (1 << level)), nodeBackend);
};

describe('in a browser', () => {
  it('verifies a tlog proof and a consistency proof made in Node, and refuses changed ones', async () => {
    const code = await bundle();
    expect(code).not.toMatch(/from ['"]node:/);
    const root = rootOf(leafHashes, nodeBackend);
    const checkpoint = signCheckpoint({ origin: ORIGIN, size: 1000n, root, extensions: [] }, [
      log,
      witness.signerAt(1_767_225_600n),
    ]);
    const proof = formatTlogProof({
      index: 777n,
      inclusion: proveInclusion(777n, 1000n, source, nodeBackend),
      checkpoint,
    });
    const consistency = {
      oldSize: 300,
      newSize: 1000,
      oldRoot: hex(rootOf(leafHashes.slice(0, 300), nodeBackend)),
      newRoot: hex(root),
      proof: proveConsistency(300n, 1000n, source, nodeBackend).map(hex),
    };
    const input = {
      proof,
      entry: hex(all[777]!),
      origin: ORIGIN,
      vkey: formatVerifierKey(log.verifierKey),
      witness: formatVerifierKey(witness.verifierKey),
      consistency,
    };

    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ARGS,
      timeout: 60_000,
    });
    try {
      const page = await browser.newPage();
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(String(e)));
      await page.setContent('<!doctype html><title>tlog</title>');
      await page.addScriptTag({ content: code, type: 'module' });
      await page.waitForFunction(
        () => typeof (globalThis as { tlog?: unknown }).tlog === 'function',
      );
      const run = (i: typeof input) =>
        page.evaluate(
          (x) => (globalThis as unknown as { tlog: (x: unknown) => unknown }).tlog(x),
          i,
        );

      expect(await run(input)).toEqual({
        proof: 'ok',
        size: '1000',
        cosignatures: ['witness.example/w1 1767225600'],
        consistency: 'ok',
        node: true,
      });
      const other = await run({
        ...input,
        entry: hex(all[778]!),
        consistency: { ...consistency, oldSize: 301 },
      });
      expect(other).toMatchObject({ proof: 'bad_proof', consistency: 'bad_proof' });
      const forged = await run({ ...input, proof: proof.replace('\n1000\n', '\n1001\n') });
      expect(forged).toMatchObject({ proof: 'bad_signature' });
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
    }
  });
});
