import { readReport, reportJson } from '@wai-steering/rule';
import type { Command } from '../internal/command.js';
import { readPolicyFile } from '../internal/records.js';
import { readRequestFile } from '../internal/request.js';

export const report: Command = {
  name: ['report'],
  summary: "Print the client's report (§4) that a steering request carries, as C8 JSON.",
  options: {
    policy: {
      type: 'string',
      arg: 'FILE',
      description: 'the policy (its pathway IDs)',
      required: true,
    },
    request: {
      type: 'string',
      arg: 'REQUEST.json',
      description: 'the request: {"protocol":"hls"|"dash","target":"…","headers":{…}}',
      required: true,
    },
    json: { type: 'boolean', description: 'accepted for symmetry: the output is always C8 JSON' },
  },
  description: `
Reads what a steering server reads from a request (§4 and companion C9): the current pathway
(_HLS_pathway or _DASH_pathway, by the request's protocol), the throughput (_HLS_throughput or
_DASH_throughput, else CMCD mtp × 1000) and the buffer (CMCD bl, from the CMCD query parameter or
the CMCD-Request header). Prints companion C8's report, one line:

  {"pathway":N|null,"throughput":"<decimal>"|null,"buffer":"<decimal>"|null}

with "pathway" the index of the pathway in the policy.`,
  run(ctx) {
    const { value: policy } = readPolicyFile(ctx.path(ctx.string('policy')));
    const request = readRequestFile(ctx.path(ctx.string('request')));
    const read = readReport(
      request,
      policy.pathways.map((p) => p.id),
    );
    const json = reportJson(read);
    ctx.out(
      `${JSON.stringify({ pathway: json.pathway, throughput: json.throughput, buffer: json.buffer })}\n`,
    );
    return 0;
  },
};
