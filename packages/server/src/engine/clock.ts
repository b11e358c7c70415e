/** The room clock of a server: µs since the epoch. */

/** The room clock from the process's monotonic clock, calibrated once against the wall clock. */
export function monotonicClock(): () => bigint {
  const baseUs = BigInt(Date.now()) * 1000n;
  const baseHr = process.hrtime.bigint();
  return () => baseUs + (process.hrtime.bigint() - baseHr) / 1000n;
}
