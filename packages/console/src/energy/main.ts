/**
 * The Energy page (docs/console.md, *The Energy page*): what energy steering saved over a span,
 * from the server's `GET /energy/series` (the account and the figures behind it), drawn once per
 * span asked for: the saving in both views, cumulative over the span with the marginal's band;
 * each pathway's average beside its marginal figure; each pathway's fit; sessions placed against
 * those served. The account is public evidence: no credentials are asked.
 */
import '../common/style.css';
import { byId, fill, h } from '../common/dom.js';
import { sessionsChart, viewsChart } from './bars.js';
import { fitChart, savedChart } from './charts.js';
import { cumulative, type EnergyData, fits, readSeriesBody } from './model.js';
import { renderKpis, renderSpan, renderTable } from './render.js';
import { energy, marginalWhy, perUnit } from './units.js';

const BUCKETS = 360;
const SAMPLES = 600;
/** The spans offered, before the end of the server's default span (its last settled period). */
const SPANS: readonly [string, string, bigint][] = [
  ['1h', 'the last hour', 3_600_000_000n],
  ['6h', 'the last 6 hours', 21_600_000_000n],
  ['24h', 'the last 24 hours', 86_400_000_000n],
  ['7d', 'the last 7 days', 604_800_000_000n],
];

const seriesUrl = new URL('../energy/series', location.href);
const params = new URLSearchParams(location.search);

function setState(state: 'loading' | 'ready' | 'failed', text: string): void {
  byId('live').dataset.state =
    state === 'ready' ? 'live' : state === 'failed' ? 'lost' : 'connecting';
  fill(byId('live-text'), text);
}

/** Fetches the series of a span (`from`, `to`: room-clock µs, or the server's default). */
async function load(from?: bigint, to?: bigint): Promise<EnergyData> {
  const q = new URLSearchParams({ buckets: String(BUCKETS), samples: String(SAMPLES) });
  if (from !== undefined) q.set('from', String(from));
  if (to !== undefined) q.set('to', String(to));
  for (;;) {
    const res = await fetch(`${seriesUrl.pathname}?${q}`, { cache: 'no-store' });
    const text = await res.text();
    if (res.status === 503) {
      // Other accounts are being computed: wait as told, then ask again.
      const s = Number(res.headers.get('retry-after') ?? '1');
      await new Promise((r) => setTimeout(r, Math.max(1, s) * 1000));
      continue;
    }
    if (!res.ok) {
      let message = `HTTP ${res.status}`;
      try {
        message = (JSON.parse(text) as { message?: string }).message ?? message;
      } catch {}
      throw new Error(message);
    }
    const read = readSeriesBody(text);
    if (typeof read === 'string') throw new Error(read);
    return read;
  }
}

/** The span selector: the server's default, then spans ending where it ends. */
function spans(end: bigint, P: bigint, chosen: string): void {
  const select = byId<HTMLSelectElement>('span');
  fill(
    select,
    ...SPANS.map(([value, label]) =>
      h('option', { value, ...(value === chosen ? { selected: true } : {}) }, label),
    ),
  );
  select.onchange = () => {
    const url = new URL(location.href);
    url.searchParams.delete('from');
    url.searchParams.delete('to');
    url.searchParams.set('span', select.value);
    history.replaceState(null, '', url);
    void show(select.value, end, P);
  };
}

let busy = 0;

/** Loads and draws a span: a preset before `end` (the default span's), or the page's own query. */
async function show(span: string, end?: bigint, P?: bigint): Promise<void> {
  const mine = ++busy;
  setState('loading', 'computing the account…');
  document.body.dataset.ready = 'false';
  try {
    let data: EnergyData | undefined;
    const given = { from: params.get('from'), to: params.get('to') };
    if (given.from !== null || given.to !== null) {
      data = await load(
        given.from === null ? undefined : BigInt(given.from),
        given.to === null ? undefined : BigInt(given.to),
      );
    } else {
      if (end === undefined || P === undefined) {
        // The server's default span (the last settled day) tells where spans end, and P.
        data = await load();
        end = BigInt(data.account.to);
        P = BigInt(data.account.period_us);
      }
      const length = SPANS.find(([v]) => v === span)?.[2];
      if (length === undefined || span === '24h') {
        // The server's day: 24 hours before the end, or since a change of policy.
        data ??= await load(undefined, end);
      } else {
        const periods = length / P > 0n ? length / P : 1n;
        data = await load(end - periods * P, end);
      }
      spans(end, P, length === undefined ? '24h' : span);
    }
    if (mine !== busy) return;
    draw(data);
    setState('ready', `computed ${new Date().toLocaleTimeString()}`);
    byId('problem').hidden = true;
    document.body.dataset.ready = 'true';
  } catch (e) {
    if (mine !== busy) return;
    const p = byId('problem');
    p.hidden = false;
    fill(p, `The energy account could not be read: ${(e as Error).message}`);
    setState('failed', 'no account');
    document.body.dataset.ready = 'failed';
  }
}

/** A fit in words: `idle 3.00 Wh a period + 76.1 J/GB · r² 0.566`. */
function fitLine(p: EnergyData['account']['pathways'][number], basis: number): string {
  if (p.idle_uj_per_period === null || p.marginal_pj_per_unit === null) return '';
  const r2 = p.r2 === null ? '' : ` · r² ${p.r2.toFixed(3)}`;
  return ` · idle ${energy(p.idle_uj_per_period)} a period + ${perUnit(p.marginal_pj_per_unit, basis).main}${r2}`;
}

let drawn: EnergyData | undefined;

function draw(data: EnergyData): void {
  drawn = data;
  const a = data.account;
  renderSpan(byId('span-text'), a);
  fill(byId('meta'), 'room ', h('b', { class: 'mono', title: a.room }, `${a.room.slice(0, 8)}…`));
  renderKpis(byId('kpis'), a);
  const c = cumulative(data);
  savedChart(byId('chart-saved'), c, 'both');
  savedChart(byId('chart-marginal'), c, 'marginal');
  viewsChart(byId('views'), a);
  renderTable(byId<HTMLTableElement>('pathways'), a);
  const grid = byId('fits');
  const figures = fits(data).map((f, i) => {
    const p = a.pathways[i]!;
    const plot = h('div', { class: 'fit-plot', id: `fit-${i}` });
    const why = marginalWhy(p.marginal_why, p.periods);
    const fig = h(
      'figure',
      { class: 'card chart', 'data-pathway': p.id },
      h(
        'figcaption',
        {},
        h('span', { class: 'mono' }, p.id),
        why === null ? '' : h('span', { class: 'why-null' }, ` · ${why}`),
        fitLine(p, a.basis),
      ),
      f.d.length === 0 ? h('p', { class: 'muted empty' }, 'No usable period to plot.') : plot,
    );
    return { fig, plot, f, i, empty: f.d.length === 0 };
  });
  fill(grid, ...figures.map((x) => x.fig));
  for (const x of figures) if (!x.empty) fitChart(x.plot, x.f, x.i, a.basis);
  sessionsChart(byId('sessions'), a);
  const q = new URLSearchParams({ from: a.from, to: a.to });
  byId<HTMLAnchorElement>('statement').href = `../energy/statement?${q}`;
  byId<HTMLAnchorElement>('json').href = `../energy?${q}`;
}

let resized: number | undefined;
window.addEventListener('resize', () => {
  window.clearTimeout(resized);
  // The plots drawn again at the new width.
  resized = window.setTimeout(() => drawn !== undefined && draw(drawn), 200);
});

void show(params.get('span') ?? '24h');
