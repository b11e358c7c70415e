/**
 * The accepted scenarios of §11, each with the facts it is about stated by hand: the reason,
 * the priority, each pathway's status, and the limits, figures, report or clones where the
 * scenario is about them. Figures are worked out here from the records' per-period values: a
 * pathway's J is the sum over the window's three periods of every hop's joules, its D the sum
 * of its edge hop's media bytes out (basis 1) or µs at or above the floor (basis 2).
 */
import type { SteeringRequest } from '@wai-steering/rule';
import { type HopSpec, ORIGIN, P, type PathwaySpec, type Scenario, SOLO, T } from './world.js';

/** µJ and bytes. */
const M = 1_000_000n;

interface PathwayPlan {
  readonly class: number;
  /** The edge hop's µJ per period. */
  readonly edge: bigint | ((k: number) => bigint);
  /** The interior hop's µJ per period; no interior hop when absent. */
  readonly core?: bigint;
  /** The interior hop's class when it differs from `class`. */
  readonly coreClass?: number;
  /** The edge hop's media bytes out per period. */
  readonly bytes: bigint;
  readonly edgeSkip?: readonly number[];
  readonly coreSkip?: readonly number[];
  readonly split?: boolean;
  readonly subscriber_us?: readonly bigint[];
  readonly coreSubscriber_us?: readonly bigint[];
}

/** A pathway of `group` whose hops are labelled `<group>/<id>/edge` and `<group>/<id>/core`. */
export function pathway(
  group: string,
  id: string,
  plan: PathwayPlan,
  more: Omit<PathwaySpec, 'id' | 'hops'> = {},
): PathwaySpec {
  const hops: HopSpec[] = [
    {
      label: `${group}/${id}/edge`,
      place: 1,
      class: plan.class,
      joules: plan.edge,
      bytes: plan.bytes,
      ...(plan.edgeSkip === undefined ? {} : { skip: plan.edgeSkip }),
      ...(plan.split === undefined ? {} : { split: plan.split }),
      ...(plan.subscriber_us === undefined ? {} : { subscriber_us: plan.subscriber_us }),
    },
  ];
  if (plan.core !== undefined) {
    hops.push({
      label: `${group}/${id}/core`,
      place: 2,
      class: plan.coreClass ?? plan.class,
      joules: plan.core,
      // An interior hop sends bytes too (to the edge); they are not the pathway's delivery.
      bytes: 5n * M,
      ...(plan.coreSkip === undefined ? {} : { skip: plan.coreSkip }),
      ...(plan.split === undefined ? {} : { split: plan.split }),
      ...(plan.coreSubscriber_us === undefined ? {} : { subscriber_us: plan.coreSubscriber_us }),
    });
  }
  return { id, ...more, hops };
}

const hls = (target: string, headers: Record<string, string> = {}): SteeringRequest => ({
  protocol: 'hls',
  target,
  headers,
});
const dash = (target: string, headers: Record<string, string> = {}): SteeringRequest => ({
  protocol: 'dash',
  target,
  headers,
});

const ALL = { latency: true, quality: true, capacity: true };
const fig = (cls: number, joules: bigint, delivery: bigint) => ({
  class: cls,
  joules: joules.toString(),
  delivery: delivery.toString(),
});

/** hls.js's first request: its pathway is "." until the tag's applies, its estimate 500 kbit/s. */
const HLSJS_FIRST = '/v1/steer?room=conf&_HLS_pathway=.&_HLS_throughput=500000';

// Three pathways of OnChipCounter: alpha 4 µJ/B, bravo 2 µJ/B, charlie 3 µJ/B.
const THREE: PathwaySpec[] = [
  pathway('three', 'alpha', { class: 4, edge: 3n * M, core: 1n * M, bytes: 1n * M }),
  pathway('three', 'bravo', { class: 4, edge: 2n * M, core: 1n * M, bytes: 1_500_000n }),
  pathway('three', 'charlie', { class: 4, edge: 5n * M, core: 1n * M, bytes: 2n * M }),
];

export const ONE_CLASS: Scenario = {
  name: 'accept/one-class-three-pathways',
  note: 'Three pathways with figures of one class (OnChipCounter), ordered by J/D: bravo 2, charlie 3, alpha 4 µJ per byte. hls.js first request.',
  env: 'origin',
  policy: { pathways: THREE },
  protocol: 'hls',
  request: hls(HLSJS_FIRST),
  expect: {
    reason: 'rank',
    priority: ['bravo', 'charlie', 'alpha'],
    status: { alpha: 'figure', bravo: 'figure', charlie: 'figure' },
    ttl: 300,
    report: { pathway: null, throughput: '500000', buffer: null },
    figures: {
      alpha: fig(4, 3n * (3n * M + 1n * M), 3n * M),
      bravo: fig(4, 3n * (2n * M + 1n * M), 3n * 1_500_000n),
      charlie: fig(4, 3n * (5n * M + 1n * M), 3n * 2n * M),
    },
    limits: { alpha: ALL, bravo: ALL, charlie: ALL },
  },
};

