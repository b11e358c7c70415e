// A closed-loop HTTP/1.1 client for the latency rounds, in a process of its own: `connections`
// keep-alive connections, each sending its next request as soon as it has the whole answer to the
// last, for `seconds`; each request's latency from its write to its answer's last byte
// (`performance.now()`, monotonic). It prints one JSON line: the requests answered, their rate,
// p50, p99, p99.9 and the maximum (ms), and the answers other than 2xx.
//
// Why not wrk for latency: on the benches' machine, wrk (Debian's 4.1) reported a p99.9 of 200 to
// 600 ms in most rounds from 128 connections, against the minimal server (a) as against (b),
// while the server measured no gap past 26 ms between two answers on any connection (a closed
// loop's next request follows the last answer, so that gap bounds every request's time but a
// connection's first), and this client measured a maximum of 20 to 28 ms in the same rounds
// (docs/performance.md, *The last stall: the load generator's*). wrk still makes the load of the
// CPU rounds, where it takes the least of the machine's cores.
//
// node closed-loop.mjs <url> <connections> <seconds> [steering]
// With `steering`, each request is a distinct session's (`/steer/reload?wai_session=…`, as
// `sessions.lua` sends), with the query of WAI_QUERY after it.
import net from 'node:net';

const [url, connectionsArg, secondsArg, mode] = process.argv.slice(2);
const target = new URL(url);
const connections = Number(connectionsArg);
const seconds = Number(secondsArg);
const steering = mode === 'steering';
const query = process.env.WAI_QUERY ?? '&_HLS_pathway=%22cdn-a%22&_HLS_throughput=5000000';
const host = `Host: ${target.host}\r\n\r\n`;
const plain = Buffer.from(`GET ${target.pathname} HTTP/1.1\r\n${host}`);
let counter = 0;
const request = () =>
  steering
    ? Buffer.from(
        `GET /steer/reload?wai_session=${(counter++).toString(16).padStart(32, '0')}${query} HTTP/1.1\r\n${host}`,
      )
    : plain;

/** Latencies in ms, as many as fit; grown when full. */
let lat = new Float64Array(1 << 20);
let n = 0;
let bad = 0;
let stopped = false;
const HEAD_END = Buffer.from('\r\n\r\n');

const sockets = [];
const started = performance.now();
const answered = Promise.all(
  Array.from(
    { length: connections },
    () =>
      new Promise((resolve) => {
        const socket = net.connect(Number(target.port), target.hostname);
        sockets.push(socket);
        socket.setNoDelay(true);
        let buf = Buffer.alloc(0);
        let sent = 0;
        const send = () => {
          if (stopped) {
            socket.destroy();
            resolve();
            return;
          }
          sent = performance.now();
          socket.write(request());
        };
        socket.on('connect', send);
        socket.on('data', (d) => {
          buf = buf.length === 0 ? d : Buffer.concat([buf, d]);
          for (;;) {
            const h = buf.indexOf(HEAD_END);
            if (h < 0) return;
            const head = buf.subarray(0, h).toString('latin1');
            const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
            if (buf.length < h + 4 + length) return;
            buf = buf.subarray(h + 4 + length);
            if (n === lat.length) {
              const more = new Float64Array(lat.length * 2);
              more.set(lat);
              lat = more;
            }
            lat[n++] = performance.now() - sent;
            const status = Number(head.slice(9, 12));
            if (!(status >= 200 && status < 300)) bad++;
            if (/\r\nconnection:\s*close/i.test(head)) {
              socket.destroy();
              resolve();
              return;
            }
            send();
          }
        });
        socket.on('error', () => {
          bad++;
          resolve();
        });
        socket.on('close', () => resolve());
      }),
  ),
);
await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
stopped = true;
// The answers in flight, 5 s at most; then every connection closed.
await Promise.race([answered, new Promise((resolve) => setTimeout(resolve, 5000).unref())]);
for (const socket of sockets) socket.destroy();
const wall = (performance.now() - started) / 1000;
const sorted = lat.subarray(0, n).sort();
const pct = (q) => (n === 0 ? Number.NaN : sorted[Math.min(n - 1, Math.ceil(q * n) - 1)]);
process.stdout.write(
  `${JSON.stringify({ total: n, rps: n / wall, p50: pct(0.5), p99: pct(0.99), p999: pct(0.999), max: n === 0 ? Number.NaN : sorted[n - 1], bad })}\n`,
);
