/**
 * The audit as one self-contained HTML page: inline SVG plots and tables, no script, no network,
 * no external asset. Stated against replayed load per pathway over time, each band's observed
 * share with its expectation, the decisions' reasons over time, the refusals with their place,
 * and the duplicated decision frames.
 */
import { formatBytes, formatDuration, formatInstant } from '@wai-steering/config-text';
import type { AuditResult } from './audit.js';
import { energySection } from './html-energy.js';
import type { Series } from './series.js';

/** Rows of a table shown at most (the JSON holds them all). */
const MAX_ROWS = 500;
/**
 * Okabe and Ito's palette, as the console's: colours people with a colour-vision deficiency
 * tell apart (the console's test/colours.test.ts holds them apart under simulated deficiencies).
 */
const COLORS = ['#0072b2', '#e69f00', '#009e73', '#cc79a7', '#d55e00', '#56b4e9', '#000000'];
const REASON_COLORS: Record<string, string> = {
  buffer: '#e69f00',
  floor: '#56b4e9',
  share: '#cc79a7',
  hold: '#0072b2',
  rank: '#009e73',
  none: '#999999',
  refused: '#d55e00',
};

function esc(s: string): string {
  return s.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );
}

/** An instant of the result (µs, decimal) in the one form of human output. */
function isoOf(us: string): string {
  return formatInstant(BigInt(us));
}

const W = 720;
const H = 200;
const PAD = 40;

function axis(maxY: number, first: string, last: string): string {
  return [
    `<line x1="${PAD}" y1="${H - PAD / 2}" x2="${W - 10}" y2="${H - PAD / 2}" stroke="#888"/>`,
    `<line x1="${PAD}" y1="10" x2="${PAD}" y2="${H - PAD / 2}" stroke="#888"/>`,
    `<text x="${PAD - 4}" y="14" text-anchor="end" font-size="10">${maxY}</text>`,
    `<text x="${PAD - 4}" y="${H - PAD / 2}" text-anchor="end" font-size="10">0</text>`,
    `<text x="${PAD}" y="${H - 4}" font-size="10">${esc(first)}</text>`,
    `<text x="${W - 10}" y="${H - 4}" text-anchor="end" font-size="10">${esc(last)}</text>`,
  ].join('');
}

function loadPlot(series: Series, pathway: string, color: string): string {
  const bins = series.bins;
  const pts: { x: number; s: number; r: number }[] = [];
  bins.forEach((b, i) => {
    const l = b.loads[pathway];
    if (l !== undefined) pts.push({ x: i, s: l[0], r: l[1] });
  });
  const maxY = Math.max(1, ...pts.map((p) => Math.max(p.s, p.r)));
  const n = Math.max(1, bins.length - 1);
  const X = (i: number): number => PAD + ((W - 10 - PAD) * i) / n;
  const Y = (v: number): number => H - PAD / 2 - ((H - PAD / 2 - 10) * v) / maxY;
  const line = (f: (p: { s: number; r: number }) => number): string =>
    pts.map((p) => `${X(p.x).toFixed(1)},${Y(f(p)).toFixed(1)}`).join(' ');
  const first = bins[0] === undefined ? '' : isoOf(bins[0].start);
  const last = bins.at(-1) === undefined ? '' : isoOf(bins.at(-1)!.start);
  return `<figure><figcaption>Load of <b>${esc(pathway)}</b>: stated (solid) and replayed (dashed)</figcaption>
<svg role="img" aria-label="load of ${esc(pathway)}" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}">${axis(maxY, first, last)}
<polyline fill="none" stroke="${color}" stroke-width="2" points="${line((p) => p.s)}"/>
<polyline fill="none" stroke="#000" stroke-dasharray="4 3" stroke-width="1.5" points="${line((p) => p.r)}"/></svg></figure>`;
}

/**
 * Each band's share: its bar (observed) against its line (expected), the pathway's id on the
 * left, and under the bar the figures in words, on a line of their own the width of the plot, so
 * that no label is cut whatever its length.
 */
function sharePlot(result: AuditResult): string {
  if (result.shares.length === 0) return '<p>No pathway has a minimum share.</p>';
  const rowH = 46;
  const left = 120;
  const h = 10 + rowH * result.shares.length;
  const bars = result.shares
    .map((s, i) => {
      const y = 10 + i * rowH;
      const observed = s.sessions === 0 ? 0 : s.in_band / s.sessions;
      const expected = s.min_share_ppm / 1_000_000;
      const scale = (W - left - 10) / Math.max(observed, expected, 1e-9) / 1.1;
      const color = s.flagged ? '#d55e00' : '#009e73';
      const label = `observed ${(observed * 100).toFixed(2)}% of ${s.sessions} sessions, expected ${(expected * 100).toFixed(2)}%: z = ${s.z.toFixed(2)}${s.flagged ? ' (|z| ≥ 4: flagged)' : ''}`;
      return `<text x="0" y="${y + 14}" font-size="12">${esc(s.pathway)}</text>
<rect x="${left}" y="${y}" width="${(observed * scale).toFixed(1)}" height="18" fill="${color}"/>
<line x1="${(left + expected * scale).toFixed(1)}" y1="${y - 3}" x2="${(left + expected * scale).toFixed(1)}" y2="${y + 21}" stroke="#000" stroke-width="2"/>
<text x="${left}" y="${y + 34}" font-size="12">${esc(label)}</text>`;
    })
    .join('');
  return `<figure><figcaption>Share of sessions in each band: observed (bar; vermilion when |z| ≥ 4, and said so) and expected (line)</figcaption>
<svg role="img" aria-label="bands' shares" viewBox="0 0 ${W} ${h}" width="${W}" height="${h}">${bars}</svg></figure>`;
}

