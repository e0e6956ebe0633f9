/**
 * The client side of the change feed benchmark (scripts/bench/events.ts): a process that opens its share of the
 * event streams and tells the parent, per revision, when the last of its streams had that revision's `change` event.
 * Streams are anonymous (the board is public); stream `i` of the run connects from loopback address
 * 127.1.x.y number `i % addresses`, so that each address stays within EVENT-5's cap of streams per caller (and streams
 * opened at the same time come from different addresses: the opens of one caller take turns at its lease lock).
 *
 * Messages from the parent: `{open: {targets: string[], first, count, addresses}}` opens (more) streams `first` ..
 * `first + count - 1` (stream i to `targets[i % targets.length]`, an events URL) and answers `{opened}`; `close`
 * ends them all. To the parent: `{revision, at, streams}` once every stream of this process saw the revision (`at`
 * on the shared clock: performance.timeOrigin + performance.now()).
 */
import http from 'node:http';

const now = () => performance.timeOrigin + performance.now();
const requests: http.ClientRequest[] = [];
const seen = new Map<number, number>();
let total = 0;

function addressOf(n: number): string {
  return `127.1.${Math.floor(n / 250)}.${(n % 250) + 1}`;
}

function openStream(url: string, localAddress: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { agent: false, localAddress }, (response) => {
      if (response.statusCode !== 200) return reject(new Error(`${url} from ${localAddress}: ${response.statusCode}`));
      response.setEncoding('latin1');
      let buffer = '';
      response.on('data', (chunk: string) => {
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          if (!block.startsWith('id: ') || !block.includes('\nevent: change')) continue;
          const revision = Number(block.slice(4, block.indexOf('\n')));
          const count = (seen.get(revision) ?? 0) + 1;
          seen.set(revision, count);
          if (count === total) process.send!({ revision, at: now(), streams: count });
        }
      });
      resolve();
    });
    request.on('error', reject);
    requests.push(request);
  });
}

process.on('message', async (message: { open?: { targets: string[]; first: number; count: number; addresses: number } } | string) => {
  if (message === 'close') {
    for (const request of requests) request.destroy();
    process.exit(0);
  }
  if (typeof message === 'string' || !message.open) return;
  const { targets, first, count, addresses } = message.open;
  total += count;
  // A bounded number of opens at a time: each is a request with its own checks and lease on the server.
  let next = first;
  const worker = async () => {
    while (next < first + count) {
      const i = next++;
      await openStream(targets[i % targets.length], addressOf(i % addresses));
    }
  };
  try {
    await Promise.all(Array.from({ length: 64 }, worker));
    process.send!({ opened: count });
  } catch (error) {
    process.send!({ error: String(error) });
  }
});
