// The Prometheus exposition the server writes: counters, gauges read at scrape time, histograms.
import { describe, expect, it } from 'vitest';
import { Counter, Gauge, Histogram, Metrics } from '../src/metrics.js';

function lines(m: { write(out: string[]): void }): string[] {
  const out: string[] = [];
  m.write(out);
  return out;
}

describe('metrics', () => {
  it('counts per label set, by labels or by a short key, and escapes label values', () => {
    const c = new Counter('x_total', 'Help.');
    c.inc({ a: '1' });
    c.inc({ a: '1' }, 2);
    c.incKey('k', () => ({ a: '1' }));
    c.incKey('k', () => ({ a: 'never read again' }));
    c.inc({ a: 'q"\\\n' });
    expect(c.get({ a: '1' })).toBe(5);
    expect(lines(c)).toEqual([
      '# HELP x_total Help.',
      '# TYPE x_total counter',
      'x_total{a="1"} 5',
      'x_total{a="q\\"\\\\\\n"} 1',
    ]);
  });

  it('reads gauges at scrape time', () => {
    let v = 1;
    const g = new Gauge('g', 'A gauge.', () => [[{ p: 'a' }, v]]);
    expect(lines(g).at(-1)).toBe('g{p="a"} 1');
    v = Number.POSITIVE_INFINITY;
    expect(lines(g).at(-1)).toBe('g{p="a"} +Inf');
  });

  it('writes cumulative buckets, sum and count', () => {
    const h = new Histogram('h', 'A histogram.', [0.1, 1]);
    for (const v of [0.05, 0.5, 0.5, 5]) h.observe(v);
    expect(h.count).toBe(4);
    expect(lines(h).slice(2)).toEqual([
      'h_bucket{le="0.1"} 1',
      'h_bucket{le="1"} 3',
      'h_bucket{le="+Inf"} 4',
      'h_sum 6.05',
      'h_count 4',
    ]);
  });

  it("renders the server's metrics and the gauges registered, each with its help", () => {
    const m = new Metrics();
    m.gauge('wai_steering_extra', 'Extra.', () => [[{}, 3]]);
    const text = m.render();
    expect(text).toContain('# TYPE wai_steering_http_requests_total counter');
    expect(text).toContain('wai_steering_extra 3');
    expect(text.endsWith('\n')).toBe(true);
  });
});
