/**
 * Files that hold a secret (a steering or hop key, the session secret, a config with a token or
 * a password) must be readable by their owner alone: a key another user of the machine can read
 * signs for anyone who reads it.
 */
import { statSync } from 'node:fs';
import type { ServerConfig } from '@wai-steering/server';
import type { Report } from './report.js';

/** A file that holds a secret, and what it is. */
export interface SecretFile {
  readonly what: string;
  readonly path: string;
}

/** The secret files of a server config: its keys, its session secret, itself when it holds one. */
export function secretFilesOf(path: string, config: ServerConfig): SecretFile[] {
  const files: SecretFile[] = [{ what: 'signing_key', path: config.signingKey }];
  if (config.sessions.secret !== null) {
    files.push({ what: 'sessions.secret', path: config.sessions.secret });
  }
  const holds: string[] = [];
  if (config.admin !== null) holds.push('admin.token');
  if (config.console.auth !== null) holds.push('console.auth');
  if (
    config.store.url !== undefined &&
    /^postgres(ql)?:\/\/[^/@]*:[^/@]*@/.test(config.store.url)
  ) {
    holds.push('a password in store.url');
  }
  if (holds.length > 0) files.push({ what: `the config (it holds ${holds.join(', ')})`, path });
  return files;
}

/** Each secret file readable by its group or others; the files are those `secretFilesOf` names. */
export function modeProblems(files: readonly SecretFile[]): { text: string; fix: string }[] {
  const out: { text: string; fix: string }[] = [];
  for (const f of files) {
    let mode: number;
    try {
      mode = statSync(f.path).mode & 0o777;
    } catch {
      continue; // a file that cannot be read is named by the check that reads it
    }
    if ((mode & 0o077) !== 0) {
      out.push({
        text: `${f.what} ${f.path} is mode ${mode.toString(8).padStart(4, '0')}: readable by ${mode & 0o007 ? 'every user of this machine' : 'its group'}`,
        fix: `chmod 600 ${f.path} (owned by the user the service runs as)`,
      });
    }
  }
  return out;
}

/** The modes of `files`, each a problem when others can read it. */
export function checkModes(files: readonly SecretFile[], report: Report): void {
  const problems = modeProblems(files);
  for (const p of problems) report.problem('keys', p.text, p.fix);
  if (problems.length === 0 && files.length > 0) {
    report.ok(
      'keys',
      `${files.map((f) => f.what.split(' (')[0]).join(', ')}: readable by their owner alone`,
    );
  }
}
