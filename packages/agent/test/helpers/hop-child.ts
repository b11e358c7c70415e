// A hop agent in a process of its own, as `wai-steer hop run --config FILE` runs it: the agent a
// configuration describes, its log lines JSON on stderr, stopped cleanly on SIGTERM. The tests
// run it under a clock of their own (libfaketime).
import { createHopAgent, loadHopConfig } from '../../src/index.js';

const agent = createHopAgent(loadHopConfig(process.argv[2]!), {
  log: (line) => process.stderr.write(`${JSON.stringify(line)}\n`),
});
process.once('SIGTERM', () => {
  agent.stop().then(
    () => process.exit(0),
    () => process.exit(1),
  );
});
await agent.start();
