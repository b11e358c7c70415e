// The console's colours, as people with a colour-vision deficiency see them: each legend's
// colours (the pathways', the reasons') stay apart under a simulated deuteranopia, protanopia
// and tritanopia (Machado, Oliveira and Fernandes 2009, severity 1, on linear RGB), by at least
// 15 ΔE (CIE 1976, in CIELAB under D65): two colours 15 apart are told apart at a glance. The
// palette the console had before (a blue and a purple 5 ΔE apart under deuteranopia, two
// oranges for buffer and floor) fails this.
import { describe, expect, it } from 'vitest';
import { PATHWAY_COLOURS, REASON_COLOURS } from '../src/console/charts.js';

type Matrix = readonly (readonly [number, number, number])[];

const SIMULATIONS: Readonly<Record<string, Matrix>> = {
  deuteranopia: [
    [0.367322, 0.860646, -0.227968],
    [0.280085, 0.672501, 0.047413],
    [-0.01182, 0.04294, 0.968881],
  ],
  protanopia: [
    [0.152286, 1.052583, -0.204868],
    [0.114503, 0.786281, 0.099216],
    [-0.003882, -0.048116, 1.051998],
  ],
  tritanopia: [
    [1.255528, -0.076749, -0.178779],
    [-0.078411, 0.930809, 0.147602],
    [0.004733, 0.691367, 0.3039],
  ],
};

const linear = (c: number): number => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);

function linearRgb(hex: string): [number, number, number] {
  const [r, g, b] = [1, 3, 5].map((i) => linear(Number.parseInt(hex.slice(i, i + 2), 16) / 255));
  return [r!, g!, b!];
}

/** CIELAB (D65) of a linear RGB colour, clipped to the gamut. */
function lab(rgb: readonly number[]): [number, number, number] {
  const [r, g, b] = rgb.map((v) => Math.min(1, Math.max(0, v))) as [number, number, number];
  const x = 0.4124 * r + 0.3576 * g + 0.1805 * b;
  const y = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  const z = 0.0193 * r + 0.1192 * g + 0.9505 * b;
  const f = (t: number) => (t > 216 / 24389 ? Math.cbrt(t) : ((24389 / 27) * t + 16) / 116);
  const [fx, fy, fz] = [f(x / 0.95047), f(y), f(z / 1.08883)];
  return [116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)];
}

function seen(hex: string, m: Matrix | undefined): [number, number, number] {
  const c = linearRgb(hex);
  return lab(m === undefined ? c : m.map((row) => row[0] * c[0] + row[1] * c[1] + row[2] * c[2]));
}

/** The closest two colours of `colours` as seen through `m`, and how far apart. */
function closest(colours: readonly string[], m: Matrix | undefined): { d: number; pair: string } {
  let best = { d: Number.POSITIVE_INFINITY, pair: '' };
  for (let i = 0; i < colours.length; i++) {
    for (let j = i + 1; j < colours.length; j++) {
      const [a, b] = [seen(colours[i]!, m), seen(colours[j]!, m)];
      const d = Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);
      if (d < best.d) best = { d, pair: `${colours[i]} ${colours[j]}` };
    }
  }
  return best;
}

const LEGENDS: Readonly<Record<string, readonly string[]>> = {
  pathways: PATHWAY_COLOURS,
  reasons: Object.values(REASON_COLOURS),
};

describe("the console's legends", () => {
  for (const [legend, colours] of Object.entries(LEGENDS)) {
    for (const [vision, m] of [['normal', undefined], ...Object.entries(SIMULATIONS)] as const) {
      it(`${legend}: every two colours at least 15 ΔE apart, ${vision} vision`, () => {
        const { d, pair } = closest(colours, m);
        expect(d, pair).toBeGreaterThanOrEqual(15);
      });
    }
  }

  it('would fail the palette it replaced', () => {
    const before = ['#0f766e', '#2563eb', '#9333ea', '#d97706', '#b45309', '#dc2626'];
    expect(closest(before, SIMULATIONS.deuteranopia).d).toBeLessThan(15);
  });
});
