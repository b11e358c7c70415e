#!/usr/bin/env node
// A process supervisor of its own, for machines where systemd does not run (a container, a CI
// job): it runs one unit of deploy/systemd/ as systemd would, from the unit file itself, so that
// the command is the unit's and not a copy of it. Read from [Service]: ExecStartPre=,
// ExecStart=, ExecReload=, Environment=, EnvironmentFile= (a leading - for optional), User=, Group=,
// SupplementaryGroups=, WorkingDirectory=, StandardOutput= and StandardError= (append:PATH,
// file:PATH, inherit), Restart= (no, always, on-failure), RestartSec=, KillSignal=,
// TimeoutStopSec=. Specifiers %i (the instance) and %%, and ${VAR} and $VAR from the
// environment, are expanded as systemd expands them in ExecStart=.
//
//   node deploy/supervise.mjs UNIT-FILE [INSTANCE]
//
// It runs until SIGTERM or SIGINT, then stops the service (KillSignal=, then SIGKILL after
// TimeoutStopSec=) and exits. SIGHUP runs ExecReload= with $MAINPID the service's pid, as
// `systemctl reload` does. A service that exits is started again as Restart= says; one that
// exits within a second of its start five times in a row is given up (exit 1), as systemd's
// start limit does.
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';

/** The sections of a unit file: name → list of [key, value], in order. */
export function parseUnit(text) {
  const sections = new Map();
  let current;
  let pending = '';
  for (const raw of text.split('\n')) {
    let line = pending + raw;
    pending = '';
    if (line.endsWith('\\')) {
      pending = `${line.slice(0, -1)} `;
      continue;
    }
    line = line.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const section = /^\[(.+)\]$/.exec(line);
    if (section) {
      current = section[1];
      if (!sections.has(current)) sections.set(current, []);
      continue;
    }
    const eq = line.indexOf('=');
    if (eq < 0 || current === undefined) continue;
    sections.get(current).push([line.slice(0, eq).trim(), line.slice(eq + 1).trim()]);
  }
  return sections;
}

/** Words of a command line, with systemd's quoting ("…" and '…', \ escapes). */
export function splitWords(text) {
  const words = [];
  let word = null;
  let quote = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote !== null) {
      if (c === quote) quote = null;
      else if (c === '\\' && quote === '"' && i + 1 < text.length) word += text[++i];
      else word += c;
      continue;
    }
    if (c === '"' || c === "'") {
      quote = c;
      word ??= '';
    } else if (c === '\\' && i + 1 < text.length) {
      word = (word ?? '') + text[++i];
    } else if (/\s/.test(c)) {
      if (word !== null) words.push(word);
      word = null;
    } else {
      word = (word ?? '') + c;
    }
  }
  if (quote !== null) throw new Error(`unterminated quote in: ${text}`);
  if (word !== null) words.push(word);
  return words;
}

/** %i and %% of a unit's value. */
export function specifiers(value, instance) {
  return value.replace(/%([%i])/g, (_, c) => (c === '%' ? '%' : instance));
}

/** ${VAR} and $VAR (a whole word) of an ExecStart= word, from `env`. */
export function expandVars(word, env) {
  return word
    .replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, v) => env[v] ?? '')
    .replace(/^\$([A-Za-z_][A-Za-z0-9_]*)$/, (_, v) => env[v] ?? '');
}

/** KEY=VALUE assignments of an Environment= value or an EnvironmentFile's lines. */
export function assignments(text) {
  const out = {};
  for (const word of splitWords(text)) {
    const eq = word.indexOf('=');
    if (eq > 0) out[word.slice(0, eq)] = word.slice(eq + 1);
  }
  return out;
}

/** What to run, read from a unit file for an instance. */
export function serviceOf(unitText, instance = '') {
  const service = parseUnit(unitText).get('Service') ?? [];
  const env = {};
  const get = (key) => {
    const all = service.filter(([k]) => k === key).map(([, v]) => specifiers(v, instance));
    return all.length === 0 ? undefined : all[all.length - 1];
  };
  const all = (key) => service.filter(([k]) => k === key).map(([, v]) => specifiers(v, instance));
  for (const v of all('Environment')) Object.assign(env, assignments(v));
  const envFiles = all('EnvironmentFile').map((v) =>
    v.startsWith('-') ? { path: v.slice(1), optional: true } : { path: v, optional: false },
  );
  const command = (line) => {
    // Prefixes of systemd's: - (failure ignored), @, :, +, ! (not used by these units).
    const ignoreFailure = line.startsWith('-');
    const words = splitWords(line.replace(/^[-@:+!]+/, ''));
    return { words, ignoreFailure };
  };
  const start = get('ExecStart');
  if (start === undefined) throw new Error('the unit has no ExecStart=');
  const seconds = (v, d) =>
    v === undefined ? d : Number.parseFloat(v) * (/ms$/.test(v) ? 0.001 : 1);
  return {
    pre: all('ExecStartPre').map(command),
    reload: all('ExecReload').map(command),
    start: command(start),
    env,
    envFiles,
    user: get('User'),
    group: get('Group'),
    groups: get('SupplementaryGroups')?.split(/\s+/).filter(Boolean) ?? [],
    cwd: get('WorkingDirectory'),
    stdout: get('StandardOutput'),
    stderr: get('StandardError'),
    restart: get('Restart') ?? 'no',
    restartSec: seconds(get('RestartSec'), 0.1),
    killSignal: get('KillSignal') ?? 'SIGTERM',
    stopTimeout: seconds(get('TimeoutStopSec'), 90),
  };
}