export const MIXED_CLASSES: Scenario = {
  name: 'accept/mixed-classes-ordered-by-class',
  note: 'Four classes: ordered CalibratedInstrument, OnChipCounter, ModelBased, Estimator whatever the figures (the Estimator pathway is the cheapest, the CalibratedInstrument one the dearest). Shaka, current pathway alpha.',
  env: 'origin',
  policy: {
    pathways: [
      pathway('mixed', 'alpha', { class: 2, edge: 800_000n, core: 200_000n, bytes: 1n * M }),
      pathway('mixed', 'bravo', { class: 5, edge: 9n * M, core: 1n * M, bytes: 1n * M }),
      pathway('mixed', 'charlie', { class: 3, edge: 400_000n, core: 100_000n, bytes: 1n * M }),
      pathway('mixed', 'delta', { class: 4, edge: 5n * M, core: 1n * M, bytes: 1n * M }),
    ],
  },
  protocol: 'hls',
  request: hls('/v1/steer?room=conf&_HLS_pathway=alpha&_HLS_throughput=6000000'),
  expect: {
    reason: 'rank',
    priority: ['bravo', 'delta', 'alpha', 'charlie'],
    status: { alpha: 'figure', bravo: 'figure', charlie: 'figure', delta: 'figure' },
    report: { pathway: 0, throughput: '6000000', buffer: null },
    figures: {
      alpha: fig(2, 3n * M, 3n * M),
      bravo: fig(5, 30n * M, 3n * M),
      charlie: fig(3, 1_500_000n, 3n * M),
      delta: fig(4, 18n * M, 3n * M),
    },
  },
};

export const UNMETERED: Scenario = {
  name: 'accept/unmetered-hop-ranked-last',
  note: "alpha's interior hop is unmetered: alpha has no figure and comes after every pathway with one, though its metered edge alone (0.1 µJ/B) is the cheapest. The client on alpha moves (video.js).",
  env: 'origin',
  policy: {
    pathways: [
      pathway('unmetered', 'alpha', {
        class: 4,
        edge: 100_000n,
        core: 0n,
        coreClass: 0,
        bytes: 1n * M,
      }),
      pathway('unmetered', 'bravo', { class: 4, edge: 2n * M, core: 1n * M, bytes: 1n * M }),
      pathway('unmetered', 'charlie', {
        class: 4,
        edge: 1_500_000n,
        core: 500_000n,
        bytes: 1n * M,
      }),
    ],
  },
  protocol: 'hls',
  request: hls('/v1/steer?room=conf&_HLS_pathway=alpha&_HLS_throughput=7340032'),
  expect: {
    reason: 'rank',
    priority: ['charlie', 'bravo', 'alpha'],
    status: { alpha: 'unmetered', bravo: 'figure', charlie: 'figure' },
    ttl: 300,
    figures: {
      alpha: fig(0, 0n, 0n),
      bravo: fig(4, 9n * M, 3n * M),
      charlie: fig(4, 6n * M, 3n * M),
    },
  },
};

export const STALE: Scenario = {
  name: 'accept/stale-evidence',
  note: "alpha's edge hop has no record for the window's middle period (a gap) and bravo's interior hop none for its last (it does not reach b): both stale, after the figures, by id. delta's hops cut their records every half period, which still tile the window. CMCD in the CMCD-Request header.",
  env: 'origin',
  policy: {
    pathways: [
      pathway('stale', 'alpha', {
        class: 4,
        edge: 500_000n,
        core: 500_000n,
        bytes: 1n * M,
        edgeSkip: [-2],
      }),
      pathway('stale', 'bravo', {
        class: 4,
        edge: 700_000n,
        core: 300_000n,
        bytes: 1n * M,
        coreSkip: [-1],
      }),
      pathway('stale', 'charlie', { class: 4, edge: 4n * M, core: 1n * M, bytes: 1n * M }),
      pathway('stale', 'delta', {
        class: 4,
        edge: 3n * M,
        core: 1n * M,
        bytes: 1n * M,
        split: true,
      }),
    ],
  },
  protocol: 'hls',
  request: hls('/v1/steer?room=conf&_HLS_pathway=charlie&_HLS_throughput=6000000', {
    'cmcd-request': 'bl=30000,mtp=6000',
  }),
  expect: {
    reason: 'rank',
    priority: ['delta', 'charlie', 'alpha', 'bravo'],
    status: { alpha: 'stale', bravo: 'stale', charlie: 'figure', delta: 'figure' },
    report: { pathway: 2, throughput: '6000000', buffer: '30000' },
    figures: {
      alpha: fig(0, 0n, 0n),
      bravo: fig(0, 0n, 0n),
      charlie: fig(4, 15n * M, 3n * M),
      delta: fig(4, 12n * M, 3n * M),
    },
  },
};

// A cheap pathway (alpha, 2 µJ/B) and a dear one (bravo, 5 µJ/B) the client is on.
const HELD: PathwaySpec[] = [
  pathway('held', 'alpha', { class: 4, edge: 1_500_000n, core: 500_000n, bytes: 1n * M }),
  pathway('held', 'bravo', { class: 4, edge: 4n * M, core: 1n * M, bytes: 1n * M }),
];

