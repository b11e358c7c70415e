/** A `hop.yaml` of the tests (as the object its YAML reads as), and the error one gives. */
import { expect } from 'vitest';
import { AgentConfigError, readHopConfig } from '../../src/index.js';

/** The fields of a configuration that reads: a model, a period, one server. */
export const base = {
  room: 'room.wrd',
  key_log: 'key-log.wkl',
  key: 'hop0.jwk',
  period: '2s',
  servers: ['http://127.0.0.1:8080'],
  spool: 'spool',
  energy: { source: 'model', idle_watts: 10, nanojoules_per_byte: '1.5' },
};

/** `base` with a Prometheus counter of energy, `e` its fields beside the source and URL. */
export const prom = (e: Record<string, unknown>) => ({
  ...base,
  energy: { source: 'prometheus', url: 'http://127.0.0.1:9100/metrics', ...e },
});

/** The one line a configuration that does not read is refused with (an AgentConfigError). */
export function configError(input: unknown): string {
  try {
    readHopConfig(input, '/tmp');
  } catch (e) {
    expect(e).toBeInstanceOf(AgentConfigError);
    return (e as Error).message;
  }
  throw new Error('accepted');
}
