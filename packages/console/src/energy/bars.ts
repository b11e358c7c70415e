/**
 * The Energy page's bar charts, drawn as SVG (a few bars: no plot library needed): each
 * pathway's average beside its marginal figure, with the marginal's 95 % interval as a whisker;
 * and each pathway's sessions placed beside those served. Every bar names its exact figure on
 * hover (an SVG `<title>`), and carries it as `data-*`.
 */
import type { EnergyAccountJson } from '@wai-steering/energy';
import { AVERAGE, GRID, INK, MARGINAL, MUTED, pathwayColour } from './colours.js';
import { count, exactPerUnit, marginalWhy, perUnit } from './units.js';

const NS = 'http://www.w3.org/2000/svg';

function svg<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | number>,
  ...children: (SVGElement | string)[]
): SVGElementTagNameMap[K] {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  for (const c of children) {
    if (typeof c === 'string') {
      el.append(document.createTextNode(c));
    } else el.append(c);
  }
  return el;
}

function title(text: string): SVGTitleElement {
  return svg('title', {}, text);
}

/** Round axis ticks from 0 to about `max`. */
function ticks(max: number): number[] {
  if (!(max > 0)) return [0, 1];
  const step0 = max / 4;
  const mag = 10 ** Math.floor(Math.log10(step0));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= step0) ?? step0;
  const out: number[] = [];
  for (let v = 0; v <= max + step * 0.001; v += step) out.push(+v.toPrecision(6));
  if (out[out.length - 1]! < max) out.push(+(out[out.length - 1]! + step).toPrecision(6));
  return out;
}

const LABEL_W = 130;
const ROW_H = 54;
const BAR_H = 16;

