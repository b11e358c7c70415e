/**
 * The console's three plots over the server's 15-minute history, with uPlot: decisions per
 * second by reason, load per pathway, and each pathway's share of the sessions placed first
 * (a rolling 10-second share, so that a quiet second does not read as 0 %).
 */
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { AXIS_FONT, TICK_SPACE_PX, timeTickLabels } from './time-axis.js';
import type { History } from './types.js';

/**
 * Colours of the pathways, in the policy's order, and of the reasons: Okabe and Ito's palette,
 * which people with a colour-vision deficiency tell apart (each pair at least 15 ΔE apart under
 * simulated deuteranopia, protanopia and tritanopia: test/colours.test.ts). The reasons that
 * are easiest to confuse are also drawn dashed (`REASON_DASH`), which the legend shows.
 */
export const PATHWAY_COLOURS = ['#0072b2', '#e69f00', '#009e73', '#cc79a7', '#d55e00', '#56b4e9'];
export const REASON_COLOURS: Readonly<Record<string, string>> = {
  rank: '#009e73',
  hold: '#0072b2',
  share: '#cc79a7',
  buffer: '#e69f00',
  floor: '#56b4e9',
  none: '#d55e00',
};
/**
 * The reasons drawn dashed or dotted (uPlot's `dash`, which the legend's marker shows as its
 * border), so that of the two closest colours under each deficiency (rank and share, buffer and
 * none, hold and floor) one is known by its pattern too.
 */
const REASON_DASH: Readonly<Record<string, number[]>> = {
  share: [8, 4],
  floor: [8, 4],
  none: [2, 3],
};

const KEEP_S = 900;
const MIN_SPAN_S = 60;
/** Below this many samples, each is marked with a point as well as a line. */
const FEW = 40;
const SHARE_WINDOW_S = 10;

/** The history held by the page: appended to from `/status/history?since=`. */
export class HistoryBuffer {
  t: number[] = [];
  decisions: Record<string, number[]> = {};
  first: number[][] = [];
  loads: number[][] = [];
  pathways: string[] = [];

  /** The last sample's t, or 0. */
  get last(): number {
    return this.t[this.t.length - 1] ?? 0;
  }

  append(h: History): void {
    if (this.pathways.length === 0) {
      this.pathways = h.pathways;
      this.first = h.pathways.map(() => []);
      this.loads = h.pathways.map(() => []);
    }
    this.t.push(...h.t);
    for (const [r, v] of Object.entries(h.decisions)) {
      this.decisions[r] ??= [];
      this.decisions[r].push(...v);
    }
    h.first.forEach((v, i) => {
      this.first[i]?.push(...v);
    });
    h.loads.forEach((v, i) => {
      this.loads[i]?.push(...v);
    });
    const drop = this.t.length - KEEP_S;
    if (drop > 0) {
      this.t.splice(0, drop);
      for (const v of Object.values(this.decisions)) v.splice(0, drop);
      for (const v of this.first) v.splice(0, drop);
      for (const v of this.loads) v.splice(0, drop);
    }
  }

  /** Each pathway's share (%) of the sessions placed first over the last 10 s at each sample. */
  shares(): (number | null)[][] {
    const n = this.t.length;
    const sums = this.first.map(() => 0);
    const out = this.first.map(() => new Array<number | null>(n).fill(null));
    for (let k = 0; k < n; k++) {
      let total = 0;
      this.first.forEach((v, i) => {
        sums[i]! += v[k]!;
        if (k >= SHARE_WINDOW_S) sums[i]! -= v[k - SHARE_WINDOW_S]!;
        total += sums[i]!;
      });
      this.first.forEach((_, i) => {
        out[i]![k] = total === 0 ? null : (sums[i]! * 100) / total;
      });
    }
    return out;
  }
}

function sizeOf(el: HTMLElement): { width: number; height: number } {
  return { width: Math.max(280, el.clientWidth - 4), height: 220 };
}

/**
 * The axes of a plot: time in 24-hour UTC (`time-axis.ts`), ticks far enough apart for their
 * labels; the tick labels last drawn, with their positions, are kept on the plot's element
 * (`data-x-ticks`) for whoever checks what the page shows.
 */
