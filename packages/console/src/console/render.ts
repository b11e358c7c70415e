/** The console's views of a `/status` snapshot: the header, pathway cards, hops, decisions. */
import { byId, fill, h } from '../common/dom.js';
import {
  abbrev,
  ago,
  clockTime,
  delivery,
  duration,
  groupDigits,
  joules,
  percent,
} from '../common/format.js';
import { specLink } from '../common/spec.js';
import { PATHWAY_COLOURS } from './charts.js';
import type { HopProblem, LiveStatus, PathwayStatus, Status } from './types.js';

const BASIS = ['', 'joules per delivered byte', 'joules per delivered second at the floor tier'];

function span(s: Status, start: string, end: string): string {
  void s;
  return `${clockTime(start)}–${clockTime(end)}`;
}

function periods(s: Status, start: string, end: string): string {
  const n = (BigInt(end) - BigInt(start)) / BigInt(s.policy.period_us);
  return n === 1n ? '1 period' : `${n} periods`;
}

export function renderMeta(s: Status): void {
  const fact = (k: string, v: string, title?: string) =>
    h('span', title === undefined ? {} : { title }, `${k} `, h('b', {}, v));
  fill(
    byId('meta'),
    fact('room', `${s.room.name} · ${abbrev(s.room.id)}`, s.room.id),
    fact('policy', abbrev(s.policy.digest), s.policy.digest),
    fact(
      'P / W / L',
      `${duration(s.policy.period_us)} / ${duration(s.policy.window_us)} / ${duration(s.policy.lag_us)}`,
    ),
    fact('basis', String(s.policy.basis), BASIS[s.policy.basis]),
    fact('sessions', groupDigits(String(s.sessions))),
    fact('decisions', groupDigits(String(s.decisions.total))),
  );
  fill(
    byId('window'),
    `window [${clockTime(s.window.a)}, ${clockTime(s.window.b)}) UTC · order: ${s.order.join(' → ')} · floor tier ${s.policy.floor}`,
  );
}

/** One problem of a hop's records, in words (§5.2). */
function problemText(s: Status, pr: HopProblem): string {
  const when = span(s, pr.start, pr.end);
  const detail = pr.detail === undefined ? '' : ` (${pr.detail})`;
  switch (pr.kind) {
    case 'missing':
      return `no record of ${periods(s, pr.start, pr.end)} ${when}`;
    case 'overlapping':
      return `records overlap over ${when}`;
    case 'not_tiling':
      return `a record of ${when} does not tile the window${detail}`;
    default:
      return `${pr.kind} ${when}${detail}`;
  }
}

function whyStale(s: Status, p: PathwayStatus): HTMLElement | null {
  if (p.stale === null) return null;
  const items = p.stale.hops.map((hop) =>
    h(
      'li',
      {},
      h(
        'b',
        {},
        `hop ${hop.index + 1} (${hop.place}, `,
        h('span', { class: 'mono' }, abbrev(hop.key)),
        ')',
      ),
      ': ',
      hop.problems.length === 0
        ? 'its records do not tile the window'
        : hop.problems.map((pr) => problemText(s, pr)).join('; '),
    ),
  );
  return h(
    'div',
    { class: 'why', 'data-testid': 'why-stale' },
    h('b', {}, 'Stale: '),
    'energy over the window is not known (',
    specLink('§5.2'),
    ')',
    p.stale.note === null ? null : h('p', {}, p.stale.note),
    items.length === 0 ? null : h('ul', {}, ...items),
  );
}

/** Why a pathway that is not stale has no figure (`/status`'s `why`): the hops it names. */
function whyNoFigure(p: PathwayStatus): HTMLElement | null {
  if (p.why === null || p.why === undefined) return null;
  const hops = p.why.hops.map((hop) =>
    h(
      'li',
      {},
      `hop ${hop.index + 1} (${hop.place}, `,
      h('span', { class: 'mono' }, abbrev(hop.key)),
      ')',
    ),
  );
  return h(
    'div',
    { class: 'why', 'data-testid': 'why-nofigure' },
    h('b', {}, `${p.status[0]!.toUpperCase()}${p.status.slice(1)}: `),
    p.why.text,
    hops.length === 0 ? null : h('ul', {}, ...hops),
  );
}

