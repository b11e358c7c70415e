// Audits the archive given (argv[2]) with one job and prints the peak resident memory seen.
import { fromHex } from '@wai-steering/wire';
import { auditArchive } from '../src/node.js';

const dir = process.argv[2]!;
const room = process.argv[3]!;
let peak = process.memoryUsage().rss;
const start = peak;
const timer = setInterval(() => {
  peak = Math.max(peak, process.memoryUsage().rss);
}, 20);
const t0 = performance.now();
const { result } = await auditArchive(dir, {
  roomId: fromHex(room),
  onProgress: () => {
    peak = Math.max(peak, process.memoryUsage().rss);
  },
});
clearInterval(timer);
peak = Math.max(peak, process.memoryUsage().rss);
console.log(
  JSON.stringify({
    decisions: result.decisions,
    sessions: result.sessions,
    findings: result.findings,
    seconds: (performance.now() - t0) / 1000,
    rssStart: start,
    rssPeak: peak,
  }),
);