export const FLOOR: Scenario = {
  name: 'accept/floor-held',
  note: 'The client on bravo reports 3 Mbit/s: its sustainable tier is 1, the floor: held on bravo though alpha is cheaper, with the short TTL.',
  env: 'origin',
  policy: { pathways: HELD },
  protocol: 'hls',
  request: hls('/v1/steer?room=conf&_HLS_pathway=bravo&_HLS_throughput=3000000'),
  expect: {
    reason: 'floor',
    priority: ['bravo', 'alpha'],
    status: { alpha: 'figure', bravo: 'figure' },
    ttl: 15,
    report: { pathway: 1, throughput: '3000000', buffer: null },
  },
};

export const FLOOR_NONE: Scenario = {
  name: 'accept/floor-held-below-tier-0',
  note: 'The client on bravo reports 350 kbit/s, below tier 0: no sustainable tier, at its floor, held.',
  env: 'origin',
  policy: { pathways: HELD },
  protocol: 'hls',
  request: hls('/v1/steer?room=conf&_HLS_pathway=bravo&_HLS_throughput=350000'),
  expect: {
    reason: 'floor',
    priority: ['bravo', 'alpha'],
    status: { alpha: 'figure', bravo: 'figure' },
    ttl: 15,
    report: { pathway: 1, throughput: '350000', buffer: null },
  },
};

export const BUFFER: Scenario = {
  name: 'accept/short-buffer-held',
  note: 'The client on bravo has 2.5 s of buffer (CMCD bl in the query), below min_buffer_ms 6000: held, short TTL. Its throughput is 8 Mbit/s from _HLS_throughput; mtp is not read.',
  env: 'origin',
  policy: { pathways: HELD },
  protocol: 'hls',
  request: hls(
    '/v1/steer?room=conf&_HLS_pathway=bravo&_HLS_throughput=8000000&CMCD=bl%3D2500%2Cmtp%3D9000%2Cot%3Do',
  ),
  expect: {
    reason: 'buffer',
    priority: ['bravo', 'alpha'],
    status: { alpha: 'figure', bravo: 'figure' },
    ttl: 15,
    report: { pathway: 1, throughput: '8000000', buffer: '2500' },
  },
};

// alpha 2.0 µJ/B over [T0 − 3P, T0), then 1.4 µJ/B in the period from T0; bravo 2.1; charlie 3.
const HYSTERESIS: PathwaySpec[] = [
  pathway('hysteresis', 'alpha', {
    class: 4,
    edge: (k) => (k === 0 ? 1n * M : 1_600_000n),
    core: 400_000n,
    bytes: 1n * M,
  }),
  pathway('hysteresis', 'bravo', { class: 4, edge: 1_700_000n, core: 400_000n, bytes: 1n * M }),
  pathway('hysteresis', 'charlie', { class: 4, edge: 2_500_000n, core: 500_000n, bytes: 1n * M }),
];
const ON_BRAVO = hls('/v1/steer?room=conf&_HLS_pathway=bravo&_HLS_throughput=6000000');

export const HOLD: Scenario = {
  name: 'accept/hysteresis-holds',
  note: 'alpha (2.0 µJ/B) is not below bravo (2.1) by more than h = 10%: 6e6 × 3e6 × 1.1e6 is not below 6.3e6 × 3e6 × 1e6. The client stays on bravo.',
  env: 'origin',
  policy: { pathways: HYSTERESIS },
  protocol: 'hls',
  request: ON_BRAVO,
  sessionSeed: 'hysteresis-client',
  expect: {
    reason: 'hold',
    priority: ['bravo', 'alpha', 'charlie'],
    status: { alpha: 'figure', bravo: 'figure', charlie: 'figure' },
    ttl: 300,
    figures: { alpha: fig(4, 6n * M, 3n * M), bravo: fig(4, 6_300_000n, 3n * M) },
  },
};

export const HOLD_LATER: Scenario = {
  name: 'accept/hysteresis-moves-a-period-later',
  note: "The same client a period later: the window moved by P and alpha's newest period (1.4 µJ/B) brings it to 1.8, which beats bravo's 2.1 by more than 10%. The client moves to alpha.",
  env: 'origin',
  policy: { pathways: HYSTERESIS },
  t: T + P,
  protocol: 'hls',
  request: ON_BRAVO,
  sessionSeed: 'hysteresis-client',
  expect: {
    reason: 'rank',
    priority: ['alpha', 'bravo', 'charlie'],
    status: { alpha: 'figure', bravo: 'figure', charlie: 'figure' },
    ttl: 300,
    figures: { alpha: fig(4, 5_400_000n, 3n * M), bravo: fig(4, 6_300_000n, 3n * M) },
  },
};

