/**
 * The operator console: polls the server's `/status` and `/status/history?since=` once a second
 * (docs/console.md) and draws them. With a bearer token configured, the page asks for it once and
 * keeps it for the tab (sessionStorage).
 */
import '../common/style.css';
import { readStrictJson } from '@wai-steering/config-text';
import { byId, fill } from '../common/dom.js';
import { Charts, HistoryBuffer } from './charts.js';
import { renderDecisions, renderHops, renderMeta, renderPathways } from './render.js';
import type { History, Status } from './types.js';

const TOKEN_KEY = 'wai-steering-console-token';
const statusUrl = new URL('../status', location.href);
const historyUrl = new URL('../status/history', location.href);

class Unauthorised extends Error {}

function authHeaders(): Record<string, string> {
  const token = sessionStorage.getItem(TOKEN_KEY);
  return token === null ? {} : { authorization: `Bearer ${token}` };
}

async function getJson<T>(url: URL): Promise<T> {
  const res = await fetch(url, { headers: authHeaders(), cache: 'no-store' });
  if (res.status === 401) throw new Unauthorised();
  if (!res.ok) throw new Error(`${url.pathname}: HTTP ${res.status}`);
  const read = readStrictJson(await res.text());
  if (!read.ok) throw new Error(`${url.pathname}: ${read.problem}`);
  return read.value as T;
}

const buffer = new HistoryBuffer();
const charts = new Charts({
  decisions: byId('chart-decisions'),
  loads: byId('chart-loads'),
  share: byId('chart-share'),
});
const verifyHref = (uri: string): string => `./verify?uri=${encodeURIComponent(uri)}`;

function setLive(state: 'live' | 'lost' | 'connecting', text: string): void {
  byId('live').dataset.state = state;
  fill(byId('live-text'), text);
}

function askToken(message?: string): void {
  byId('auth').hidden = false;
  const err = byId('auth-error');
  err.hidden = message === undefined;
  fill(err, message ?? '');
  setLive('lost', 'needs a token');
}

byId<HTMLFormElement>('auth-form').addEventListener('submit', (e) => {
  e.preventDefault();
  sessionStorage.setItem(TOKEN_KEY, byId<HTMLInputElement>('auth-token').value.trim());
  byId('auth').hidden = true;
  void tick();
});

let busy = false;
async function tick(): Promise<void> {
  // Not while the tab is hidden (a console left open in the background costs the server nothing).
  if (busy || !byId('auth').hidden || document.hidden) return;
  busy = true;
  try {
    const since = buffer.last;
    historyUrl.search = since === 0 ? '' : `?since=${since}`;
    const [status, history] = await Promise.all([
      getJson<Status>(statusUrl),
      getJson<History>(historyUrl),
    ]);
    buffer.append(history);
    renderMeta(status);
    renderPathways(status);
    renderHops(status);
    renderDecisions(status, verifyHref);
    charts.draw(buffer);
    byId('problem').hidden = true;
    setLive('live', `live · ${new Date().toISOString().slice(11, 19)} UTC`);
    document.body.dataset.ready = 'true';
  } catch (e) {
    if (e instanceof Unauthorised) {
      const had = sessionStorage.getItem(TOKEN_KEY) !== null;
      sessionStorage.removeItem(TOKEN_KEY);
      askToken(had ? 'That token was refused.' : undefined);
    } else {
      setLive('lost', 'cannot reach the server');
      const p = byId('problem');
      p.hidden = false;
      fill(p, `The status could not be read: ${(e as Error).message}. Retrying every second.`);
    }
  } finally {
    busy = false;
  }
}

void tick();
setInterval(() => void tick(), 1000);
document.addEventListener('visibilitychange', () => void tick());
