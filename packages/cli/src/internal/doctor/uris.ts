/**
 * The policy's URIs against where the server is reached (`uriMismatches`, the check `serve`
 * makes before it listens): its listen address, or `public_url` behind a proxy.
 */

import { readFileSync } from 'node:fs';
import type { ServerConfig } from '@wai-steering/server';
import { readPolicy } from '@wai-steering/wire';
import { uriMismatches } from '../uris.js';
import type { Report } from './report.js';

export const URI_FIX =
  "compile the policy again with this server's URIs (server_uri, reload_uri and decision_uri), or set public_url to the URL a proxy serves it at";

/** The mismatches, each a problem; nothing when the policy file does not read (`materials`). */
export function checkUris(config: ServerConfig, report: Report): string[] {
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(readFileSync(config.policy));
  } catch {
    return [];
  }
  const read = readPolicy(bytes);
  if (!read.ok) return [];
  const mismatches = uriMismatches(read.value, config.listen, config.publicUrl);
  for (const m of mismatches) report.problem('uris', m, URI_FIX);
  if (mismatches.length === 0) {
    report.ok(
      'uris',
      `the policy's server_uri, reload_uri and decision_uri are this server's (${config.publicUrl ?? `listen ${config.listen.host}:${config.listen.port}`})`,
    );
  }
  return mismatches;
}