export const HOLD_AT_MARGIN: Scenario = {
  name: 'accept/hysteresis-exactly-at-margin-holds',
  note: 'alpha 2.0 against bravo 2.2 with h = 10%: 6e6 × 3e6 × 1.1e6 = 6.6e6 × 3e6 × 1e6, not below: exactly at the margin holds (C9).',
  env: 'origin',
  policy: {
    pathways: [
      pathway('margin', 'alpha', { class: 4, edge: 1_600_000n, core: 400_000n, bytes: 1n * M }),
      pathway('margin', 'bravo', { class: 4, edge: 1_800_000n, core: 400_000n, bytes: 1n * M }),
    ],
  },
  protocol: 'hls',
  request: ON_BRAVO,
  expect: {
    reason: 'hold',
    priority: ['bravo', 'alpha'],
    status: { alpha: 'figure', bravo: 'figure' },
    figures: { alpha: fig(4, 6n * M, 3n * M), bravo: fig(4, 6_600_000n, 3n * M) },
  },
};

export const CLONES: Scenario = {
  name: 'accept/pathway-clones',
  note: 'Clones: alpha-eu of alpha with a host; alpha-eu2 a clone of that clone with a host and params; bravo-p of bravo with params only; bravo-same with neither. Each clone has its own hop; the cheapest is the clone of a clone.',
  env: 'origin',
  policy: {
    pathways: [
      pathway('clones', 'alpha', { class: 4, edge: 3n * M, bytes: 1n * M }),
      pathway('clones', 'bravo', { class: 4, edge: 2_500_000n, bytes: 1n * M }),
      pathway(
        'clones',
        'alpha-eu',
        { class: 4, edge: 2n * M, bytes: 1n * M },
        { base: 0, host: 'eu.cdn.example.com' },
      ),
      pathway(
        'clones',
        'alpha-eu2',
        { class: 4, edge: 1n * M, bytes: 1n * M },
        {
          base: 2,
          host: 'eu2.cdn.example.com',
          params: [
            { name: 'region', value: 'eu-2' },
            { name: 'tok', value: 'a%2Fb' },
          ],
        },
      ),
      pathway(
        'clones',
        'bravo-p',
        { class: 4, edge: 1_500_000n, bytes: 1n * M },
        { base: 1, params: [{ name: 'cdn', value: 'p' }] },
      ),
      pathway('clones', 'bravo-same', { class: 4, edge: 4n * M, bytes: 1n * M }, { base: 1 }),
    ],
  },
  protocol: 'hls',
  request: hls('/v1/steer?room=conf&_HLS_pathway=alpha&_HLS_throughput=5000000'),
  expect: {
    reason: 'rank',
    priority: ['alpha-eu2', 'bravo-p', 'alpha-eu', 'bravo', 'alpha', 'bravo-same'],
    status: {
      alpha: 'figure',
      bravo: 'figure',
      'alpha-eu': 'figure',
      'alpha-eu2': 'figure',
      'bravo-p': 'figure',
      'bravo-same': 'figure',
    },
    clones:
      '"PATHWAY-CLONES":[' +
      '{"BASE-ID":"alpha","ID":"alpha-eu","URI-REPLACEMENT":{"HOST":"eu.cdn.example.com"}},' +
      '{"BASE-ID":"alpha-eu","ID":"alpha-eu2","URI-REPLACEMENT":{"HOST":"eu2.cdn.example.com","PARAMS":{"region":"eu-2","tok":"a%2Fb"}}},' +
      '{"BASE-ID":"bravo","ID":"bravo-p","URI-REPLACEMENT":{"PARAMS":{"cdn":"p"}}},' +
      '{"BASE-ID":"bravo","ID":"bravo-same","URI-REPLACEMENT":{}}]',
  },
};

// Bands: bravo [0, 150 000), charlie [150 000, 400 000); alpha (the cheapest) has none.
const BANDS: PathwaySpec[] = [
  pathway('bands', 'alpha', { class: 4, edge: 1_500_000n, core: 500_000n, bytes: 1n * M }),
  pathway(
    'bands',
    'bravo',
    { class: 4, edge: 3n * M, core: 1n * M, bytes: 1n * M },
    { min_share_ppm: 150_000 },
  ),
  pathway(
    'bands',
    'charlie',
    { class: 4, edge: 200_000n, core: 0n, coreClass: 0, bytes: 1n * M },
    { min_share_ppm: 250_000 },
  ),
];
const SHAKA_FIRST = hls('/v1/steer?room=conf');
const BAND_STATUS = { alpha: 'figure', bravo: 'figure', charlie: 'unmetered' };

export const BAND: Scenario = {
  name: 'accept/session-placed-by-band',
  note: "A session whose draw lands in bravo's band [0, 150000) is placed on bravo, though alpha is cheaper (shaka's first request: no report).",
  env: 'origin',
  policy: { pathways: BANDS },
  protocol: 'hls',
  request: SHAKA_FIRST,
  band: 'bravo',
  expect: {
    reason: 'share',
    priority: ['bravo', 'alpha', 'charlie'],
    status: BAND_STATUS,
    ttl: 300,
    band: 'bravo',
    report: { pathway: null, throughput: null, buffer: null },
  },
};

