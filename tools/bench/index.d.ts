export interface Settings {
  readonly rounds: number;
  readonly seconds: number;
  readonly clock: 'wall' | 'cpu';
}
export interface RoundOptions {
  readonly seconds?: number;
  readonly batch?: number;
  readonly clock?: 'wall' | 'cpu';
}
export interface MeasureOptions extends RoundOptions {
  readonly rounds?: number;
  readonly warmup?: number;
}
export interface Figure {
  readonly best: number;
  readonly median: number;
}
export type Op = (i: number) => unknown;
export declare const CLOCKS: Readonly<Record<'wall' | 'cpu', () => number>>;
export declare function settings(defaults?: Partial<Settings>): Settings;
export declare function median(xs: readonly number[]): number;
export declare function usPerCall(op: Op, options?: RoundOptions): number;
export declare function warm(op: Op, seconds?: number, batch?: number): void;
export declare function measure(op: Op, options?: MeasureOptions): Figure & { rounds: number[] };
export declare function compare<K extends string>(
  baseline: Op,
  ops: Record<K, Op>,
  options?: MeasureOptions,
): Record<K, Figure & { ratio: number; ratios: number[] }> & { baseline: Figure };
export declare const BASELINE_NAME: string;
export declare function baselineSign(): Uint8Array;
export declare const fmt: Readonly<{
  us(x: number): string;
  perSecond(us: number): string;
  ratio(x: number): string;
  int(x: number): string;
}>;
export declare function table(
  title: string,
  header: readonly string[],
  lines: readonly (readonly unknown[])[],
  log?: (line: string) => void,
): void;
