/**
 * The agent's own endpoints: `GET /metrics` (Prometheus text exposition) and `GET /health`
 * (`200` while it cuts on time, `503` otherwise, a JSON body either way).
 */
import { createServer, type Server } from 'node:http';
import { CLASS_LABEL } from '@wai-steering/wire';
import type { HopAgent } from './agent/agent.js';

function escapeLabel(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

/** The agent's metrics, in the text exposition format 0.0.4. */
export function metricsText(agent: HopAgent): string {
  const c = agent.counts;
  const lines: string[] = [];
  const metric = (
    name: string,
    type: string,
    help: string,
    rows: [string, string | number | bigint][],
  ) => {
    lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
    for (const [labels, v] of rows) lines.push(`${name}${labels} ${v}`);
  };
  metric(
    'wai_agent_periods_total',
    'counter',
    'Records cut, by class (0: the unmetered marker).',
    [...c.periods.entries()].map(([k, v]) => [`{class="${CLASS_LABEL[k] ?? 'unmetered'}"}`, v]),
  );
  metric('wai_agent_energy_microjoules_total', 'counter', 'Energy stated in the records cut, µJ.', [
    ['', c.joules],
  ]);
  metric('wai_agent_bytes_total', 'counter', 'Bytes sent out stated in the records cut.', [
    ['', c.bytes],
  ]);
  metric('wai_agent_sessions', 'gauge', 'Sessions of the last period cut.', [['', c.sessions]]);
  metric('wai_agent_last_period_end_seconds', 'gauge', 'End of the last period cut, room clock.', [
    ['', Number(c.lastEnd / 1000n) / 1000],
  ]);
  metric('wai_agent_source_errors_total', 'counter', 'Readings of a source that failed.', [
    ['', c.sourceErrors],
  ]);
  metric(
    'wai_agent_spool_errors_total',
    'counter',
    'Records that could not be written to the spool when due (cut again, unmetered, once it can).',
    [['', c.spoolErrors]],
  );
  metric(
    'wai_agent_spool_files_refused_total',
    'counter',
    'Spool files that did not read, moved to refused/.',
    [['', c.spoolRefused]],
  );
  const servers = agent.servers;
  const by = (f: (s: (typeof servers)[number]) => number): [string, number][] =>
    servers.map((s) => [`{server="${escapeLabel(s.server)}"}`, f(s)]);
  metric(
    'wai_agent_records_sent_total',
    'counter',
    'Records a server took.',
    by((s) => s.sent),
  );
  metric(
    'wai_agent_records_refused_total',
    'counter',
    'Records a server refused.',
    by((s) => s.refused),
  );
  metric(
    'wai_agent_send_errors_total',
    'counter',
    'Sends that failed and are retried.',
    by((s) => s.errors),
  );
  metric(
    'wai_agent_records_pending',
    'gauge',
    'Records a server has yet to take.',
    by((s) => s.pending),
  );
  return `${lines.join('\n')}\n`;
}

/** Serves the agent's `/metrics` and `/health` at host:port; resolves when listening. */
export async function serveAgentHttp(agent: HopAgent, host: string, port: number): Promise<Server> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end();
      return;
    }
    if (path === '/metrics') {
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' });
      res.end(metricsText(agent));
      return;
    }
    if (path === '/health' || path === '/healthz') {
      const h = agent.health();
      res.writeHead(h.ok ? 200 : 503, { 'content-type': 'application/json' });
      res.end(`${JSON.stringify({ ok: h.ok, lastEnd: String(h.lastEnd), pending: h.pending })}\n`);
      return;
    }
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return server;
}