export const BAND_UNMETERED: Scenario = {
  name: 'accept/session-placed-by-band-on-unmetered',
  note: "A session whose draw lands in charlie's band [150000, 400000) is placed on charlie, which has no figure: the minimum share keeps its evidence fresh, and it is the same share whether its energy is known or not.",
  env: 'origin',
  policy: { pathways: BANDS },
  protocol: 'hls',
  request: SHAKA_FIRST,
  band: 'charlie',
  expect: {
    reason: 'share',
    priority: ['charlie', 'alpha', 'bravo'],
    status: BAND_STATUS,
    band: 'charlie',
  },
};

export const OUTSIDE_BAND: Scenario = {
  name: 'accept/outside-band-unmetered-last',
  note: 'Beside the sessions the bands place, one whose draw is in no band (at or above 400000): ranked, and the unmetered charlie comes last.',
  env: 'origin',
  policy: { pathways: BANDS },
  protocol: 'hls',
  request: SHAKA_FIRST,
  band: null,
  expect: {
    reason: 'rank',
    priority: ['alpha', 'bravo', 'charlie'],
    status: BAND_STATUS,
    band: null,
  },
};

// alpha 1 µJ/B at capacity 100 with load 100; bravo 3; charlie 2 (capacity 50, load 49).
const CAPACITY: PathwaySpec[] = [
  pathway(
    'capacity',
    'alpha',
    { class: 4, edge: 700_000n, core: 300_000n, bytes: 1n * M },
    { capacity: 100 },
  ),
  pathway('capacity', 'bravo', { class: 4, edge: 2_500_000n, core: 500_000n, bytes: 1n * M }),
  pathway(
    'capacity',
    'charlie',
    { class: 4, edge: 1_500_000n, core: 500_000n, bytes: 1n * M },
    { capacity: 50 },
  ),
];

export const AT_CAPACITY: Scenario = {
  name: 'accept/pathway-at-capacity',
  note: 'alpha, the cheapest, is at its capacity (load 100 of 100) and the client is not on it: not within the limits. charlie (49 of 50) is.',
  env: 'origin',
  policy: { pathways: CAPACITY },
  loads: [100, 40, 49],
  protocol: 'hls',
  request: ON_BRAVO,
  expect: {
    reason: 'rank',
    priority: ['charlie', 'bravo', 'alpha'],
    status: { alpha: 'figure', bravo: 'figure', charlie: 'figure' },
    limits: {
      alpha: { latency: true, quality: true, capacity: false },
      bravo: ALL,
      charlie: ALL,
    },
  },
};

export const CURRENT_AT_CAPACITY: Scenario = {
  name: 'accept/current-pathway-at-capacity-within',
  note: "The client is on alpha, at its capacity (load 100 of 100): alpha's load already counts it, so alpha is within the limits for it.",
  env: 'origin',
  policy: { pathways: CAPACITY },
  loads: [100, 40, 49],
  protocol: 'hls',
  request: hls('/v1/steer?room=conf&_HLS_pathway=alpha&_HLS_throughput=6000000'),
  expect: {
    reason: 'rank',
    priority: ['alpha', 'charlie', 'bravo'],
    status: { alpha: 'figure', bravo: 'figure', charlie: 'figure' },
    limits: { alpha: ALL, bravo: ALL, charlie: ALL },
  },
};

export const LATENCY: Scenario = {
  name: 'accept/past-latency-ceiling',
  note: 'alpha, the cheapest, states 400 ms against a ceiling of 150: not within the limits. charlie states exactly 150: within.',
  env: 'origin',
  policy: {
    pathways: [
      pathway(
        'latency',
        'alpha',
        { class: 4, edge: 700_000n, core: 300_000n, bytes: 1n * M },
        { latency_ms: 400 },
      ),
      pathway('latency', 'bravo', { class: 4, edge: 2_500_000n, core: 500_000n, bytes: 1n * M }),
      pathway(
        'latency',
        'charlie',
        { class: 4, edge: 1_500_000n, core: 500_000n, bytes: 1n * M },
        { latency_ms: 150 },
      ),
    ],
  },
  protocol: 'hls',
  request: hls(HLSJS_FIRST),
  expect: {
    reason: 'rank',
    priority: ['charlie', 'bravo', 'alpha'],
    status: { alpha: 'figure', bravo: 'figure', charlie: 'figure' },
    limits: {
      alpha: { latency: false, quality: true, capacity: true },
      bravo: ALL,
      charlie: ALL,
    },
  },
};

