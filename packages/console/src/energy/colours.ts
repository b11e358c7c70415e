/**
 * The Energy page's colours: the Okabe–Ito palette (Okabe and Ito 2008), whose colours stay
 * apart under the common colour-vision deficiencies (deuteranopia and protanopia among them);
 * and the two views told apart by more than colour: the marginal view solid with its band, the
 * average view dashed.
 */
export const MARGINAL = '#0072B2';
export const MARGINAL_BAND = 'rgba(0, 114, 178, 0.16)';
export const AVERAGE = '#E69F00';
export const INK = '#1c2430';
export const MUTED = '#5f6b7a';
export const GRID = '#e9edf2';

/** Pathways, in the policy's order: the palette's other colours than the two views'. */
export const PATHWAYS = ['#009E73', '#CC79A7', '#56B4E9', '#D55E00', '#000000', '#F0E442'];

export function pathwayColour(i: number): string {
  return PATHWAYS[i % PATHWAYS.length]!;
}
