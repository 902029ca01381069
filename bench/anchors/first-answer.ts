// Anchor (e): the least a Node.js server of a SQLite file does before its
// first answer: node:http, better-sqlite3 opening the room's own sidecar,
// and a point read of the task a JSON-RPC body names. No auth, no checks, no
// log. What `ce serve` takes beyond it is the room's own start.
// Usage: node first-answer.js SIDECAR  (prints {"mcp_url":…} once listening)
import { createServer } from 'node:http';
import Database from 'better-sqlite3';

const db = new Database(process.argv[2]!, { fileMustExist: true });
const get = db.prepare('SELECT * FROM tasks WHERE id = ?');

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const request = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: number; params: { taskId: string } };
    const body = JSON.stringify({ jsonrpc: '2.0', id: request.id, result: get.get(request.params.taskId) ?? null });
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
  });
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  process.stdout.write(`${JSON.stringify({ mcp_url: `http://127.0.0.1:${port}/mcp` })}\n`);
});