export const PER_SECOND: Scenario = {
  name: 'accept/per-second-basis',
  note: "Basis 2, floor 1: D is the edge hop's µs of delivery in layer classes 1 to 7. alpha: 9 J over 24 s; bravo: 6 J over 6 s (most of its delivery is below the floor, and its bytes would have made it the cheaper per byte). The room authority signs the policy and the decision (it needs no live/steer).",
  env: 'origin',
  policy: {
    overrides: { basis: 2 },
    signer: ORIGIN.authority,
    pathways: [
      pathway('per-second', 'alpha', {
        class: 4,
        edge: 2n * M,
        core: 1n * M,
        bytes: 1n * M,
        subscriber_us: [1n * M, 4n * M, 3n * M, 1n * M, 0n, 0n, 0n, 0n],
        coreSubscriber_us: [9n * M, 9n * M, 9n * M, 0n, 0n, 0n, 0n, 0n],
      }),
      pathway('per-second', 'bravo', {
        class: 4,
        edge: 1n * M,
        core: 1n * M,
        bytes: 3n * M,
        subscriber_us: [6n * M, 1n * M, 1n * M, 0n, 0n, 0n, 0n, 0n],
      }),
    ],
  },
  decisionSigner: ORIGIN.authority,
  protocol: 'hls',
  request: hls('/v1/steer?room=conf&_HLS_pathway=bravo&_HLS_throughput=9000000'),
  expect: {
    reason: 'rank',
    priority: ['alpha', 'bravo'],
    status: { alpha: 'figure', bravo: 'figure' },
    figures: { alpha: fig(4, 9n * M, 24n * M), bravo: fig(4, 6n * M, 6n * M) },
  },
};

const DASH_POLICY = {
  overrides: {
    flags: 1,
    server_uri: 'https://steer.example.com/v1/steer/dash?room=conf&fmt=json',
    reload_uri: 'https://steer.example.com/v1/steer/dash',
  },
  pathways: [
    pathway('dash', 'alpha', { class: 4, edge: 1_500_000n, core: 500_000n, bytes: 1n * M }),
    pathway('dash', 'bravo', { class: 4, edge: 2_500_000n, core: 500_000n, bytes: 1n * M }),
    pathway('dash', 'charlie', { class: 4, edge: 100_000n, core: 0n, coreClass: 0, bytes: 1n * M }),
  ],
};

export const DASH_FIRST: Scenario = {
  name: 'accept/dash-query-before-start',
  note: 'DASH (protocol 2), flag bit 0 set: the MPD says queryBeforeStart="true", so the first request carries no _DASH_ parameters and the decision has no report. The reload URI has no "?", so the manifest appends "?wai_session=".',
  env: 'origin',
  policy: DASH_POLICY,
  protocol: 'dash',
  request: dash('/v1/steer/dash?room=conf&fmt=json'),
  expect: {
    reason: 'rank',
    priority: ['alpha', 'bravo', 'charlie'],
    status: { alpha: 'figure', bravo: 'figure', charlie: 'unmetered' },
    report: { pathway: null, throughput: null, buffer: null },
  },
};

export const DASH_REPORTED: Scenario = {
  name: 'accept/dash-reported',
  note: 'A later dash.js request: the service locations used since the last request, quoted and URL-encoded ("bravo,alpha"), their throughputs (the second unknown), and CMCD v2 in the query with inner lists and object types: c = bravo at position 0, T = 9000000, B = 12000 (the least of the bl list). alpha beats bravo by more than 10%: rank.',
  env: 'origin',
  policy: DASH_POLICY,
  protocol: 'dash',
  request: dash(
    '/v1/steer/dash?wai_session=00112233445566778899aabbccddeeff&_DASH_pathway=%22bravo%2Calpha%22&_DASH_throughput=9000000%2C&CMCD=bl%3D(21300%3Bv%2012000%3Ba)%2Cmtp%3D(25400%3Bv)%2Cot%3Do%2Csf%3Dd%2Cst%3Dl%2Cv%3D2',
  ),
  expect: {
    reason: 'rank',
    priority: ['alpha', 'bravo', 'charlie'],
    status: { alpha: 'figure', bravo: 'figure', charlie: 'unmetered' },
    report: { pathway: 1, throughput: '9000000', buffer: '12000' },
  },
};

// alpha past the latency ceiling, bravo below the floor tier, charlie at capacity.
const NONE: PathwaySpec[] = [
  pathway(
    'none',
    'alpha',
    { class: 4, edge: 700_000n, core: 300_000n, bytes: 1n * M },
    { latency_ms: 400 },
  ),
  pathway(
    'none',
    'bravo',
    { class: 4, edge: 2_500_000n, core: 500_000n, bytes: 1n * M },
    { top_tier: 0 },
  ),
  pathway(
    'none',
    'charlie',
    { class: 4, edge: 1_500_000n, core: 500_000n, bytes: 1n * M },
    { capacity: 10 },
  ),
];
const NONE_LIMITS = {
  alpha: { latency: false, quality: true, capacity: true },
  bravo: { latency: true, quality: false, capacity: true },
  charlie: { latency: true, quality: true, capacity: false },
};

export const NO_PATHWAY: Scenario = {
  name: 'accept/no-pathway-within-limits',
  note: 'alpha is past the latency ceiling, bravo carries only tier 0 (below the floor 1), charlie is at capacity: none is within the limits, and the client stays on bravo with the short TTL.',
  env: 'origin',
  policy: { pathways: NONE },
  loads: [0, 0, 10],
  protocol: 'hls',
  request: ON_BRAVO,
  expect: {
    reason: 'none',
    priority: ['bravo', 'alpha', 'charlie'],
    status: { alpha: 'figure', bravo: 'figure', charlie: 'figure' },
    ttl: 15,
    limits: NONE_LIMITS,
  },
};

