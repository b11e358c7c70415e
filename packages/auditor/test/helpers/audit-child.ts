// Audits the archive given (argv[2], room argv[3]) in a process of its own and prints one line
// of JSON: what came of it (the result's counts, or the error's message), the bytes of its
// `--json` result, and the process's peak resident memory (its own measure, `maxRSS`).
import { fromHex } from '@wai-steering/wire';
import { auditArchive } from '../../src/node.js';

const dir = process.argv[2]!;
const room = process.argv[3]!;
const jobs = Number(process.argv[4] ?? 1);
const peak = () => process.resourceUsage().maxRSS * 1024;
let out: Record<string, unknown>;
try {
  const audit = await auditArchive(dir, { roomId: fromHex(room), jobs });
  let jsonBytes = 0;
  // The refusals as the JSON goes by: each has one `"reason":` (the carry joins a token cut
  // between two chunks; it is shorter than the token, so nothing is counted twice).
  const token = '"reason":';
  let refusedInJson = 0;
  let carry = '';
  await audit.writeJson((chunk: string) => {
    jsonBytes += chunk.length;
    const text = carry + chunk;
    refusedInJson += text.split(token).length - 1;
    carry = text.slice(-(token.length - 1));
  });
  audit.dispose();
  out = {
    ok: true,
    decisions: audit.result.decisions,
    refused: audit.refused,
    findings: audit.result.findings,
    heldRefused: audit.result.refused.length,
    refusedInJson,
    jsonBytes,
  };
} catch (e) {
  out = { ok: false, name: (e as Error).name, error: (e as Error).message };
}
process.stdout.write(`${JSON.stringify({ ...out, rssPeak: peak() })}\n`);