/** J of a pathway without a figure: 0 stated (§5.4), and what its records hold when known. */
function joulesNoFigure(p: PathwayStatus): string {
  const held = p.why?.records_joules_uj;
  return held === undefined || held === '0'
    ? '0 (not known)'
    : `0 stated (no figure); its records hold ${joules(held)}`;
}

function limitPill(ok: boolean, text: string, title: string): HTMLElement {
  return h('span', { class: `pill ${ok ? 'ok' : 'bad'}`, title }, `${ok ? '✓' : '✗'} ${text}`);
}

const LIVE_SOURCE: Record<LiveStatus['source'], { pill: string; title: string }> = {
  template: {
    pill: '',
    title:
      "the template's capacity: no edge hop of this pathway has reported, or it takes no live values",
  },
  reports: {
    pill: 'ok',
    title: "the sum of its edge hops' fresh reports (GAS), within the template's capacity",
  },
  expired: {
    pill: 'warn',
    title: 'every report of its edge hops has expired: capacity 0 until one reports again',
  },
};

/** The pathway's live capacity, its source and its newest report's age (docs/live-policy.md). */
function liveFacts(live: LiveStatus): HTMLElement {
  const source = LIVE_SOURCE[live.source] ?? { pill: '', title: live.source };
  return h(
    'dl',
    { class: 'facts live-facts', 'data-testid': 'live', 'data-source': live.source },
    h('dt', {}, 'live capacity'),
    h(
      'dd',
      {},
      h(
        'span',
        { 'data-testid': 'live-capacity' },
        live.capacity === null ? 'no limit' : groupDigits(String(live.capacity)),
      ),
      live.capacity === null ? '' : live.capacity === 1 ? ' session' : ' sessions',
      h(
        'span',
        { class: `pill ${source.pill}`, title: source.title, 'data-testid': 'live-source' },
        live.source,
      ),
    ),
    h('dt', {}, 'live latency'),
    h('dd', { 'data-testid': 'live-latency' }, `${groupDigits(String(live.latency_ms))} ms`),
    h('dt', {}, 'newest report'),
    h(
      'dd',
      live.report_age_s === null ? {} : { title: `${live.report_age_s.toFixed(3)} s` },
      h('span', { 'data-testid': 'live-age' }, ago(live.report_age_s)),
    ),
  );
}

/**
 * Where a new session goes (a client on no pathway whose draw is in no minimum-share band): the
 * first pathway of the order within every limit, as the rule places it (§6.4, reason rank);
 * `undefined` when none is.
 */
export function newSessionsTo(s: Status): string | undefined {
  const ok = (p: PathwayStatus): boolean =>
    p.limits.latency.ok && p.limits.quality.ok && p.limits.capacity.ok;
  return s.order.find((id) => {
    const p = s.pathways.find((x) => x.id === id);
    return p !== undefined && ok(p);
  });
}

/** A pathway at its capacity: full, and where new sessions go instead. */
function fullLine(s: Status, p: PathwayStatus): HTMLElement | null {
  if (p.capacity === null || p.limits.capacity.ok) return null;
  const to = newSessionsTo(s);
  return h(
    'div',
    { class: 'full-line', 'data-testid': 'full' },
    h('b', {}, 'full: '),
    to === undefined
      ? 'no pathway is within the limits: new sessions stay where their player is'
      : `new sessions go to ${to}`,
  );
}

