/**
 * The server's signed statement of the energy account over a span, as `GET /energy/statement`
 * serves it (`text/plain`, the C2SP signed note): `null` when the server serves none (`404`: an
 * older server, or one that signs no statement). A server computing other accounts answers `503`
 * with `Retry-After`: asked again, a few times.
 */
import { UserError } from './errors.js';

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** The statement of `[from, to)`; a {@link UserError} with the server's line when it refuses. */
export async function fetchStatement(
  base: URL,
  from: bigint,
  to: bigint,
  fetcher: typeof fetch = fetch,
): Promise<string | null> {
  const url = new URL(`/energy/statement?from=${from}&to=${to}`, base);
  for (let attempt = 0; ; attempt++) {
    let res: Response;
    try {
      res = await fetcher(url, { signal: AbortSignal.timeout(300_000) });
    } catch (e) {
      const cause = (e as { cause?: { code?: string } }).cause?.code;
      throw new UserError(`GET ${url}: ${cause ?? (e as Error).message}`);
    }
    const body = await res.text().catch(() => '');
    if (res.status === 404) return null;
    if (res.status === 503 && attempt < 20) {
      const after = Number(res.headers.get('retry-after'));
      await sleep(Math.min(5000, Number.isFinite(after) && after > 0 ? after * 1000 : 500));
      continue;
    }
    if (!res.ok) {
      let why = body.split('\n')[0]!.trim();
      try {
        const v = JSON.parse(body) as { message?: unknown };
        if (typeof v.message === 'string') why = v.message;
      } catch {
        // its text
      }
      throw new UserError(`GET ${url}: HTTP ${res.status}${why === '' ? '' : `: ${why}`}`);
    }
    return body;
  }
}
