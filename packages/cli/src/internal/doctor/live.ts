/**
 * The server as it runs: does it answer at its listen address, and at `public_url` (through the
 * proxy in front), is it healthy (`/healthz`), does its clock agree with this machine's (its
 * `Date` header), and is its console protected when others can reach it. A server that is not
 * running is said (a note): the doctor also runs before the first start.
 */

import { readStrictJson } from '@wai-steering/config-text';
import type { ServerConfig } from '@wai-steering/server';
import type { Report } from './report.js';

const WILDCARD = new Set(['0.0.0.0', '::', '[::]', '']);

function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127\./.test(h);
}

/** Where this machine reaches the server's listen address. */
export function listenUrl(config: ServerConfig): string {
  const host = WILDCARD.has(config.listen.host)
    ? '127.0.0.1'
    : config.listen.host.includes(':') && !config.listen.host.startsWith('[')
      ? `[${config.listen.host}]`
      : config.listen.host;
  return `http://${host}:${config.listen.port}`;
}

type Probe =
  | { kind: 'answer'; status: number; body: string; date: string | null }
  | { kind: 'none'; why: string };

async function probe(url: string): Promise<Probe> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(5000), redirect: 'manual' });
    return {
      kind: 'answer',
      status: res.status,
      body: await res.text(),
      date: res.headers.get('date'),
    };
  } catch (e) {
    const cause = (e as { cause?: { code?: string } }).cause?.code;
    return { kind: 'none', why: cause ?? (e as Error).message };
  }
}

function health(what: string, url: string, p: Probe & { kind: 'answer' }, report: Report): void {
  if (p.status === 200) {
    report.ok('server', `${what} answers at ${url} (/healthz: ok)`);
    return;
  }
  let causes = p.body.trim();
  // Not JSON (or a name twice): said as it came.
  const read = readStrictJson(p.body);
  const body = (read.ok ? read.value : undefined) as
    | { causes?: { cause: string; message: string }[] }
    | null
    | undefined;
  if (body !== null && typeof body === 'object' && Array.isArray(body.causes)) {
    causes = body.causes.map((c) => `${c.cause}: ${c.message}`).join('; ');
  }
  report.problem(
    'server',
    `${what} at ${url}: /healthz answers ${p.status}${causes === '' ? '' : ` (${causes})`}`,
    'read the server\'s log for the cause (a full disk, the store file gone: docs/server.md, "Degraded health")',
  );
}

/** Probes the running server; `now` is this machine's clock, ms. */
export async function checkServer(
  config: ServerConfig,
  report: Report,
  now: () => number = Date.now,
): Promise<void> {
  if (config.console.enabled && config.console.auth === null && !isLoopback(config.listen.host)) {
    report.problem(
      'console',
      `/status and /console/ are served without auth on ${config.listen.host}, which other machines reach`,
      'set console.auth: { bearer: TOKEN } (or basic), or console.enabled: false',
    );
  }
  if (config.listen.port === 0) {
    report.note('server', 'listen.port is 0 (a free port at each start): not probed');
    return;
  }
  const url = listenUrl(config);
  const here = await probe(`${url}/healthz`);
  if (here.kind === 'none') {
    report.note(
      'server',
      `nothing answers at ${url} (${here.why}): the server is not running here, so it is checked from its files alone`,
    );
  } else {
    health('the server', url, here, report);
    if (here.date !== null) {
      const skew = Math.abs(Date.parse(here.date) - now());
      if (skew > 2000) {
        report.warning(
          'clock',
          `the server's clock (its Date header, ${here.date}) is ${Math.round(skew / 1000)} s from this machine's`,
          "set both clocks right (NTP); the room clock is the server's wall clock at its start",
        );
      }
    }
  }
  if (config.publicUrl !== null && config.publicUrl !== undefined) {
    const front = config.publicUrl.replace(/\/$/, '');
    const there = await probe(`${front}/healthz`);
    if (there.kind === 'none') {
      report.problem(
        'server',
        `nothing answers at public_url ${front} (${there.why}): players and verifiers cannot reach the server`,
        'start the proxy in front (HAProxy: deploy/haproxy.cfg) and check that it forwards to this server',
      );
    } else health('public_url', front, there, report);
  }
}