export const NO_PATHWAY_NO_CURRENT: Scenario = {
  name: 'accept/no-pathway-within-limits-no-current',
  note: 'No pathway within the limits and no current pathway (hls.js first request): the first pathway of the order.',
  env: 'origin',
  policy: { pathways: NONE },
  loads: [0, 0, 10],
  protocol: 'hls',
  request: hls(HLSJS_FIRST),
  expect: {
    reason: 'none',
    priority: ['alpha', 'charlie', 'bravo'],
    status: { alpha: 'figure', bravo: 'figure', charlie: 'figure' },
    ttl: 15,
    limits: NONE_LIMITS,
  },
};

export const TWO_CLASSES: Scenario = {
  name: 'accept/two-classes-in-one-pathway',
  note: "alpha's edge is OnChipCounter and its interior ModelBased: mixed, no figure. charlie's edge delivered no media bytes: empty, no figure.",
  env: 'origin',
  policy: {
    pathways: [
      pathway('two-classes', 'alpha', {
        class: 4,
        edge: 500_000n,
        core: 500_000n,
        coreClass: 2,
        bytes: 1n * M,
      }),
      pathway('two-classes', 'bravo', {
        class: 4,
        edge: 2_500_000n,
        core: 500_000n,
        bytes: 1n * M,
      }),
      pathway('two-classes', 'charlie', { class: 4, edge: 2n * M, bytes: 0n }),
      pathway('two-classes', 'delta', {
        class: 4,
        edge: 1_500_000n,
        core: 500_000n,
        bytes: 1n * M,
      }),
    ],
  },
  protocol: 'hls',
  request: hls('/v1/steer?room=conf&_HLS_pathway=alpha&_HLS_throughput=6000000'),
  expect: {
    reason: 'rank',
    priority: ['delta', 'bravo', 'alpha', 'charlie'],
    status: { alpha: 'mixed', bravo: 'figure', charlie: 'empty', delta: 'figure' },
    figures: { alpha: fig(0, 0n, 0n), charlie: fig(0, 0n, 0n) },
  },
};

export const SOLO_ROOM: Scenario = {
  name: 'accept/room-without-origin',
  note: 'A room that names no origin: no key log, and its authority signs the policy, the decision and the records of the one hop it runs. The other pathway has no record: stale.',
  env: 'solo',
  policy: {
    pathways: [
      {
        id: 'solo',
        hops: [
          { label: 'solo/solo/edge', key: SOLO.authority, class: 5, joules: 2n * M, bytes: 1n * M },
        ],
      },
      {
        id: 'other',
        hops: [
          {
            label: 'solo/other/edge',
            key: SOLO.other,
            class: 5,
            joules: 1n * M,
            bytes: 1n * M,
            skip: [-4, -3, -2, -1, 0],
          },
        ],
      },
    ],
  },
  protocol: 'hls',
  request: hls(HLSJS_FIRST),
  expect: {
    reason: 'rank',
    priority: ['solo', 'other'],
    status: { solo: 'figure', other: 'stale' },
    figures: { solo: fig(5, 6n * M, 3n * M), other: fig(0, 0n, 0n) },
  },
};

export const BEFORE_FIRST_WINDOW: Scenario = {
  name: 'accept/hold-between-unknowns',
  note: 'At t = L + 1 s the window is [0, 0): no hop is covered and every pathway is stale. Between two pathways with no figure nothing says either is cheaper: the client on bravo stays.',
  env: 'origin',
  policy: {
    pathways: [
      pathway('early', 'alpha', { class: 4, edge: 1n * M, bytes: 1n * M }),
      pathway('early', 'bravo', { class: 4, edge: 2n * M, bytes: 1n * M }),
    ],
  },
  t: 3_000_000n,
  protocol: 'hls',
  request: ON_BRAVO,
  expect: {
    reason: 'hold',
    priority: ['bravo', 'alpha'],
    status: { alpha: 'stale', bravo: 'stale' },
    ttl: 300,
  },
};

const CAPACITY_ZERO: PathwaySpec[] = [
  pathway(
    'capacity-zero',
    'alpha',
    { class: 4, edge: 700_000n, core: 300_000n, bytes: 1n * M },
    { capacity: 0 },
  ),
  pathway('capacity-zero', 'bravo', { class: 4, edge: 2_500_000n, core: 500_000n, bytes: 1n * M }),
];

export const CAPACITY_ZERO_CURRENT: Scenario = {
  name: 'accept/capacity-zero-current-within',
  note: 'alpha has capacity 0 and load 0; the client is on it: within the limits for it (C9), and it stays first.',
  env: 'origin',
  policy: { pathways: CAPACITY_ZERO },
  protocol: 'hls',
  request: hls('/v1/steer?room=conf&_HLS_pathway=alpha&_HLS_throughput=6000000'),
  expect: {
    reason: 'rank',
    priority: ['alpha', 'bravo'],
    status: { alpha: 'figure', bravo: 'figure' },
    limits: { alpha: ALL, bravo: ALL },
  },
};