/** Each pathway's average beside its marginal figure (J/GB or W a stream), with the interval. */
export function viewsChart(el: HTMLElement, a: EnergyAccountJson): void {
  const W = Math.max(420, el.clientWidth - 36);
  const plotW = W - LABEL_W - 150;
  const per = (pj: string | null) => (pj === null ? null : Number(pj));
  const rows = a.pathways.map((p) => ({
    p,
    avg: per(p.average_pj_per_unit),
    marg: per(p.marginal_pj_per_unit),
    ci: p.marginal_ci95_pj_per_unit,
  }));
  const max = rows.reduce((m, r) => Math.max(m, r.avg ?? 0, r.marg ?? 0, r.ci?.[1] ?? 0), 0);
  const tk = ticks(max);
  const top = tk[tk.length - 1]!;
  const x = (v: number) => LABEL_W + (Math.max(0, v) / top) * plotW;
  const H = 26 + rows.length * ROW_H + 8;
  const root = svg('svg', {
    width: W,
    height: H,
    viewBox: `0 0 ${W} ${H}`,
    role: 'img',
    class: 'bars',
  });
  root.append(
    title(
      'Energy per unit delivered, each pathway: the average (all its energy over all it delivered) beside the marginal figure (the fitted energy of one more unit), with its 95 % interval',
    ),
  );
  // The axis: the unit people quote, at the top.
  for (const v of tk) {
    const px = x(v);
    root.append(
      svg('line', { x1: px, x2: px, y1: 18, y2: H - 6, stroke: GRID }),
      svg(
        'text',
        { x: px, y: 12, 'text-anchor': 'middle', class: 'tick' },
        String(+(v * (a.basis === 1 ? 1e-3 : 1e-6)).toPrecision(4)),
      ),
    );
  }
  root.append(
    svg(
      'text',
      { x: LABEL_W - 12, y: 12, 'text-anchor': 'end', class: 'tick' },
      a.basis === 1 ? 'J/GB' : 'W a stream',
    ),
  );
  rows.forEach((r, i) => {
    const y0 = 26 + i * ROW_H;
    const g = svg('g', { class: 'row', 'data-pathway': r.p.id });
    g.append(svg('text', { x: 0, y: y0 + BAR_H + 4, class: 'label' }, r.p.id));
    if (r.p.id === a.baseline.pathway) {
      g.append(svg('text', { x: 0, y: y0 + BAR_H + 20, class: 'note' }, 'baseline'));
    }
    const bar = (
      y: number,
      value: number | null,
      colour: string,
      kind: 'average' | 'marginal',
      exact: string | null,
      none: string,
    ) => {
      if (value === null) {
        g.append(
          svg(
            'text',
            {
              x: LABEL_W + 4,
              y: y + BAR_H - 4,
              class: 'none',
              'data-view': kind,
              'data-none': none,
            },
            none,
          ),
        );
        return;
      }
      const u = perUnit(value, a.basis);
      const b = svg(
        'rect',
        {
          x: LABEL_W,
          y,
          width: Math.max(1, x(value) - LABEL_W),
          height: BAR_H,
          rx: 3,
          fill: colour,
          'data-view': kind,
          'data-pj': exact ?? '',
        },
        title(
          `${r.p.id}, ${kind}: ${u.main} (${u.also}); exactly ${exactPerUnit(exact!, a.basis)}`,
        ),
      );
      if (kind === 'average') b.setAttribute('fill-opacity', '0.9');
      g.append(b);
      return u;
    };
    const ua = bar(
      y0,
      r.avg,
      AVERAGE,
      'average',
      r.p.average_pj_per_unit,
      r.p.periods === 0 ? 'no average: no usable period' : 'no average: nothing delivered',
    );
    const um = bar(
      y0 + BAR_H + 4,
      r.marg,
      MARGINAL,
      'marginal',
      r.p.marginal_pj_per_unit,
      marginalWhy(r.p.marginal_why, r.p.periods) ?? 'no marginal figure',
    );
    if (r.ci !== null && r.marg !== null) {
      const yc = y0 + BAR_H + 4 + BAR_H / 2;
      const lo = x(r.ci[0]);
      const hi = x(r.ci[1]);
      const lu = perUnit(r.ci[0], a.basis).main;
      const hu = perUnit(r.ci[1], a.basis).main;
      g.append(
        svg(
          'g',
          { class: 'whisker' },
          svg('line', { x1: lo, x2: hi, y1: yc, y2: yc, stroke: INK, 'stroke-width': 1.5 }),
          svg('line', { x1: lo, x2: lo, y1: yc - 5, y2: yc + 5, stroke: INK, 'stroke-width': 1.5 }),
          svg('line', { x1: hi, x2: hi, y1: yc - 5, y2: yc + 5, stroke: INK, 'stroke-width': 1.5 }),
          title(
            `${r.p.id}, marginal, 95 % interval: ${lu} to ${hu} (${r.ci[0].toFixed(0)} to ${r.ci[1].toFixed(0)} ${a.basis === 1 ? 'pJ/B' : 'pJ/µs'})`,
          ),
        ),
      );
    }
    const end = (value: number | null, ci: readonly [number, number] | null) =>
      Math.max(x(value ?? 0), ci === null ? 0 : x(ci[1])) + 6;
    if (ua !== undefined) {
      g.append(
        svg(
          'text',
          { x: end(r.avg, null), y: y0 + BAR_H - 3, class: 'value' },
          `${ua.main} average`,
        ),
      );
    }
    if (um !== undefined) {
      g.append(
        svg(
          'text',
          { x: end(r.marg, r.ci), y: y0 + 2 * BAR_H + 1, class: 'value' },
          `${um.main} marginal`,
        ),
      );
    }
    root.append(g);
  });
  el.replaceChildren(root);
}

