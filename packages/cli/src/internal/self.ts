/**
 * How the user runs this command line, for the commands it prints for them to run next: the
 * repository's launcher (`pnpm wai-steer`, `pnpm demo`) sets `WAI_STEER_AS` to `pnpm wai-steer`,
 * since no `wai-steer` is on the PATH of a checkout; an installed bin is `wai-steer`.
 */
export function selfName(env: NodeJS.ProcessEnv = process.env): string {
  const as = env.WAI_STEER_AS?.trim();
  return as === undefined || as === '' ? 'wai-steer' : as;
}
