// Sizing on paper (`docs/performance.md`): a deployment on PostgreSQL for a count of concurrent
// sessions and a TTL, from five measured figures. `pnpm bench:server` prints the table with its
// run's figures at its end (each part that measured one gives it); `node bench/sizing.mjs`
// prints it with the figures given as `SIZING_*` variables, else the last ones the document
// keeps. The arithmetic, each row:
//
//   requests (decisions, log entries) a second   R = sessions ÷ TTL
//   server cores busy                             R × S              (S: server CPU a request)
//   cores at half busy                            2 × R × S          (headroom: a lost instance,
//                                                                     a burst, GC pauses)
//   instances of 8 cores                          ⌈2 × R × S ÷ 8⌉, at least 2
//   PostgreSQL's CPU for the decisions            R × D              (D: its CPU a decision)
//   the log's integrator                          R ÷ I              (I: entries a second of one
//                                                                     integrator, the database's
//                                                                     CPU counted)
//   logs (shards) at four fifths of I each        ⌈R ÷ (0.8 × I)⌉
//   bytes a day                                   R × 86 400 × (Bd + Bl)
//
// Every figure is the measured one: a faster core does more, so the counts are on the safe side
// of the machine they were measured on.

/** The figures the document keeps (2026-12-07, quiet runs), the defaults. */
export const KEPT = Object.freeze({
  serverUs: { value: 74, source: 'one instance on PostgreSQL, 2026-12-07 20:35 (quiet), part (i)' },
  dbUs: { value: 16, source: "PostgreSQL's CPU a decision, 2026-12-07 20:35 (quiet), part (i)" },
  integration: {
    value: 226_460,
    source:
      'the integration on PostgreSQL with its CPU, 2026-12-07 20:35 (quiet; batches of 100 000)',
  },
  decisionBytes: { value: 304, source: 'bytes a decision in PostgreSQL, 2026-12-07 20:35' },
  entryBytes: { value: 134, source: 'bytes a log entry in PostgreSQL, 2026-12-07 20:35' },
});

/** The deployments sized: concurrent sessions and the policy's TTL (s). */
export const CASES = Object.freeze([
  { sessions: 1_000_000, ttl: 10 },
  { sessions: 1_000_000, ttl: 300 },
  { sessions: 25_000_000, ttl: 10 },
  { sessions: 25_000_000, ttl: 300 },
  { sessions: 60_000_000, ttl: 300 },
]);

const CORES = 8;
const count = (n) => Math.round(n).toLocaleString('en-US').replace(/,/g, ' ');
const short = (n) =>
  n >= 1e6 ? `${n / 1e6} M` : n >= 1e3 ? `${count(n / 1e3)} k`.replace(' k', ' 000') : `${n}`;
const bytes = (b) =>
  b >= 1e12 ? `${(b / 1e12).toFixed(2)} TB` : `${(b / 1e9).toFixed(b >= 1e11 ? 0 : 1)} GB`;

/** One case's figures. */
export function size({ sessions, ttl }, f) {
  const rate = sessions / ttl;
  const busy = (rate * f.serverUs) / 1e6;
  const instances = Math.max(2, Math.ceil((2 * busy) / CORES));
  const perDay = rate * 86_400 * (f.decisionBytes + f.entryBytes);
  return {
    rate,
    busy,
    half: 2 * busy,
    instances,
    db: (rate * f.dbUs) / 1e6,
    integrator: rate / f.integration,
    logs: Math.ceil(rate / (0.8 * f.integration)),
    perDay,
    perSecond: perDay / 86_400,
  };
}

/** The table (Markdown), from figures `{ serverUs, dbUs, integration, decisionBytes, entryBytes }`. */
export function sizingTable(f) {
  const rows = CASES.map((c) => ({ c, s: size(c, f) }));
  const head = `| | ${rows.map(({ c }) => `${short(c.sessions)} sessions, TTL ${c.ttl} s`).join(' | ')} |`;
  const line = (label, cell) => `| ${label} | ${rows.map(cell).join(' | ')} |`;
  return [
    head,
    `|---|${rows.map(() => '---|').join('')}`,
    line('requests (decisions, log entries) a second: sessions ÷ TTL', ({ s }) => count(s.rate)),
    line(`server cores busy: × ${f.serverUs} µs`, ({ s }) => s.busy.toFixed(1)),
    line('cores at half busy', ({ s }) => s.half.toFixed(1)),
    line(`instances of ${CORES} cores (at least 2)`, ({ s }) => `**${s.instances}**`),
    line(
      `PostgreSQL's CPU for the decisions: × ${f.dbUs} µs`,
      ({ s }) => `${s.db.toFixed(1)} cores`,
    ),
    line(`the log's integrator, against its ${count(f.integration)} a second`, ({ s }) =>
      s.integrator >= 1
        ? `**${s.integrator.toFixed(2)} ×**`
        : `${Math.round(s.integrator * 100)} %`,
    ),
    line('logs (shards), each at most 4/5 of an integrator', ({ s }) => `**${s.logs}**`),
    line(
      `bytes a day (× ${f.decisionBytes} + ${f.entryBytes}; WAL and backups on top)`,
      ({ s }) => `${bytes(s.perDay)} (${(s.perSecond / 1e6).toFixed(1)} MB/s)`,
    ),
  ];
}

/** The figures from `SIZING_*` variables, else the kept ones. */
function fromEnvironment() {
  const pick = (name, key) => {
    const v = Number(process.env[name]);
    return Number.isFinite(v) && v > 0 ? v : KEPT[key].value;
  };
  return {
    serverUs: pick('SIZING_SERVER_US', 'serverUs'),
    dbUs: pick('SIZING_DB_US', 'dbUs'),
    integration: pick('SIZING_INTEGRATION', 'integration'),
    decisionBytes: pick('SIZING_DECISION_BYTES', 'decisionBytes'),
    entryBytes: pick('SIZING_ENTRY_BYTES', 'entryBytes'),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const l of sizingTable(fromEnvironment())) console.log(l);
}