function reasonPlot(series: Series): string {
  const bins = series.bins;
  if (bins.length === 0) return '<p>No decision.</p>';
  const names = Object.keys(REASON_COLORS);
  const totals = bins.map((b) => names.reduce((n, k) => n + (b.reasons[k] ?? 0), 0));
  const maxY = Math.max(1, ...totals);
  const bw = (W - 10 - PAD) / bins.length;
  const rects: string[] = [];
  bins.forEach((b, i) => {
    let y = H - PAD / 2;
    for (const k of names) {
      const v = b.reasons[k] ?? 0;
      if (v === 0) continue;
      const h = ((H - PAD / 2 - 10) * v) / maxY;
      y -= h;
      rects.push(
        `<rect x="${(PAD + i * bw).toFixed(1)}" y="${y.toFixed(1)}" width="${Math.max(0.5, bw - 0.5).toFixed(1)}" height="${h.toFixed(1)}" fill="${REASON_COLORS[k]}"><title>${k}: ${v}</title></rect>`,
      );
    }
  });
  const legend = names
    .map(
      (k, i) =>
        `<rect x="${PAD + i * 90}" y="0" width="10" height="10" fill="${REASON_COLORS[k]}"/><text x="${PAD + i * 90 + 14}" y="9" font-size="10">${k}</text>`,
    )
    .join('');
  return `<figure><figcaption>Decisions by reason over time (${esc(formatDuration(BigInt(series.width_us)))} a bar)</figcaption>
<svg role="img" aria-label="reasons over time" viewBox="0 -14 ${W} ${H + 14}" width="${W}" height="${H + 14}">${legend}${axis(maxY, isoOf(bins[0]!.start), isoOf(bins.at(-1)!.start))}${rects.join('')}</svg></figure>`;
}

function table(
  head: readonly string[],
  rows: readonly (readonly string[])[],
  total: number,
): string {
  if (total === 0) return '<p>None.</p>';
  const more =
    total > rows.length ? `<p>… and ${total - rows.length} more (see the JSON).</p>` : '';
  return `<table><thead><tr>${head.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead><tbody>${rows
    .map((r) => `<tr>${r.map((c) => `<td>${esc(c)}</td>`).join('')}</tr>`)
    .join('')}</tbody></table>${more}`;
}

function whereText(w: { at: string; pathway?: number; record?: number }): string {
  return [
    w.at,
    w.pathway === undefined ? '' : `pathway ${w.pathway + 1}`,
    w.record === undefined ? '' : `record ${w.record + 1}`,
  ]
    .filter((s) => s !== '')
    .join(', ');
}

/** `part` as a percentage of `whole` with one decimal, cut off; `—` when `whole` is 0. */
function percentOf(part: bigint, whole: bigint): string {
  if (whole === 0n) return '—';
  const tenths = (part * 1000n) / whole;
  return `${tenths / 10n}.${tenths % 10n}%`;
}

/**
 * The hops' consistency: what a pathway's interior hops sent its edges against what the edges
 * received (the same bytes, counted at both ends), and what the edges delivered, for scale.
 */
function hopsSection(result: AuditResult): string {
  if (result.hops.length === 0) {
    return '<p>No pathway has an interior hop: there is nothing to compare.</p>';
  }
  const explain = `<p>Per pathway with an interior hop (a shield, or a mid-tier cache) and per period of
its records: the media bytes its interior hops <b>sent</b> to its edges, the media bytes its edge
hops <b>received</b>, and what the edges <b>delivered</b> to players. Sent and received are the same
bytes counted at both ends of one link, so they agree (received / sent near 100%) unless a hop
misstates what it moved. Both are a small part of what the edges deliver: an edge serves most of
its players from its cache, and asks upstream for what it misses (delivered − received, as a share
of delivered, is its cache's hit ratio). A report, never a finding: each hop's figure is its own
statement.</p>`;
  return `${explain}
${table(
  [
    'pathway',
    'start',
    'end',
    'sent by interior hops',
    'received by edges',
    'received / sent',
    'delivered by edges',
    'edge cache hits',
  ],
  result.hops.slice(0, MAX_ROWS).map((h) => {
    const sent = BigInt(h.interior_out);
    const received = BigInt(h.edge_in);
    const delivered = BigInt(h.edge_out);
    return [
      h.pathway,
      isoOf(h.start),
      isoOf(h.end),
      formatBytes(sent),
      formatBytes(received),
      percentOf(received, sent),
      formatBytes(delivered),
      delivered < received ? '—' : percentOf(delivered - received, delivered),
    ];
  }),
  result.hops.length,
)}`;
}

