// The README's worked example (docs/cli.md), scripted: keys, a room with an origin, its key log,
// a policy of three pathways (one a clone), per-hop records of two periods, a request.
import { chmodSync, copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ok } from './helpers.js';
import { REPO_DIR } from './paths.js';

export const HOPS = ['a-edge', 'a-mid', 'b-edge', 'c-edge'] as const;

export interface Example {
  readonly dir: string;
  readonly keys: Record<string, string>;
  readonly roomId: string;
  readonly policyDigest: string;
}

export const SESSION = '00112233445566778899aabbccddeeff';
/** 10.5 s on the room clock: with P = 2 s, W = 4 s, L = 500 ms the window is [6 s, 10 s). */
export const T = '10500000';
export const LOADS = '10,20,5';

export function policyYaml(keys: Record<string, string>, extra = ''): string {
  return `room: room.wrd
period: 2s
window: 4s
lag: 500ms
basis: bytes
tiers: ["800k", "2.5M", "6M"]
floor: 0
latency_ceiling: 150ms
min_buffer: 4s
hysteresis: 5%
ttl: 300s
min_ttl: 30s
server_uri: https://steer.example.com/steer
reload_uri: https://steer.example.com/steer
decision_uri: https://steer.example.com/decisions/
${extra}pathways:
  - id: cdn-a
    latency: 40ms
    min_share: 2%
    hops:
      - { key: ${keys['hop-a-edge']}, place: edge }
      - { key: ${keys['hop-a-mid']}, place: interior }
  - id: cdn-b
    latency: 60ms
    hops:
      - { key: ${keys['hop-b-edge']}, place: edge }
  - id: cdn-b-eu
    clone: { base: cdn-b, host: eu.cdn-b.example.com, params: { region: eu } }
    latency: 80ms
    capacity: 1000
    hops:
      - { key: ${keys['hop-c-edge']}, place: edge }
`;
}

/** [hop, start, end, joules (µJ), media bytes out] of each record. */
export const RECORDS: readonly [string, number, number, number, number][] = [
  ['a-edge', 6_000_000, 8_000_000, 900_000, 50_000_000],
  ['a-edge', 8_000_000, 10_000_000, 950_000, 52_000_000],
  ['a-mid', 6_000_000, 8_000_000, 400_000, 0],
  ['a-mid', 8_000_000, 10_000_000, 410_000, 0],
  ['b-edge', 6_000_000, 8_000_000, 1_000_000, 50_000_000],
  ['b-edge', 8_000_000, 10_000_000, 1_000_000, 50_000_000],
  ['c-edge', 6_000_000, 8_000_000, 800_000, 40_000_000],
  ['c-edge', 8_000_000, 10_000_000, 800_000, 40_000_000],
];

export const REQUEST = {
  protocol: 'hls',
  target: '/steer?_HLS_pathway=%22cdn-a%22&_HLS_throughput=5000000&CMCD=bl%3D12000',
  headers: {},
};

/**
 * Builds the example in `dir` through the command line, up to the records and the request. The
 * keys are the example's fixed test keys (examples/keys), so that the policy's digest, and with
 * it the session's draw (§6.3), are the same in every run: with random keys, one run in fifty
 * drew cdn-a's 2% share band and decided otherwise than the tests say.
 */
export async function buildExample(dir: string): Promise<Example> {
  const keys: Record<string, string> = {};
  for (const name of ['authority', 'origin', 'steer', 'hop-old', ...HOPS.map((h) => `hop-${h}`)]) {
    copyFileSync(join(REPO_DIR, 'examples', 'keys', `${name}.jwk`), join(dir, `${name}.jwk`));
    chmodSync(join(dir, `${name}.jwk`), 0o600);
    keys[name] = (await ok(['pubkey', `${name}.jwk`], dir)).trim();
  }
  const roomId = (
    await ok(
      [
        'room',
        'create',
        '--authority',
        'authority.jwk',
        '--origin',
        'origin.jwk',
        '--name',
        'Concert live',
        '--out',
        'room.wrd',
      ],
      dir,
    )
  ).trim();
  const hopGrant = 'live/hop,energy/OnChipCounter';
  await ok(
    [
      'keylog',
      'create',
      '--origin',
      'origin.jwk',
      '--entry',
      'authority.jwk=live/room',
      '--entry',
      'steer.jwk=live/steer,energy/OnChipCounter',
      '--entry',
      `hop-a-edge.jwk=${hopGrant}`,
      '--entry',
      `hop-a-mid.jwk=${hopGrant}`,
      '--entry',
      `hop-b-edge.jwk=${hopGrant}`,
      '--entry',
      `${keys['hop-old']}=${hopGrant}`,
      '--out',
      'keylog-0.wkl',
    ],
    dir,
  );
  await ok(
    [
      'keylog',
      'add',
      '--origin',
      'origin.jwk',
      '--log',
      'keylog-0.wkl',
      '--key',
      'hop-c-edge.jwk',
      '--may-sign',
      hopGrant,
      '--out',
      'keylog-1.wkl',
    ],
    dir,
  );
  await ok(
    [
      'keylog',
      'revoke',
      '--origin',
      'origin.jwk',
      '--log',
      'keylog-1.wkl',
      '--key',
      keys['hop-old']!,
      '--out',
      'keylog-2.wkl',
    ],
    dir,
  );
  writeFileSync(join(dir, 'policy.yaml'), policyYaml(keys));
  const policyDigest = (
    await ok(['policy', 'compile', 'policy.yaml', '--key', 'steer.jwk', '--out', 'policy.wsp'], dir)
  ).trim();
  mkdirSync(join(dir, 'hop-json'), { recursive: true });
  mkdirSync(join(dir, 'records'), { recursive: true });
  for (const [hop, start, end, joules, bytes] of RECORDS) {
    const name = `${hop}-${start / 1_000_000}s`;
    writeFileSync(
      join(dir, 'hop-json', `${name}.json`),
      JSON.stringify({
        room: '../room.wrd',
        start: String(start),
        end: String(end),
        sessions: 40,
        class: 'OnChipCounter',
        joules: String(joules),
        tracks: [{ track: 1, kind: 'media', direction: 'out', bytes: String(bytes) }],
      }),
    );
    await ok(
      [
        'record',
        'sign',
        `hop-json/${name}.json`,
        '--key',
        `hop-${hop}.jwk`,
        '--out',
        `records/${name}.wmh`,
      ],
      dir,
    );
  }
  writeFileSync(join(dir, 'request.json'), JSON.stringify(REQUEST));
  return { dir, keys, roomId, policyDigest };
}

/** The arguments of `decide` for the example. */
export function decideArgs(out = 'decision.wsd', manifest = 'manifest.json'): string[] {
  return [
    'decide',
    '--room',
    'room.wrd',
    '--key-log',
    'keylog-2.wkl',
    '--policy',
    'policy.wsp',
    '--key',
    'steer.jwk',
    '--records',
    'records',
    '--request',
    'request.json',
    '--session',
    SESSION,
    '--loads',
    LOADS,
    '--t',
    T,
    '--out-decision',
    out,
    '--out-manifest',
    manifest,
  ];
}

/** The arguments of `verify` for the example. */
export function verifyArgs(
  decision = 'decision.wsd',
  manifest: string | null = 'manifest.json',
): string[] {
  return [
    'verify',
    '--room',
    'room.wrd',
    '--key-log',
    'keylog-2.wkl',
    '--policy',
    'policy.wsp',
    '--decision',
    decision,
    '--records',
    'records',
    ...(manifest === null ? [] : ['--manifest', manifest]),
  ];
}
