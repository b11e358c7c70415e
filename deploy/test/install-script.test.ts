// deploy/install.sh run again over a running deployment: the instances are stopped before
// anything touches PostgreSQL, PostgreSQL is never restarted under them, and PostgreSQL is asked
// whether it is ready as its own user (as root, pg_isready would ask for the role root, and the
// peer authentication's refusal is a FATAL line in its log). The integration test runs the
// install twice and finds no 57P01 and no FATAL; this one holds the script's order.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const HERE = join(dirname(fileURLToPath(import.meta.url)), '..');
const install = readFileSync(join(HERE, 'install.sh'), 'utf8');
const ops = readFileSync(join(HERE, 'ops.sh'), 'utf8');

/** The script's lines that run (comments and blank lines left out), with their number. */
function commands(script: string): { n: number; text: string }[] {
  return script
    .split('\n')
    .map((text, i) => ({ n: i + 1, text: text.trim() }))
    .filter((l) => l.text !== '' && !l.text.startsWith('#'));
}

describe('deploy/install.sh, run again', () => {
  const lines = commands(install);
  const first = (re: RegExp) => lines.find((l) => re.test(l.text))?.n ?? Number.POSITIVE_INFINITY;

  it('stops the instances before it touches PostgreSQL', () => {
    const stop = first(/^stop_instances$/);
    expect(stop).toBeLessThan(Number.POSITIVE_INFINITY);
    const touches = [
      /\bpg_up\b/,
      /\binitdb\b/,
      /\bpsql_postgres\b/,
      /\bsystemctl (enable|start|restart|reload) postgresql\b/,
      /supervise_(stop|start) "\$PG_UNIT"/,
    ].map(first);
    expect(Math.min(...touches)).toBeLessThan(Number.POSITIVE_INFINITY);
    for (const t of touches) expect(stop).toBeLessThan(t);
    // stop_instances stops every instance, under both supervisors.
    const body = /^stop_instances\(\) \{\n([\s\S]*?)^\}/m.exec(ops)?.[1] ?? '';
    expect(body).toContain('wai-steer@$i.service');
    expect(body).toContain('systemctl stop');
    expect(body).toContain('supervise_stop');
  });

  it('never restarts PostgreSQL, and asks whether it is ready as the postgres user', () => {
    for (const script of [install, ops]) {
      expect(script).not.toMatch(/systemctl (restart|reload-or-restart|try-restart) .*postgresql/);
    }
    // What the install restarts at its end holds no PostgreSQL.
    const services = install.match(/^SERVICES(\+)?=.*$/gm) ?? [];
    expect(services.length).toBeGreaterThan(0);
    for (const s of services) expect(s).not.toMatch(/postgres/);
    const ready = commands(ops)
      .map((l) => l.text)
      .filter((l) => l.includes('pg_isready'));
    expect(ready.length).toBeGreaterThan(0);
    for (const r of ready) expect(r).toMatch(/runuser -u postgres -- /);
  });
});
