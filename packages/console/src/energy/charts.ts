/**
 * The Energy page's plots, with uPlot: the cumulative saving over the span in both views (local
 * time; the marginal view with its 95 % band), and each pathway's fit (its sampled periods' J
 * against D, the fitted line and the idle level). Each plot's element carries what it drew
 * (`data-*`), for whoever checks what the page shows.
 */
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { AVERAGE, GRID, INK, MARGINAL, MARGINAL_BAND, MUTED, pathwayColour } from './colours.js';
import type { Cumulative, Fit } from './model.js';
import { deliveryUnit, energy, energyUnit } from './units.js';

const FONT = '12px system-ui, sans-serif';

function axis(label: string, extra: Partial<uPlot.Axis> = {}): uPlot.Axis {
  const grid = { stroke: GRID, width: 1 };
  return {
    grid,
    ticks: grid,
    stroke: MUTED,
    font: FONT,
    label,
    labelFont: FONT,
    labelSize: 18,
    ...extra,
  };
}

/** The local time zone's name, for the time axis. */
function zone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone ?? 'local time';
  } catch {
    return 'local time';
  }
}

/** Tick labels of local times: clock times, with the date where the day changes. */
function timeLabels(splits: number[], incr: number): string[] {
  const time = new Intl.DateTimeFormat(undefined, {
    hour: '2-digit',
    minute: '2-digit',
    ...(incr < 60 ? { second: '2-digit' } : {}),
  });
  const day = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric' });
  let last = '';
  return splits.map((s) => {
    if (!Number.isFinite(s)) return '';
    const d = new Date(s * 1000);
    const date = day.format(d);
    const label =
      incr >= 86_400
        ? date
        : date !== last && last !== ''
          ? `${date}\n${time.format(d)}`
          : time.format(d);
    last = date;
    return label;
  });
}

/** The cursor on a plot's last point, so that its legend states the figures at the end. */
function atEnd(plot: uPlot): void {
  const xs = plot.data[0];
  const last = xs[xs.length - 1];
  if (last === undefined) return;
  plot.setCursor({ left: plot.valToPos(last, 'x'), top: 0 });
}

function width(el: HTMLElement, min = 300): number {
  return Math.max(min, el.clientWidth - 8);
}

/**
 * The cumulative saving: both views (`both`), the marginal with its band; or the marginal view
 * alone at its own scale (`marginal`), where the average view would flatten its band.
 */
export function savedChart(el: HTMLElement, c: Cumulative, views: 'both' | 'marginal'): uPlot {
  el.replaceChildren();
  const shown =
    views === 'both' ? [c.average, c.marginal, c.low, c.high] : [c.marginal, c.low, c.high];
  const values = shown.flat().filter((v): v is number => v !== null);
  const big = values.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
  const { unit, scale } = energyUnit(big);
  const scaled = (xs: (number | null)[]) => xs.map((v) => (v === null ? null : v / scale));
  const fmt = (_u: uPlot, v: number | null) => (v === null ? '—' : energy(v * scale));
  const series: uPlot.Series[] = [
    {
      label: 'time',
      value: (_u, v) => (v === null ? '—' : new Date(v * 1000).toLocaleString()),
    },
    { label: 'marginal view', stroke: MARGINAL, width: 2.5, value: fmt },
    { label: '95 % low', stroke: 'transparent', width: 0, value: fmt, points: { show: false } },
    { label: '95 % high', stroke: 'transparent', width: 0, value: fmt, points: { show: false } },
  ];
  const data = [c.x, scaled(c.marginal), scaled(c.low), scaled(c.high)];
  if (views === 'both') {
    series.push({ label: 'average view', stroke: AVERAGE, width: 2.5, dash: [8, 5], value: fmt });
    data.push(scaled(c.average));
  }
  const plot = new uPlot(
    {
      width: width(el),
      height: 320,
      cursor: { y: false },
      legend: { live: true },
      scales: {
        x: { time: true },
        y: {
          range: (_u, min, max) => {
            const lo = Math.min(0, min ?? 0);
            const hi = Math.max(0, max ?? 0);
            const pad = (hi - lo) * 0.08 || 1;
            return [lo < 0 ? lo - pad : 0, hi + pad];
          },
        },
      },
      series,
      bands: [{ series: [3, 2], fill: MARGINAL_BAND }],
      axes: [
        axis(zone(), {
          space: 90,
          values: (_u, splits, _a, _s, incr) => timeLabels(splits, incr),
        }),
        axis(`saved, ${unit}`, {
          size: 64,
          values: (_u, splits) => splits.map((v) => String(+v.toPrecision(4))),
        }),
      ],
    },
    data as uPlot.AlignedData,
    el,
  );
  atEnd(plot);
  const last = (xs: (number | null)[]) => xs[xs.length - 1] ?? null;
  el.dataset.points = String(c.x.length);
  el.dataset.unit = unit;
  el.dataset.lastMarginalUj = String(last(c.marginal));
  el.dataset.lastLowUj = String(last(c.low));
  el.dataset.lastHighUj = String(last(c.high));
  if (views === 'both') el.dataset.lastAverageUj = String(last(c.average));
  return plot;
}

