// Anchor (d): the fastest bare server-sent events broadcast node:http can
// do. Any request to /stream stays open as a stream (a comment first, so the
// client knows it is there); POST /broadcast builds one frame as bytes, once:
// the notification the room sends in the fan-out round, field for field (its
// listeners read as many bytes), as one chunk of a chunked response (its
// size line, the frame, CRLF). It writes those same bytes to every open
// stream's socket and answers 204. No per-stream work but the write itself:
// `res.write` would frame the chunk again for each stream, in three pieces,
// and send every stream's a turn of the event loop later, after all the
// others' (BENCHMARKS.md).
// Usage: node sse-broadcast.js  (prints {"port":…} once listening)
import { createServer, type ServerResponse } from 'node:http';

const streams = new Set<ServerResponse>();
const server = createServer((req, res) => {
  if (req.url === '/broadcast') {
    const now = new Date().toISOString();
    const frame = Buffer.from(
      `event: message\ndata: ${JSON.stringify({
        jsonrpc: '2.0',
        method: 'notifications/tasks',
        params: {
          taskId: 'tk_benchBenchBenchBenchBe',
          createdAt: now,
          lastUpdatedAt: now,
          ttlMs: 86_400_000,
          pollIntervalMs: 5000,
          status: 'completed',
          result: { content: [{ type: 'text', text: 'Done' }], resultType: 'complete' },
          _meta: { 'io.modelcontextprotocol/subscriptionId': 1 },
        },
      })}\n\n`,
    );
    const chunk = Buffer.concat([Buffer.from(`${frame.byteLength.toString(16)}\r\n`), frame, Buffer.from('\r\n')]);
    for (const stream of streams) stream.socket!.write(chunk);
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
