// Anchor (d): the fastest bare server-sent events broadcast node:http can
// do. Any request to /stream stays open as a stream (a comment first, so the
// client knows it is there); POST /broadcast builds one frame as bytes, once,
// writes those same bytes to every open stream and answers 204. No
// per-stream work but the write itself.
// Usage: node sse-broadcast.js  (prints {"port":…} once listening)
import { createServer, type ServerResponse } from 'node:http';

const streams = new Set<ServerResponse>();
const server = createServer((req, res) => {
  if (req.url === '/broadcast') {
    const frame = Buffer.from(
      `event: message\ndata: ${JSON.stringify({
        jsonrpc: '2.0',
        method: 'notifications/tasks',
        params: { taskId: 'ta_bench', status: 'completed', lastUpdatedAt: new Date().toISOString() },
      })}\n\n`,
    );
    for (const stream of streams) stream.write(frame);
    res.writeHead(204).end();
    return;
  }
  req.resume();
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.write(': open\n\n');
  streams.add(res);
  res.on('close', () => streams.delete(res));
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`${JSON.stringify({ port: typeof address === 'object' && address ? address.port : 0 })}\n`);
});
