/**
 * The floor: a bare node:http server answering GET with fixed board bytes, the most any JSON API on this
 * machine could do for the same response. The benchmark reports Tessera's GET throughput as a share of it.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';

const body = readFileSync(process.env.FLOOR_BODY_FILE!);
const server = http.createServer((req, res) => {
  res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': body.length, ETag: '"floor"' });
  res.end(body);
});
server.keepAliveTimeout = 5_000;
server.listen(Number(process.env.PORT), '127.0.0.1');
process.on('SIGTERM', () => server.close(() => process.exit(0)));
