/**
 * The time axis of the console's plots, in the page's one form of times: 24-hour clock times in
 * UTC (`18:00`, `18:00:30`), never the browser's local 12-hour time, with ticks far enough apart
 * that their labels never overlap. uPlot's own time labels are local by default (`6:00pm`) and
 * stack the date under the time at midnight and at the first tick (`12/1/26 6:00pm`), which a
 * 220-pixel plot overlaps with the next label.
 */

/** The axis font, set on the axis and used to measure its labels. */
export const AXIS_FONT = '11px system-ui, sans-serif';

/** The least space between two ticks, px: a label `HH:MM:SS` is about 50 px in the axis font. */
export const TICK_SPACE_PX = 80;

/**
 * The label of each tick (`splits`: unix seconds; `incr`: seconds between ticks): `HH:MM` when
 * the ticks are a minute or more apart, `HH:MM:SS` when seconds apart, `HH:MM:SS.mmm` below a
 * second; UTC. An empty label where uPlot has no tick.
 */
export function timeTickLabels(splits: readonly (number | null)[], incr: number): string[] {
  const end = incr >= 60 ? 16 : incr >= 1 ? 19 : 23;
  return splits.map((s) =>
    s === null || !Number.isFinite(s) ? '' : new Date(s * 1000).toISOString().slice(11, end),
  );
}
