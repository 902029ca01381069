// The load generator, run as its own process (pinned to the load core):
// autocannon's programmatic API against one URL, then one JSON line with
// the rate. Scenarios: `fixed` (the same request again and again) and
// `create-cancel` (handoff_create over MCP with the Tasks extension, then
// tasks/cancel of the task it made, per connection).
import autocannon from 'autocannon';
import { mcpPost, toolCall, type McpPost } from './mcp.js';

export type LoadScenario =
  { kind: 'fixed'; path: string; method: 'GET' | 'POST'; request?: McpPost } | { kind: 'create-cancel'; token: string };

export interface LoadConfig {
  origin: string;
  seconds: number;
  connections: number;
  scenario: LoadScenario;
}

export interface LoadResult {
  perSecond: number;
  total: number;
  non2xx: number;
  errors: number;
  /** Answers that were 200 but not what the scenario expects (a refusal as a tool result). */
  refused: number;
}

const config = JSON.parse(process.argv[2]!) as LoadConfig;
let refused = 0;

function requestsOf(scenario: LoadScenario): autocannon.Request[] {
  if (scenario.kind === 'fixed') {
    return [
      {
        method: scenario.method,
        path: scenario.path,
        ...(scenario.request ? { headers: scenario.request.headers, body: scenario.request.body } : {}),
      },
    ];
  }
  const create = toolCall(scenario.token, 'handoff_create', { summary: 'A benchmark handoff' }, true);
  return [
    {
      method: 'POST',
      path: '/mcp',
      headers: create.headers,
      body: create.body,
      onResponse: (status, body, context) => {
        const taskId = status === 200 ? (JSON.parse(body) as any)?.result?.taskId : undefined;
        if (typeof taskId !== 'string') refused++;
        (context as Record<string, unknown>).taskId = taskId ?? 'ta_missing';
      },
    },
    {
      method: 'POST',
      path: '/mcp',
      setupRequest: (request, context) => {
        const taskId = String((context as Record<string, unknown>).taskId);
        const cancel = mcpPost('tasks/cancel', { taskId }, { token: scenario.token, name: taskId, tasks: true });
        return { ...request, headers: cancel.headers, body: cancel.body };
      },
      onResponse: (status, body) => {
        if (status !== 200 || body.includes('"error"')) refused++;
      },
    },
  ];
}

const result = await autocannon({
  url: config.origin,
  connections: config.connections,
  duration: config.seconds,
  requests: requestsOf(config.scenario),
});
const out: LoadResult = {
  perSecond: result.requests.total / result.duration,
  total: result.requests.total,
  non2xx: result.non2xx,
  errors: result.errors + result.timeouts,
  refused,
};
process.stdout.write(`${JSON.stringify(out)}\n`);
