/**
 * The Energy page's text: the headline figures (what steering saved in both views, with the
 * marginal's interval and every sign written), the span in local time, and the table of each
 * pathway's figures, exact beside readable. DOM from text nodes only.
 */
import type { EnergyAccountJson } from '@wai-steering/energy';
import { fill, h } from '../common/dom.js';
import { pathwayColour } from './colours.js';
import {
  count,
  deliveryText,
  energy,
  exactPerUnit,
  exactUj,
  marginalWhy,
  perUnit,
} from './units.js';

/** A room-clock instant (µs, decimal) in local time. */
export function localTime(us: string): string {
  return new Date(Number(BigInt(us) / 1000n)).toLocaleString(undefined, {
    dateStyle: 'medium',
    timeStyle: 'short',
  });
}

function duration(us: bigint): string {
  const s = Number(us / 1_000_000n);
  if (s % 86_400 === 0) return `${s / 86_400} day${s === 86_400 ? '' : 's'}`;
  if (s % 3600 === 0) return `${s / 3600} h`;
  if (s % 60 === 0) return `${s / 60} min`;
  return `${s} s`;
}

export function renderSpan(el: HTMLElement, a: EnergyAccountJson): void {
  const span = BigInt(a.to) - BigInt(a.from);
  fill(
    el,
    `${localTime(a.from)} to ${localTime(a.to)} (${duration(span)}, ${count(String(span / BigInt(a.period_us)))} periods of ${duration(BigInt(a.period_us))}), against the baseline `,
    h('b', {}, a.baseline.pathway),
    ', the policy’s initial pathway: where players stay without steering.',
  );
}

/** What the saving says, in words, with its sign. */
function savedWords(uj: string | null): string {
  if (uj === null) return '';
  const v = BigInt(uj);
  if (v > 0n) return 'saved against the baseline';
  if (v < 0n) return 'more than the baseline: steering moved delivery to dearer pathways';
  return 'the same as the baseline';
}

/** Why a saving is not stated. */
function notStated(a: EnergyAccountJson, view: 'average' | 'marginal'): string {
  const base = a.pathways.find((p) => p.id === a.baseline.pathway);
  if (view === 'average') {
    return `not stated: the baseline ${a.baseline.pathway} delivered nothing usable in the span`;
  }
  const missing = a.pathways
    .filter((p) => p.marginal_pj_per_unit === null && (BigInt(p.delivery) > 0n || p === base))
    .map(
      (p) =>
        `${p.id} (${marginalWhy(p.marginal_why, p.periods)?.replace('no marginal figure: ', '')})`,
    );
  return `not stated: it needs the marginal figure of the baseline and of every pathway that delivered; none for ${missing.join(', ')}`;
}

export function renderKpis(el: HTMLElement, a: EnergyAccountJson): void {
  const card = (kind: string, label: string, ...body: (Node | string)[]) =>
    h(
      'div',
      { class: `card kpi ${kind}`, 'data-kpi': kind },
      h('div', { class: 'kpi-label' }, label),
      ...body,
    );
  const big = (uj: string | null, view: string) =>
    uj === null
      ? h(
          'div',
          { class: 'kpi-none', 'data-value': 'null' },
          notStated(a, view as 'average' | 'marginal'),
        )
      : h(
          'div',
          {
            class: `kpi-big${BigInt(uj) < 0n ? ' negative' : ''}`,
            'data-value': uj,
            title: exactUj(uj),
          },
          energy(uj),
        );
  const ci = a.saved_marginal_ci95_uj;
  const marginal = card(
    'marginal',
    'Saved · marginal view',
    big(a.saved_marginal_uj, 'marginal'),
    a.saved_marginal_uj === null
      ? ''
      : h('div', { class: 'kpi-sub' }, savedWords(a.saved_marginal_uj)),
    ci === null
      ? ''
      : h(
          'div',
          { class: 'kpi-sub', title: `${ci[0]} to ${ci[1]} µJ` },
          `95 % interval ${energy(ci[0])} to ${energy(ci[1])}`,
        ),
    h(
      'div',
      { class: 'kpi-note' },
      'What this steering changed: each pathway’s fitted energy of one more unit, idle power left out.',
    ),
  );
  const average = card(
    'average',
    'Saved · average view',
    big(a.saved_average_uj, 'average'),
    a.saved_average_uj === null
      ? ''
      : h('div', { class: 'kpi-sub' }, savedWords(a.saved_average_uj)),
    h(
      'div',
      { class: 'kpi-note' },
      'What an allocation of all the pathways’ energy, idle power included, to what they delivered gives.',
    ),
  );
  const total = a.pathways.reduce((s, p) => s + BigInt(p.delivery), 0n);
  const base = a.pathways.find((p) => p.id === a.baseline.pathway);
  const off =
    total === 0n || base === undefined
      ? null
      : Number(((total - BigInt(base.delivery)) * 1000n) / total) / 10;
  const delivered = card(
    'delivered',
    'Delivered in the span',
    h(
      'div',
      { class: 'kpi-big', title: `${count(total.toString())} ${a.basis === 1 ? 'bytes' : 'µs'}` },
      deliveryText(total.toString(), a.basis),
    ),
    off === null
      ? ''
      : h('div', { class: 'kpi-sub' }, `${off.toFixed(1)} % of it away from the baseline`),
    h(
      'div',
      { class: 'kpi-note' },
      'Over the periods usable for each pathway: every hop metered and its records tiling the period.',
    ),
  );
  fill(el, marginal, average, delivered);
}