/** A pathway's fit: its periods' J against D, the fitted line and the idle level. */
export function fitChart(el: HTMLElement, fit: Fit, index: number, basis: number): uPlot {
  el.replaceChildren();
  const dMax = fit.d.reduce((m, v) => Math.max(m, v), 0);
  const jMax = fit.j.reduce((m, v) => Math.max(m, v), 0);
  const du = deliveryUnit(dMax, basis);
  const ju = energyUnit(Math.max(jMax, fit.idle ?? 0));
  const colour = pathwayColour(index);
  // From D = 0, where the fitted line meets the idle level.
  const idleY = fit.idle === null ? null : fit.idle / ju.scale;
  const xs = [0, ...fit.d.map((d) => d / du.scale)];
  const ys = [null, ...fit.j.map((j) => j / ju.scale)];
  const line = [idleY, ...fit.line.map((v) => (v === null ? null : v / ju.scale))];
  const idle = xs.map(() => idleY);
  const e = (_u: uPlot, v: number | null) => (v === null ? '—' : energy(v * ju.scale));
  const plot = new uPlot(
    {
      width: width(el, 260),
      height: 240,
      cursor: { y: false },
      legend: { live: true },
      scales: {
        x: { time: false, range: (_u, _min, max) => [0, Math.max(1e-9, (max ?? 1) * 1.05)] },
        y: { range: (_u, _min, max) => [0, Math.max(1e-9, (max ?? 1) * 1.08)] },
      },
      series: [
        {
          label: `D, ${du.unit}`,
          value: (_u, v) => (v === null ? '—' : `${+v.toPrecision(4)} ${du.unit}`),
        },
        {
          label: 'a period',
          stroke: colour,
          width: 0,
          paths: () => null,
          points: { show: true, size: 5, fill: colour, stroke: colour, width: 1 },
          value: e,
        },
        { label: 'fitted line', stroke: INK, width: 2, points: { show: false }, value: e },
        {
          label: 'idle level',
          stroke: MUTED,
          width: 1.5,
          dash: [4, 4],
          points: { show: false },
          value: e,
        },
      ],
      axes: [
        axis(`delivery per period, ${du.unit}`, {
          values: (_u, splits) => splits.map((v) => String(+v.toPrecision(3))),
        }),
        axis(`energy per period, ${ju.unit}`, {
          size: 56,
          values: (_u, splits) => splits.map((v) => String(+v.toPrecision(3))),
        }),
      ],
    },
    [xs, ys, line, idle] as uPlot.AlignedData,
    el,
  );
  atEnd(plot);
  el.dataset.pathway = fit.id;
  el.dataset.points = String(fit.d.length);
  el.dataset.line = String(line.some((v) => v !== null));
  el.dataset.idle = String(fit.idle !== null);
  return plot;
}