export const CAPACITY_ZERO_OTHER: Scenario = {
  name: 'accept/capacity-zero-other-client',
  note: 'The same policy for a client on bravo: alpha (capacity 0, load 0) is not within the limits for it.',
  env: 'origin',
  policy: { pathways: CAPACITY_ZERO },
  protocol: 'hls',
  request: ON_BRAVO,
  expect: {
    reason: 'rank',
    priority: ['bravo', 'alpha'],
    status: { alpha: 'figure', bravo: 'figure' },
    limits: { alpha: { latency: true, quality: true, capacity: false }, bravo: ALL },
  },
};

export const BAND_OUTSIDE_LIMITS: Scenario = {
  name: 'accept/band-pathway-outside-limits',
  note: "The draw lands in bravo's band, but bravo is past the latency ceiling: only the band that holds the draw is considered, and step 4 does not apply (C9).",
  env: 'origin',
  policy: {
    pathways: [
      pathway('band-limits', 'alpha', {
        class: 4,
        edge: 1_500_000n,
        core: 500_000n,
        bytes: 1n * M,
      }),
      pathway(
        'band-limits',
        'bravo',
        { class: 4, edge: 3n * M, core: 1n * M, bytes: 1n * M },
        { min_share_ppm: 300_000, latency_ms: 400 },
      ),
    ],
  },
  protocol: 'hls',
  request: SHAKA_FIRST,
  band: 'bravo',
  expect: {
    reason: 'rank',
    priority: ['alpha', 'bravo'],
    status: { alpha: 'figure', bravo: 'figure' },
    band: 'bravo',
    limits: { alpha: ALL, bravo: { latency: false, quality: true, capacity: true } },
  },
};

export const BUFFER_BEFORE_SHARE: Scenario = {
  name: 'accept/buffer-before-share',
  note: "A session in bravo's band, on alpha with a 1 s buffer: step 1 (buffer) comes before step 4 (share), whatever §6.3's wording (C9).",
  env: 'origin',
  policy: { pathways: BANDS },
  protocol: 'hls',
  request: hls('/v1/steer?room=conf&_HLS_pathway=alpha&_HLS_throughput=6000000', {
    'cmcd-request': 'bl=1000',
  }),
  band: 'bravo',
  expect: {
    reason: 'buffer',
    priority: ['alpha', 'bravo', 'charlie'],
    status: BAND_STATUS,
    ttl: 15,
    band: 'bravo',
    report: { pathway: 0, throughput: '6000000', buffer: '1000' },
  },
};

export const SIGNER_NO_FIGURES: Scenario = {
  ...BEFORE_FIRST_WINDOW,
  name: 'accept/signer-without-energy-labels-states-no-figure',
  note: 'Every pathway stale: the decision states no figure, so its signer (live/steer, no energy/ label) needs none (C9: the labels are those of the classes stated with status figure).',
  decisionSigner: ORIGIN.steerNoEnergy,
};

/** 2^127 µJ: three periods of it do not fit a u128. */
export const HUGE = 1n << 127n;

export const BEYOND_U128: Scenario = {
  name: 'accept/sum-beyond-u128-stale',
  note: "alpha's hop states 2^127 µJ per period: J over the window would not fit a u128, so the server names no record for alpha and it is stale (C9).",
  env: 'origin',
  policy: {
    pathways: [
      pathway('u128', 'alpha', { class: 4, edge: HUGE, bytes: 1n * M }),
      pathway('u128', 'bravo', { class: 4, edge: 2n * M, bytes: 1n * M }),
    ],
  },
  protocol: 'hls',
  request: hls(HLSJS_FIRST),
  expect: {
    reason: 'rank',
    priority: ['bravo', 'alpha'],
    status: { alpha: 'stale', bravo: 'figure' },
    figures: { alpha: fig(0, 0n, 0n), bravo: fig(4, 6n * M, 3n * M) },
  },
};

export const ACCEPTED: readonly Scenario[] = [
  ONE_CLASS,
  MIXED_CLASSES,
  UNMETERED,
  STALE,
  FLOOR,
  FLOOR_NONE,
  BUFFER,
  HOLD,
  HOLD_LATER,
  HOLD_AT_MARGIN,
  CLONES,
  BAND,
  BAND_UNMETERED,
  OUTSIDE_BAND,
  AT_CAPACITY,
  CURRENT_AT_CAPACITY,
  LATENCY,
  PER_SECOND,
  DASH_FIRST,
  DASH_REPORTED,
  NO_PATHWAY,
  NO_PATHWAY_NO_CURRENT,
  TWO_CLASSES,
  SOLO_ROOM,
  BEFORE_FIRST_WINDOW,
  CAPACITY_ZERO_CURRENT,
  CAPACITY_ZERO_OTHER,
  BAND_OUTSIDE_LIMITS,
  BUFFER_BEFORE_SHARE,
  SIGNER_NO_FIGURES,
  BEYOND_U128,
];
