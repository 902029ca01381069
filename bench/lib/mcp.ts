// Well-formed MCP 2026-07-28 requests, as a client of the room sends them:
// the routing headers, the bearer token and the _meta envelope.
export const PROTOCOL_VERSION = '2026-07-28';
export const TASKS = 'io.modelcontextprotocol/tasks';

export interface McpPost {
  headers: Record<string, string>;
  body: string;
}

/** One JSON-RPC request over POST /mcp; `name` is the Mcp-Name header (tool name or task id). */
export function mcpPost(
  method: string,
  params: Record<string, unknown>,
  options: { token: string; name?: string; tasks?: boolean; id?: number },
): McpPost {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': PROTOCOL_VERSION,
    'mcp-method': method,
    authorization: `Bearer ${options.token}`,
  };
  if (options.name !== undefined) headers['mcp-name'] = options.name;
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: options.id ?? 1,
    method,
    params: {
      ...params,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': PROTOCOL_VERSION,
        'io.modelcontextprotocol/clientCapabilities': options.tasks ? { extensions: { [TASKS]: {} } } : {},
        'io.modelcontextprotocol/clientInfo': { name: 'ce-bench', version: '1.0.0' },
      },
    },
  });
  return { headers, body };
}

export const taskGet = (token: string, taskId: string): McpPost =>
  mcpPost('tasks/get', { taskId }, { token, name: taskId, tasks: true });

export const toolCall = (token: string, name: string, args: unknown, tasks = false): McpPost =>
  mcpPost('tools/call', { name, arguments: args }, { token, name, tasks });
