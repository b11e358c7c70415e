import { describe, expect, it } from 'vitest';
import { parseExposition } from '../../src/index.js';

describe('the text exposition format', () => {
  it('reads names, escaped labels and values as written; skips comments', () => {
    const text = [
      '# HELP scaph_host_energy_microjoules Energy measurement for the whole host',
      '# TYPE scaph_host_energy_microjoules counter',
      'scaph_host_energy_microjoules 123456789012',
      'kepler_node_cpu_joules_total{zone="package",instance="a\\"b\\\\c"} 1.5e+06 1700000000000',
      '',
      'not a sample {',
    ].join('\n');
    expect(parseExposition(text)).toEqual([
      {
        name: 'scaph_host_energy_microjoules',
        labels: {},
        value: '123456789012',
        type: 'counter',
      },
      {
        name: 'kepler_node_cpu_joules_total',
        labels: { zone: 'package', instance: 'a"b\\c' },
        value: '1.5e+06',
      },
    ]);
  });
});