function axes(unit: string, el: HTMLElement): uPlot.Axis[] {
  const grid = { stroke: '#e9edf2', width: 1 };
  return [
    {
      grid,
      ticks: grid,
      stroke: '#5f6b7a',
      font: AXIS_FONT,
      space: TICK_SPACE_PX,
      label: 'UTC',
      labelSize: 16,
      labelFont: AXIS_FONT,
      values: (u, splits, _axis, _space, incr) => {
        const labels = timeTickLabels(splits, incr);
        el.dataset.xTicks = JSON.stringify(
          labels.map((label, i) => ({ label, x: u.valToPos(splits[i]!, 'x') })),
        );
        return labels;
      },
    },
    {
      grid,
      ticks: grid,
      stroke: '#5f6b7a',
      font: AXIS_FONT,
      label: unit,
      labelSize: 18,
      labelFont: AXIS_FONT,
      size: 50,
    },
  ];
}

/** The three plots, drawn into their containers and redrawn from the buffer. */
export class Charts {
  private decisions: uPlot | undefined;
  private loads: uPlot | undefined;
  private share: uPlot | undefined;
  private reasons: string[] = [];

  constructor(
    private readonly els: { decisions: HTMLElement; loads: HTMLElement; share: HTMLElement },
  ) {
    window.addEventListener('resize', () => {
      for (const [p, el] of [
        [this.decisions, els.decisions],
        [this.loads, els.loads],
        [this.share, els.share],
      ] as const) {
        p?.setSize(sizeOf(el));
      }
    });
  }

  private make(buf: HistoryBuffer): void {
    this.reasons = Object.keys(buf.decisions);
    const line = (label: string, stroke: string): uPlot.Series => ({
      label,
      stroke,
      width: 2,
      points: { show: (u: uPlot) => (u.data[0]?.length ?? 0) < FEW, size: 5 },
    });
    // Counts per second are steps, not slopes between samples.
    const stepped = uPlot.paths.stepped?.({ align: 1 });
    const step = (label: string, stroke: string): uPlot.Series => ({
      ...line(label, stroke),
      ...(stepped === undefined ? {} : { paths: stepped }),
    });
    // Time in UTC, as the rest of the page; at least a minute shown, so that a young history
    // does not stretch a few seconds across the plot.
    const common = {
      tzDate: (ts: number) => uPlot.tzDate(new Date(ts * 1e3), 'Etc/UTC'),
      // Thick markers: a legend's colour (and its dash) is seen at a glance.
      legend: { live: false, markers: { width: 3 } },
      cursor: { show: true, y: false },
    };
    const x: uPlot.Scale = {
      time: true,
      range: (_u, min, max) => {
        // No sample yet (a server just started): the minute up to now, not the epoch's.
        if (min === null || max === null || !Number.isFinite(min) || !Number.isFinite(max)) {
          const now = Math.floor(Date.now() / 1000);
          return [now - MIN_SPAN_S, now];
        }
        return [Math.min(min, max - MIN_SPAN_S), max];
      },
    };
    const fromZero: uPlot.Scale = { range: (_u, _min, max) => [0, Math.max(1, max * 1.1)] };
    this.decisions = new uPlot(
      {
        ...common,
        ...sizeOf(this.els.decisions),
        scales: { x, y: fromZero },
        series: [
          {},
          ...this.reasons.map((r) => {
            const dash = REASON_DASH[r];
            const series = step(r, REASON_COLOURS[r] ?? '#64748b');
            return dash === undefined ? series : { ...series, dash };
          }),
        ],
        axes: axes('per s', this.els.decisions),
      },
      [[]],
      this.els.decisions,
    );
    const pathwaySeries = buf.pathways.map((id, i) =>
      line(id, PATHWAY_COLOURS[i % PATHWAY_COLOURS.length]!),
    );
    this.loads = new uPlot(
      {
        ...common,
        ...sizeOf(this.els.loads),
        scales: { x, y: fromZero },
        series: [{}, ...pathwaySeries],
        axes: axes('sessions', this.els.loads),
      },
      [[]],
      this.els.loads,
    );
    this.share = new uPlot(
      {
        ...common,
        ...sizeOf(this.els.share),
        scales: { x, y: { range: [0, 100] } },
        series: [{}, ...pathwaySeries.map((s) => ({ ...s }))],
        axes: axes('%', this.els.share),
      },
      [[]],
      this.els.share,
    );
  }

  draw(buf: HistoryBuffer): void {
    if (buf.pathways.length === 0) return;
    if (this.decisions === undefined) this.make(buf);
    const t = buf.t;
    this.decisions!.setData([
      t,
      ...this.reasons.map((r) => buf.decisions[r] ?? []),
    ] as uPlot.AlignedData);
    this.loads!.setData([t, ...buf.loads] as uPlot.AlignedData);
    this.share!.setData([t, ...buf.shares()] as uPlot.AlignedData);
  }
}
