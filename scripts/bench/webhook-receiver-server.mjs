// The receiver of the webhooks phase: a minimal node:http server in a process of its own, so that what it costs is
// never counted in the service's or the harness's process. Routes:
// - POST anything but /received: a delivery. It reads the body, notes the time it was read in full (epoch ms, sub-ms
//   precision), the path (one path per webhook), the body's `id` (the event id), `data.id` (the token) and
//   `created_at`, and answers 200 with an empty body;
// - GET /received: every delivery noted so far, as { "<path>": [[event id, token id, created_at, received at ms], …] }
//   in the order they came.
// Prints {"msg":"webhook receiver listening","port":N} on stdout once listening on 127.0.0.1 (PORT, default 0).
import { createServer } from 'node:http';
import { performance } from 'node:perf_hooks';

const received = new Map();
const now = () => performance.timeOrigin + performance.now();

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('error', () => undefined);
  req.on('end', () => {
    const at = now();
    if (req.method === 'GET' && req.url === '/received') {
      const body = JSON.stringify(Object.fromEntries(received));
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
      return res.end(body);
    }
    let entry;
    try {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      entry = [body.id, body.data?.id ?? null, body.created_at ?? null, Math.round(at * 1000) / 1000];
    } catch {
      entry = [null, null, null, Math.round(at * 1000) / 1000];
    }
    if (!received.has(req.url)) received.set(req.url, []);
    received.get(req.url).push(entry);
    res.writeHead(200, { 'Content-Length': 0 });
    res.end();
  });
});
server.keepAliveTimeout = 60_000;
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  process.stdout.write(JSON.stringify({ msg: 'webhook receiver listening', port: server.address().port }) + '\n');
});
for (const signal of ['SIGTERM', 'SIGINT']) process.once(signal, () => server.close(() => process.exit(0)) && server.closeAllConnections());
