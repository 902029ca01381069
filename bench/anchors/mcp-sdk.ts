// Anchor (b): the official MCP TypeScript SDK v2 server (2026-07-28,
// stateless), one trivial tool, served by node:http through the SDK's own
// Node adapter, as its README shows.
// Usage: node mcp-sdk.js  (prints {"port":…} once listening)
import { createServer } from 'node:http';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';

const handler = createMcpHandler(
  () => {
    const server = new McpServer({ name: 'anchor', version: '1.0.0' });
    server.registerTool('ping', { description: 'Answers pong' }, () => ({
      content: [{ type: 'text', text: 'pong' }],
    }));
    return server;
  },
  { legacy: 'reject' },
);
const node = toNodeHandler(handler);
const server = createServer((req, res) => void node(req, res));
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`${JSON.stringify({ port: typeof address === 'object' && address ? address.port : 0 })}\n`);
});
