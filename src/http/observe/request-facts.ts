// What a finished request was, named once for the request log and the
// metrics: its door, its route (REST's template, or MCP's method and tool),
// its status and how long it took. Labels come only from bounded sets (the
// routes the room has, the MCP methods and tools it knows): a client's
// made-up Mcp-Method header cannot make a new metric series.
import type Koa from 'koa';
import { mcpMethods, toolOperations } from '../../../generated/mcp.js';
import { LOCAL_OPERATOR, type Actor } from '../../engine/index.js';

/** Which face of the room answered: MCP, the REST API, the page's files, the probes and docs, or no route. */
export type Door = 'mcp' | 'rest' | 'page' | 'ops' | 'none';

export interface RequestFacts {
  door: Door;
  method: string;
  /** The route template that took the request, null when none did. */
  template: string | null;
  /** REST's route template (`/workspace/handoffs/:id`); MCP's method (`tasks/get`, `tools/call handoff_create`); `unmatched` when no route took it. */
  route: string;
  /** The MCP method, when the room knows it. */
  mcpMethod: string | null;
  /** The tool of a tools/call, when the room has it. */
  tool: string | null;
  status: number;
  seconds: number;
  /** Who the request acted as, once authentication ran. */
  participant: string | null;
}

const OPS_ROUTES = new Set(['/healthz', '/readyz', '/metrics', '/openapi.json', '/docs']);
const known = (names: object, name: string): string | null => (Object.hasOwn(names, name) ? name : null);

function doorOf(path: string, route: string | null): Door {
  if (path === '/mcp') return 'mcp';
  if (route === null) return 'none';
  if (route === '/' || route.startsWith('/page/')) return 'page';
  return OPS_ROUTES.has(route) ? 'ops' : 'rest';
}

function participantOf(state: Koa.DefaultState): string | null {
  const who = (state.caller ?? state.actor) as Actor | undefined;
  if (who === undefined) return null;
  return who === LOCAL_OPERATOR ? 'the local operator' : who.participant;
}

/** Call when the request started; the function returned names it once it has finished. */
export function startFacts(ctx: Koa.Context): () => RequestFacts {
  const started = performance.now();
  return () => {
    const template = (ctx as { _matchedRoute?: string })._matchedRoute ?? null;
    const door = doorOf(ctx.path, template);
    const mcpMethod = door === 'mcp' ? known(mcpMethods, ctx.get('mcp-method')) : null;
    const tool = mcpMethod === 'tools/call' ? known(toolOperations, ctx.get('mcp-name')) : null;
    const route =
      door !== 'mcp' ? (template ?? 'unmatched') : tool !== null ? `tools/call ${tool}` : (mcpMethod ?? '/mcp');
    return {
      door,
      method: ctx.method,
      template,
      route,
      mcpMethod,
      tool,
      status: ctx.status,
      seconds: (performance.now() - started) / 1000,
      participant: participantOf(ctx.state),
    };
  };
}