function card(s: Status, p: PathwayStatus): HTMLElement {
  const colour = PATHWAY_COLOURS[p.index % PATHWAY_COLOURS.length]!;
  const l = p.limits;
  const loadPct = p.capacity === null ? 0 : Math.min(100, (p.load * 100) / Math.max(1, p.capacity));
  const barClass =
    p.capacity === null ? 'bar' : loadPct >= 100 ? 'bar full' : loadPct >= 80 ? 'bar near' : 'bar';
  const share = p.firstShare;
  return h(
    'article',
    { class: 'card pathway', 'data-status': p.status, 'data-pathway': p.id },
    h(
      'div',
      { class: 'head' },
      h('span', { class: 'id', style: `color:${colour}` }, p.id),
      h('span', { class: `pill ${p.status}`, 'data-testid': 'status' }, p.status),
      p.classLabel === null ? null : h('span', { class: 'pill' }, p.classLabel),
      h(
        'span',
        {
          class: 'place',
          title:
            'its place in the order: by the class behind its figure (no figure last), then by its figure, then by id',
        },
        'order ',
        h('b', { 'data-testid': 'order' }, `${p.order} of ${s.pathways.length}`),
      ),
    ),
    p.cloneOf === null
      ? null
      : h(
          'div',
          { class: 'sub muted' },
          `a clone of ${p.cloneOf}${p.host === null ? '' : `, through ${p.host}`}`,
        ),
    h(
      'div',
      { class: 'figure-line' },
      p.figure === null
        ? h('span', { class: 'figure-none', 'data-testid': 'figure' }, 'no figure')
        : h('span', { class: 'figure-big', 'data-testid': 'figure' }, p.figure.text),
      h(
        'span',
        { class: 'muted', 'data-testid': 'ranked' },
        p.figure === null || p.classLabel === null
          ? 'no figure: after every pathway with one'
          : `compared with ${p.classLabel} figures alone`,
      ),
    ),
    fullLine(s, p),
    whyStale(s, p),
    whyNoFigure(p),
    h(
      'dl',
      { class: 'facts' },
      h('dt', {}, 'J'),
      h(
        'dd',
        { title: `${groupDigits(p.joules_uj)} µJ`, 'data-testid': 'joules' },
        p.figure === null
          ? joulesNoFigure(p)
          : `${joules(p.joules_uj)} · ${groupDigits(p.joules_uj)} µJ`,
      ),
      h('dt', {}, 'D'),
      h(
        'dd',
        { title: `${groupDigits(p.delivery)} ${p.deliveryUnit}` },
        p.figure === null
          ? '0 (not known)'
          : `${delivery(p.delivery, s.policy.basis)} · ${groupDigits(p.delivery)} ${p.deliveryUnit}`,
      ),
      h('dt', {}, 'records'),
      h('dd', {}, `${p.records} named, ${p.hops.length} hops`),
    ),
    h(
      'div',
      { class: 'limits' },
      limitPill(
        l.latency.ok,
        `latency ${l.latency.latency_ms} ms ≤ ${l.latency.ceiling_ms}`,
        'the latency limit: its latency at most the ceiling',
      ),
      limitPill(
        l.quality.ok,
        `top tier ${l.quality.top_tier} ≥ ${l.quality.floor}`,
        'the quality limit: it carries the floor tier',
      ),
      limitPill(
        l.capacity.ok,
        p.capacity === null
          ? 'capacity: no limit'
          : l.capacity.ok
            ? `load < ${groupDigits(String(p.capacity))}`
            : `full: ${groupDigits(String(p.load))} of ${groupDigits(String(p.capacity))}`,
        'the capacity limit, for a new session: its load below its capacity',
      ),
    ),
    h(
      'dl',
      { class: 'facts' },
      h('dt', {}, 'load'),
      h(
        'dd',
        {},
        h('span', { 'data-testid': 'load' }, String(p.load)),
        `${p.load === 1 ? ' session' : ' sessions'}${p.capacity === null ? ' (no capacity limit)' : ` of ${groupDigits(String(p.capacity))}`}`,
      ),
      h('dt', {}, 'band'),
      h(
        'dd',
        {},
        p.min_share_ppm === 0
          ? 'none (min_share_ppm 0)'
          : `${percent(p.min_share_ppm)} of draws (min_share_ppm ${groupDigits(String(p.min_share_ppm))})`,
      ),
      h('dt', {}, 'placed first'),
      h(
        'dd',
        {},
        share.ppm === null
          ? `no decision in the last ${share.seconds / 60} min`
          : `${percent(share.ppm)} of ${groupDigits(String(share.of))} in the last ${share.seconds / 60} min`,
      ),
    ),
    p.capacity === null
      ? null
      : h(
          'div',
          { class: barClass, title: `${loadPct.toFixed(1)} % of capacity` },
          h('span', { style: `width:${loadPct}%` }),
        ),
    p.live === null ? null : liveFacts(p.live),
  );
}

