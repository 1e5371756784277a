// The raw HTTP baseline: a minimal node:http server that reads the request body and answers a small JSON body.
// It prints {"msg":"baseline listening","port":N} on stdout once listening on 127.0.0.1 (PORT, default 0 = any free port).
import { createServer } from 'node:http';

const BODY = Buffer.from(JSON.stringify({ pagination: { total_items: 0, page_number: 1, page_size: 20, total_pages: 0 }, data: [] }));

const server = createServer((req, res) => {
  req.on('data', () => {});
  req.on('end', () => {
    res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': BODY.length });
    res.end(BODY);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  process.stdout.write(JSON.stringify({ msg: 'baseline listening', port: server.address().port }) + '\n');
});
for (const signal of ['SIGTERM', 'SIGINT']) process.once(signal, () => server.close(() => process.exit(0)) && server.closeAllConnections());