export function renderTable(el: HTMLTableElement, a: EnergyAccountJson): void {
  const unit = a.basis === 1 ? 'B' : 'µs';
  const head = h(
    'tr',
    {},
    ...[
      'pathway',
      'usable periods',
      'energy',
      'delivery',
      'average',
      'marginal, 95 % interval',
      'idle a period',
      'r²',
      'sessions served',
      'placed',
    ].map((t, i) => h('th', { class: i === 0 ? '' : 'num' }, t)),
  );
  const rows = a.pathways.map((p, i) => {
    const avg = p.average_pj_per_unit;
    const marg = p.marginal_pj_per_unit;
    const why = marginalWhy(p.marginal_why, p.periods);
    const cell = (text: string, title?: string) =>
      h('td', { class: 'num', ...(title === undefined ? {} : { title }) }, text);
    // A figure per unit as people quote it, the other unit under it, exact on hover.
    const figure = (pj: string) => {
      const u = perUnit(pj, a.basis);
      return h(
        'td',
        { class: 'num', title: exactPerUnit(pj, a.basis) },
        u.main,
        h('span', { class: 'also' }, u.also),
      );
    };
    // The marginal figure, its interval under it; exact (and in the other unit) on hover.
    const marginalCell = (pj: string, ci: readonly [number, number] | null) => {
      const u = perUnit(pj, a.basis);
      const range =
        ci === null
          ? ''
          : `${perUnit(ci[0], a.basis).main.replace(/ .*/, '')} to ${perUnit(ci[1], a.basis).main}`;
      const exact = `${exactPerUnit(pj, a.basis)} (${u.also})${ci === null ? '' : `; 95 % interval ${ci[0]} to ${ci[1]} pJ/${unit}`}`;
      return h('td', { class: 'num', title: exact }, u.main, h('span', { class: 'also' }, range));
    };
    return h(
      'tr',
      { 'data-pathway': p.id },
      h(
        'td',
        {},
        h('span', { class: 'swatch', style: `background:${pathwayColour(i)}` }),
        h('span', { class: 'mono' }, p.id),
        p.id === a.baseline.pathway ? h('span', { class: 'pill' }, 'baseline') : '',
      ),
      cell(`${p.periods} of ${p.periods + p.periods_unusable}`),
      cell(energy(p.joules_uj), exactUj(p.joules_uj)),
      cell(deliveryText(p.delivery, a.basis), `${count(p.delivery)} ${unit}`),
      avg === null ? cell('—', 'nothing delivered in a usable period') : figure(avg),
      marg === null
        ? h('td', { class: 'num why-null', 'data-why': p.marginal_why ?? '' }, why ?? '—')
        : marginalCell(marg, p.marginal_ci95_pj_per_unit),
      p.idle_uj_per_period === null
        ? cell('—')
        : cell(energy(p.idle_uj_per_period), exactUj(p.idle_uj_per_period)),
      cell(p.r2 === null ? '—' : p.r2.toFixed(4), p.r2 === null ? undefined : String(p.r2)),
      cell(count(p.sessions_served)),
      cell(p.sessions_placed === null ? '—' : count(p.sessions_placed)),
    );
  });
  fill(el, h('thead', {}, head), h('tbody', {}, ...rows));
}