export function renderPathways(s: Status): void {
  fill(byId('pathways'), ...s.pathways.map((p) => card(s, p)));
}

export function renderHops(s: Status): void {
  const L = BigInt(s.policy.lag_us);
  const head = h(
    'tr',
    {},
    ...[
      'pathway',
      'hop',
      'place',
      'last period',
      'age',
      'vs L',
      'accepted',
      'after L',
      'duplicate',
      'refused',
    ].map((t, i) => h('th', i >= 6 ? { class: 'num' } : {}, t)),
  );
  const rows = s.pathways.flatMap((p) =>
    p.hops.map((hop) => {
      const refused = Object.entries(hop.ingest.refused);
      return h(
        'tr',
        { 'data-hop': hop.key },
        h('td', { class: 'mono' }, p.id),
        h('td', { class: 'mono', title: hop.key }, `${hop.index + 1} · ${abbrev(hop.key)}`),
        h('td', {}, hop.place),
        h('td', {}, hop.last === null ? 'none held' : span(s, hop.last.start, hop.last.end)),
        h(
          'td',
          hop.late ? { class: 'late' } : {},
          hop.age_us === null ? '—' : duration(hop.age_us),
        ),
        h(
          'td',
          hop.late ? { class: 'late' } : {},
          hop.age_us === null
            ? 'no record'
            : hop.late
              ? 'late: next period overdue'
              : `on time (L = ${duration(L)})`,
        ),
        h('td', { class: 'num' }, groupDigits(String(hop.ingest.accepted))),
        h(
          'td',
          { class: 'num', title: 'accepted after their lag L had passed' },
          groupDigits(String(hop.ingest.late)),
        ),
        h('td', { class: 'num' }, groupDigits(String(hop.ingest.duplicate))),
        h(
          'td',
          { class: 'num' },
          refused.length === 0 ? '0' : refused.map(([r, n]) => `${r} ${n}`).join(', '),
        ),
      );
    }),
  );
  fill(byId('hops'), h('thead', {}, head), h('tbody', {}, ...rows));
}

export function renderDecisions(s: Status, verifyHref: (uri: string) => string): void {
  const head = h(
    'tr',
    {},
    ...['time (UTC)', 'digest', 'session', 'first pathway', 'reason'].map((t) => h('th', {}, t)),
  );
  const rows = s.decisions.recent
    .slice(0, 15)
    .map((d) =>
      h(
        'tr',
        {},
        h('td', {}, clockTime(d.t)),
        h(
          'td',
          {},
          h(
            'a',
            { class: 'mono', href: verifyHref(d.uri), title: d.digest },
            abbrev(d.digest, 12, 6),
          ),
        ),
        h('td', { class: 'mono' }, `${d.session}…`),
        h('td', { class: 'mono' }, d.first ?? '—'),
        h(
          'td',
          {},
          h(
            'span',
            { class: `pill ${d.reason === 'none' ? 'bad' : d.reason === 'rank' ? 'ok' : ''}` },
            d.reason,
          ),
        ),
      ),
    );
  fill(
    byId('decisions'),
    h('thead', {}, head),
    h(
      'tbody',
      {},
      ...(rows.length > 0
        ? rows
        : [h('tr', {}, h('td', { colspan: '5', class: 'muted' }, 'no decision yet'))]),
    ),
  );
}
