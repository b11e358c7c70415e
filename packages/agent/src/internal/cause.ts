/** The one-word cause of a failed `fetch` (`ECONNREFUSED`, `TimeoutError`), or its message. */
export function causeOf(e: unknown): string {
  let cur: unknown = e;
  for (let depth = 0; depth < 5 && cur !== undefined && cur !== null; depth++) {
    const c = cur as { code?: unknown; name?: unknown; errors?: unknown[]; cause?: unknown };
    if (typeof c.code === 'string') return c.code;
    if (c.name === 'TimeoutError') return 'timed out';
    if (Array.isArray(c.errors) && c.errors.length > 0) {
      cur = c.errors[0];
      continue;
    }
    cur = c.cause;
  }
  return (e as Error).message ?? String(e);
}