/** Each pathway's sessions placed (the decisions' replay) beside those its hops served. */
export function sessionsChart(el: HTMLElement, a: EnergyAccountJson): void {
  const W = Math.max(420, el.clientWidth - 36);
  const plotW = W - LABEL_W - 170;
  const rows = a.pathways.map((p, i) => ({
    p,
    i,
    served: Number(p.sessions_served),
    placed: p.sessions_placed === null ? null : Number(p.sessions_placed),
  }));
  const max = rows.reduce((m, r) => Math.max(m, r.served, r.placed ?? 0), 0);
  const tk = ticks(max);
  const top = tk[tk.length - 1]!;
  const x = (v: number) => LABEL_W + (v / top) * plotW;
  const H = 26 + rows.length * ROW_H + 8;
  const root = svg('svg', {
    width: W,
    height: H,
    viewBox: `0 0 ${W} ${H}`,
    role: 'img',
    class: 'bars',
  });
  root.append(
    title(
      'Sessions placed on each pathway by the decisions (replayed at each period’s midpoint) beside the sessions its edge hops served, summed over its usable periods',
    ),
  );
  for (const v of tk) {
    root.append(
      svg('line', { x1: x(v), x2: x(v), y1: 18, y2: H - 6, stroke: GRID }),
      svg('text', { x: x(v), y: 12, 'text-anchor': 'middle', class: 'tick' }, count(String(v))),
    );
  }
  rows.forEach((r) => {
    const y0 = 26 + r.i * ROW_H;
    const colour = pathwayColour(r.i);
    const g = svg('g', { class: 'row', 'data-pathway': r.p.id });
    g.append(svg('text', { x: 0, y: y0 + BAR_H + 4, class: 'label' }, r.p.id));
    const served = svg(
      'rect',
      {
        x: LABEL_W,
        y: y0,
        width: Math.max(1, x(r.served) - LABEL_W),
        height: BAR_H,
        rx: 3,
        fill: colour,
        'data-kind': 'served',
        'data-value': r.p.sessions_served,
      },
      title(
        `${r.p.id}: ${count(r.p.sessions_served)} sessions served (its edge hops’ sessions, summed over its ${r.p.periods} usable periods)`,
      ),
    );
    g.append(
      served,
      svg(
        'text',
        { x: x(r.served) + 6, y: y0 + BAR_H - 3, class: 'value' },
        `${count(r.p.sessions_served)} served`,
      ),
    );
    const y1 = y0 + BAR_H + 4;
    if (r.placed === null) {
      g.append(
        svg(
          'text',
          { x: LABEL_W + 4, y: y1 + BAR_H - 4, class: 'none' },
          'placed: no decisions given',
        ),
      );
    } else {
      g.append(
        svg(
          'rect',
          {
            x: LABEL_W,
            y: y1,
            width: Math.max(1, x(r.placed) - LABEL_W),
            height: BAR_H,
            rx: 3,
            fill: 'url(#hatch)',
            stroke: colour,
            'stroke-width': 1.5,
            'data-kind': 'placed',
            'data-value': r.p.sessions_placed!,
          },
          title(
            `${r.p.id}: ${count(r.p.sessions_placed!)} sessions placed by the decisions (counted at each usable period’s midpoint)`,
          ),
        ),
        svg(
          'text',
          { x: x(r.placed) + 6, y: y1 + BAR_H - 3, class: 'value' },
          `${count(r.p.sessions_placed!)} placed`,
        ),
      );
    }
    root.append(g);
  });
  // Placed bars are hatched in their pathway's colour: told from the served ones without colour.
  const defs = svg('defs', {});
  const pattern = svg('pattern', {
    id: 'hatch',
    width: 6,
    height: 6,
    patternUnits: 'userSpaceOnUse',
    patternTransform: 'rotate(45)',
  });
  pattern.append(
    svg('rect', { width: 6, height: 6, fill: '#ffffff' }),
    svg('line', { x1: 0, y1: 0, x2: 0, y2: 6, stroke: MUTED, 'stroke-width': 2.5 }),
  );
  defs.append(pattern);
  root.prepend(defs);
  el.replaceChildren(root);
}