/** The log check: the checkpoint, then the withheld and unlogged decisions. */
function logSection(result: AuditResult): string {
  const l = result.log;
  if (l === null) {
    return '<p>The archive carries no checkpoint: withheld and unlogged decisions were not checked.</p>';
  }
  return `<dl><dt>Origin</dt><dd><code>${esc(l.origin)}</code></dd>
<dt>Checkpoint</dt><dd>${l.size} entries, root <code>${esc(l.root)}</code>, signed by a key of the room</dd>
<dt>Withheld</dt><dd>${l.withheld.length} (in the log, with t in the span, not in the archive)</dd>
<dt>Unlogged</dt><dd>${l.unlogged.length} (in the archive, not in the log)</dd></dl>
<h3>Withheld</h3>
${table(
  ['digest', 'index', 't'],
  l.withheld.slice(0, MAX_ROWS).map((w) => [w.digest, String(w.index), isoOf(w.t)]),
  l.withheld.length,
)}
<h3>Unlogged</h3>
${table(
  ['digest', 't'],
  l.unlogged.slice(0, MAX_ROWS).map((u) => [u.digest, isoOf(u.t)]),
  l.unlogged.length,
)}`;
}

/** The report's HTML text. */
export function renderHtml(result: AuditResult, series: Series, title = 'Steering audit'): string {
  const verdict =
    result.findings === 0
      ? '<p class="ok">No findings.</p>'
      : `<p class="bad">${result.findings} finding${result.findings === 1 ? '' : 's'}.</p>`;
  const loads = series.pathways
    .map((p, i) => loadPlot(series, p, COLORS[i % COLORS.length]!))
    .join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body{font-family:system-ui,sans-serif;margin:2em;max-width:60em;color:#222}
table{border-collapse:collapse;font-size:12px;margin:.5em 0}td,th{border:1px solid #ccc;padding:2px 6px;text-align:left}
td{font-family:ui-monospace,monospace}figure{margin:1em 0}figcaption{font-size:13px;margin-bottom:4px}
.ok{color:#2ca02c;font-weight:bold}.bad{color:#d62728;font-weight:bold}dl{display:grid;grid-template-columns:max-content auto;gap:2px 1em}dt{font-weight:bold}
</style></head><body>
<h1>${esc(title)}</h1>
${verdict}
<dl><dt>Room</dt><dd><code>${esc(result.room)}</code></dd>
<dt>Decisions</dt><dd>${result.decisions} (${result.accepted} accepted, ${result.refused.length} refused)</dd>
<dt>Sessions</dt><dd>${result.sessions}</dd>
<dt>Records</dt><dd>${result.records}</dd>
<dt>Loads checked</dt><dd>${result.loads.checked} (tolerance ${result.loads.tolerance}, grace ${result.loads.grace_s} s), ${result.loads.inconsistent.length} inconsistent</dd>
<dt>Duplicated frames</dt><dd>${result.duplicated.length}</dd></dl>
<h2>Loads: stated and replayed</h2>
${loads || '<p>No decision.</p>'}
<h2>Bands' shares</h2>
${sharePlot(result)}
<h2>Reasons over time</h2>
${reasonPlot(series)}
<h2>Refused decisions</h2>
${table(
  ['digest', 'reason', 'where', 't'],
  result.refused
    .slice(0, MAX_ROWS)
    .map((r) => [r.digest, r.reason, whereText(r.where), r.t === null ? '' : isoOf(r.t)]),
  result.refused.length,
)}
<h2>Inconsistent loads</h2>
${table(
  ['digest', 'pathway', 'stated', 'replayed', 't'],
  result.loads.inconsistent
    .slice(0, MAX_ROWS)
    .map((l) => [l.digest, l.pathway, String(l.stated), String(l.replayed), isoOf(l.t)]),
  result.loads.inconsistent.length,
)}
<h2>Duplicated decision frames</h2>
${table(
  ['digest', 'frame', 'a copy of frame', 't'],
  result.duplicated
    .slice(0, MAX_ROWS)
    .map((d) => [d.digest, String(d.frame), String(d.first), isoOf(d.t)]),
  result.duplicated.length,
)}
<h2>The decision log</h2>
${logSection(result)}
${energySection(result)}
<h2>Policies</h2>
${table(
  ['digest', 'in force', 'decisions', 'changed from the one before'],
  result.policies.map((p) => [
    p.digest,
    p.first === null ? (p.invalid ?? 'unused') : `${isoOf(p.first)} – ${isoOf(p.last!)}`,
    String(p.decisions),
    p.changes.map((c) => `${c.field}: ${c.from ?? '∅'} → ${c.to ?? '∅'}`).join('; '),
  ]),
  result.policies.length,
)}
<h2>Hops' consistency</h2>
${hopsSection(result)}
</body></html>
`;
}