function output(spec) {
  if (spec === undefined || spec === 'inherit' || spec === 'journal') return 'inherit';
  const m = /^(append|file):(.+)$/.exec(spec);
  if (m === null) return 'inherit';
  return openSync(m[2], m[1] === 'append' ? 'a' : 'w');
}

function main() {
  const [unitFile, instance = ''] = process.argv.slice(2);
  if (unitFile === undefined) {
    process.stderr.write('usage: supervise.mjs UNIT-FILE [INSTANCE]\n');
    process.exit(2);
  }
  const s = serviceOf(readFileSync(unitFile, 'utf8'), instance);
  const env = { ...process.env };
  for (const f of s.envFiles) {
    if (!existsSync(f.path)) {
      if (f.optional) continue;
      throw new Error(`EnvironmentFile ${f.path} does not exist`);
    }
    Object.assign(env, assignments(readFileSync(f.path, 'utf8').replace(/^\s*#.*$/gm, '')));
  }
  Object.assign(env, s.env);
  const name = `${unitFile.split('/').pop()}${instance === '' ? '' : ` (${instance})`}`;
  const log = (line) => process.stderr.write(`supervise ${name}: ${line}\n`);
  // As the unit's user, with its groups (the user's own and SupplementaryGroups=): setpriv of
  // util-linux, as systemd sets them. The sandboxing options (ProtectSystem=…) are systemd's
  // alone and are not applied here.
  const as = (words) => {
    if (s.user === undefined || process.getuid?.() !== 0) return words;
    let groups = ['--init-groups'];
    if (s.groups.length > 0) {
      const own = spawnSync('id', ['-Gn', s.user], { encoding: 'utf8' }).stdout.trim().split(/\s+/);
      groups = ['--groups', [...new Set([...own.filter(Boolean), ...s.groups])].join(',')];
    }
    return [
      'setpriv',
      `--reuid=${s.user}`,
      `--regid=${s.group ?? s.user}`,
      ...groups,
      '--',
      ...words,
    ];
  };
  const argv = (c) => as(c.words.map((w) => expandVars(w, env)));
  let child;
  let stopping = false;
  let quickExits = 0;
  const runPre = () => {
    for (const c of s.pre) {
      const [cmd, ...args] = argv(c);
      const r = spawnSync(cmd, args, { env, cwd: s.cwd, stdio: 'inherit' });
      if (r.status !== 0 && !c.ignoreFailure) return false;
    }
    return true;
  };
  const start = () => {
    if (stopping) return;
    if (!runPre()) {
      log('ExecStartPre failed');
      return schedule(1);
    }
    const [cmd, ...args] = argv(s.start);
    const out = output(s.stdout);
    const err = s.stderr === undefined ? out : output(s.stderr);
    const started = Date.now();
    child = spawn(cmd, args, { env, cwd: s.cwd, stdio: ['ignore', out, err] });
    for (const fd of new Set([out, err])) if (typeof fd === 'number') closeSync(fd);
    child.on('error', (e) => log(`cannot start: ${e.message}`));
    child.on('exit', (code, signal) => {
      child = undefined;
      if (stopping) return;
      const failed = code !== 0;
      log(`exited (${signal ?? `code ${code}`})`);
      quickExits = Date.now() - started < 1000 ? quickExits + 1 : 0;
      if (quickExits >= 5) {
        log('started five times in a row within a second: given up');
        process.exit(1);
      }
      const again = s.restart === 'always' || (s.restart === 'on-failure' && failed);
      if (again) schedule(s.restartSec);
      else process.exit(code ?? 1);
    });
  };
  const schedule = (seconds) => setTimeout(start, Math.max(100, seconds * 1000));
  const stop = () => {
    if (stopping) return;
    stopping = true;
    if (child === undefined) process.exit(0);
    const c = child;
    c.once('exit', () => process.exit(0));
    c.kill(s.killSignal);
    setTimeout(() => c.kill('SIGKILL'), s.stopTimeout * 1000).unref();
  };
  const reload = () => {
    if (child === undefined || stopping)
      return log('reload asked while the service is not running');
    if (s.reload.length === 0) return log('reload asked, and the unit has no ExecReload=');
    const withPid = { ...env, MAINPID: String(child.pid) };
    for (const c of s.reload) {
      const [cmd, ...args] = as(c.words.map((w) => expandVars(w, withPid)));
      const r = spawnSync(cmd, args, { env, cwd: s.cwd, stdio: 'inherit' });
      if (r.status !== 0 && !c.ignoreFailure) return log(`ExecReload failed (${r.status})`);
    }
    log('reloaded');
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.on('SIGHUP', reload);
  start();
}

if (import.meta.url === `file://${process.argv[1]}`) main();
