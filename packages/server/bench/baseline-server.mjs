// Bench (a): a minimal node:http server that signs a fixed 300-byte message with node:crypto
// (Ed25519) per request and returns the signature.
import { generateKeyPairSync, sign } from 'node:crypto';
import { createServer } from 'node:http';

const { privateKey: key } = generateKeyPairSync('ed25519');
const message = Buffer.alloc(300, 7);
const server = createServer((_req, res) => {
  const sig = sign(null, message, key);
  res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': sig.length });
  res.end(sig);
});
server.listen(0, '127.0.0.1', () => {
  process.send?.({ ready: true, url: `http://127.0.0.1:${server.address().port}` });
});
process.on('message', (m) => {
  if (m?.cmd === 'rss') process.send?.({ rss: process.memoryUsage().rss });
  if (m?.cmd === 'stop') server.close(() => process.exit(0));
});
