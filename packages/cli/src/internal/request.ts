import type { SteeringRequest } from '@wai-steering/rule';
import * as z from 'zod';
import { readJson } from './files.js';
import { fail, leaf, optionalLeaf, show, validate } from './schema.js';

const headers = (value: unknown) => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return fail(`expected an object of header names and values, got ${show(value)}`);
  }
  const out: Record<string, string> = {};
  for (const [name, v] of Object.entries(value)) {
    if (typeof v !== 'string') return fail(`"${name}": expected a string value, got ${show(v)}`);
    out[name] = v;
  }
  return out;
};

/** Companion C8: `{"protocol":"hls"|"dash","target":"…","headers":{…}}` (other members ignored). */
const requestSchema = z.object({
  protocol: leaf((v) =>
    v === 'hls' || v === 'dash' ? v : fail(`expected "hls" or "dash", got ${show(v)}`),
  ),
  target: leaf((v) =>
    typeof v === 'string' ? v : fail(`expected the request target as a string, got ${show(v)}`),
  ),
  headers: optionalLeaf(headers),
});

/** Reads a C8 steering request from a JSON file. */
export function readRequestFile(path: string): SteeringRequest {
  const data = validate(requestSchema, readJson(path, 'request'), 'the request');
  return data.headers === undefined
    ? { protocol: data.protocol, target: data.target }
    : { protocol: data.protocol, target: data.target, headers: data.headers };
}
