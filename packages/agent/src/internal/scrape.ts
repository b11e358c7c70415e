import { SourceError } from '../types.js';
import { causeOf } from './cause.js';
import { parseExposition, type Sample } from './exposition.js';

/** A series selector: a metric name and labels each sample must have with these values. */
export interface Selector {
  readonly metric: string;
  readonly labels?: Readonly<Record<string, string>> | undefined;
}

/** Scrapes an exposition over HTTP (bounded in time) and returns the samples of a selector. */
export async function scrape(url: string, selector: Selector, timeoutMs = 5000): Promise<Sample[]> {
  let text: string;
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    text = await res.text();
    if (res.status !== 200) throw new SourceError(`scraping ${url}: HTTP ${res.status}`);
  } catch (e) {
    if (e instanceof SourceError) throw e;
    const cause = causeOf(e);
    throw new SourceError(`cannot scrape ${url}: ${cause}`);
  }
  const wanted = Object.entries(selector.labels ?? {});
  const found = parseExposition(text).filter(
    (s) => s.name === selector.metric && wanted.every(([k, v]) => s.labels[k] === v),
  );
  if (found.length === 0) {
    const labels = wanted.map(([k, v]) => `${k}="${v}"`).join(',');
    throw new SourceError(`${url} exposes no series ${selector.metric}{${labels}}`);
  }
  return found;
}
