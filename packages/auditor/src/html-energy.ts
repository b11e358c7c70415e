/**
 * The energy account's section of the audit's HTML report: the span, the statement's check, each
 * pathway's figures as a table, the savings in both views, and a chart of each pathway's
 * average beside its marginal figure with its 95 % interval (inline SVG, no script).
 */
import type { EnergyAccountJson } from '@wai-steering/energy';
import type { EnergyMembers } from './energy.js';
import {
  deliveryText,
  energyText,
  METHOD_LINE,
  perUnitName,
  perUnitText,
  savingsLines,
  spanText,
} from './energy-format.js';

function esc(s: string): string {
  return s.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );
}

const W = 720;

/** Each pathway's average (bar) and marginal figure (dot, with its interval), one row each. */
function figuresChart(a: EnergyAccountJson): string {
  const rows = a.pathways.map((p) => ({
    id: p.id,
    average: p.average_pj_per_unit === null ? null : Number(p.average_pj_per_unit),
    marginal: p.marginal_pj_per_unit === null ? null : Number(p.marginal_pj_per_unit),
    ci: p.marginal_ci95_pj_per_unit,
  }));
  const values = rows.flatMap((r) => [r.average ?? 0, r.marginal ?? 0, r.ci?.[1] ?? 0]);
  const max = Math.max(1, ...values);
  const x0 = 130;
  const scale = (W - x0 - 20) / max;
  const rowH = 30;
  const h = 30 + rowH * rows.length;
  const X = (v: number): string => (x0 + Math.max(0, v) * scale).toFixed(1);
  const body = rows
    .map((r, i) => {
      const y = 24 + i * rowH;
      const bar =
        r.average === null
          ? ''
          : `<rect x="${x0}" y="${y}" width="${(Math.max(0, r.average) * scale).toFixed(1)}" height="16" fill="#9ecae1"><title>average ${esc(perUnitText(r.average, a.basis))}</title></rect>`;
      const ci =
        r.ci === null
          ? ''
          : `<line x1="${X(r.ci[0])}" y1="${y + 8}" x2="${X(r.ci[1])}" y2="${y + 8}" stroke="#000" stroke-width="2"/>`;
      const dot =
        r.marginal === null
          ? ''
          : `<circle cx="${X(r.marginal)}" cy="${y + 8}" r="4" fill="#d62728"><title>marginal ${esc(perUnitText(r.marginal, a.basis))}</title></circle>`;
      return `<text x="0" y="${y + 12}" font-size="12">${esc(r.id)}</text>${bar}${ci}${dot}`;
    })
    .join('');
  const legend = `<rect x="${x0}" y="2" width="10" height="10" fill="#9ecae1"/><text x="${x0 + 14}" y="11" font-size="10">average</text><circle cx="${x0 + 90}" cy="7" r="4" fill="#d62728"/><text x="${x0 + 98}" y="11" font-size="10">marginal, with its 95 % interval</text><text x="${W - 20}" y="11" text-anchor="end" font-size="10">0 to ${esc(perUnitText(max, a.basis))}</text>`;
  return `<figure><figcaption>Energy a unit of delivery costs on each pathway (${esc(perUnitName(a.basis))}): the average and the marginal figure</figcaption>
<svg role="img" aria-label="average and marginal figures" viewBox="0 0 ${W} ${h}" width="${W}" height="${h}">${legend}${body}</svg></figure>`;
}

/** The section (an `<h2>` and what follows it). */
export function energySection(r: EnergyMembers): string {
  if (r.energy === undefined) return '';
  const head = '<h2>Energy account</h2>\n';
  if (r.energy === null) {
    const st = r.energy_statement === undefined ? '' : statementText(r);
    return `${head}<p>No account: ${esc(r.energy_why ?? '')}.</p>${st}`;
  }
  const a = r.energy;
  const rows = a.pathways
    .map((p) => {
      const cells = [
        p.id,
        String(p.periods),
        String(p.periods_unusable),
        energyText(p.joules_uj),
        deliveryText(p.delivery, a.basis),
        p.average_pj_per_unit === null ? '—' : perUnitText(p.average_pj_per_unit, a.basis),
        p.marginal_pj_per_unit === null ? '—' : perUnitText(p.marginal_pj_per_unit, a.basis),
        p.idle_uj_per_period === null
          ? '—'
          : `${(Number(p.idle_uj_per_period) / Number(a.period_us)).toPrecision(4)} W`,
        p.r2 === null ? '—' : p.r2.toFixed(4),
        p.marginal_why ?? '',
        p.sessions_placed ?? '—',
        p.sessions_served,
      ];
      return `<tr>${cells.map((c) => `<td>${esc(c)}</td>`).join('')}</tr>`;
    })
    .join('');
  const th = [
    'pathway',
    'usable periods',
    'unusable',
    'energy',
    'delivery',
    'average',
    'marginal',
    'idle power',
    'r²',
    'why null',
    'sessions placed',
    'served',
  ]
    .map((h) => `<th>${esc(h)}</th>`)
    .join('');
  return `${head}<dl><dt>Span</dt><dd>${esc(spanText(a))}</dd>
<dt>Baseline</dt><dd>${esc(a.baseline.pathway)} (the policy's initial pathway)</dd>
${savingsLines(a)
  .map((l) => {
    const [k, v] = l.split(/:\s+/, 2) as [string, string];
    return `<dt>${esc(k.replace(/^saved, /, 'Saved, '))}</dt><dd>${esc(v)}</dd>`;
  })
  .join('\n')}</dl>
${statementText(r)}
<table><thead><tr>${th}</tr></thead><tbody>${rows}</tbody></table>
${figuresChart(a)}
<p>${esc(METHOD_LINE.replace(/^method: /, 'Method: '))}. The exact figures are the JSON's <code>energy</code>.</p>`;
}

function statementText(r: EnergyMembers): string {
  const s = r.energy_statement;
  if (s === undefined) return '<p>The archive carries no statement of the account.</p>';
  if (s === 'agrees') {
    return '<p class="ok">The server\'s signed statement agrees with the account recomputed.</p>';
  }
  return `<p class="bad">The server's signed statement differs from the account recomputed at ${s.differs
    .map((p) => `<code>${esc(p === '' ? '(the whole account)' : p)}</code>`)
    .join(', ')}.</p>`;
}
