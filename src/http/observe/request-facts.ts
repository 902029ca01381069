// What a finished request was, named once for the request log and the
// metrics: its door, its route (REST's template, or MCP's method and tool),
// its status and how long it took. Labels come only from bounded sets (the
// routes the room has, the MCP methods and tools it knows): a client's
// made-up Mcp-Method header cannot make a new metric series.
import type Koa from 'koa';
import { mcpMethods, toolOperations } from '../../../generated/mcp.js';
import { LOCAL_OPERATOR, Unauthenticated, type Actor } from '../../engine/index.js';

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
  /** The path asked for when no route took it (askedPath): a proxy's wrong prefix shows there. */
  path?: string;
  /** Why its token was refused (a 401): for the operator, never said to the client (refusedWhy). */
  refused?: string;
}

/**
 * How a request ended, as its door tells it. Facts are built field by field,
 * every one always present: spreading one object into another, twice a
 * request, cost more than the metrics' whole count of it.
 */
export interface Outcome {
  status: number;
  seconds: number;
  participant: string | null;
  refused?: string;
}

/** Why a request's token was refused, when `error` is that refusal: the log's `refused`. */
export const refusedWhy = (error: unknown): string | undefined =>
  error instanceof Unauthenticated ? error.why : undefined;

/**
 * A path no route took, as the log may hold it: its first 200 characters,
 * with anything that looks like a session or operator token (`cr_…`, as a
 * client that put its token in the URL would) hidden.
 */
export function askedPath(path: string): string {
  const kept = path.length > 200 ? `${path.slice(0, 200)}…` : path;
  return kept.replace(/cr_[A-Za-z0-9_-]*/g, 'cr_…');
}

const OPS_ROUTES = new Set(['/healthz', '/readyz', '/metrics', '/openapi.json', '/docs']);
/**
 * The MCP methods and the tools the room has, as sets: one lookup a request,
 * cheaper than a search of the generated objects.
 */
const MCP_METHODS = new Set(Object.keys(mcpMethods));
const TOOLS = new Set(Object.keys(toolOperations));
const known = (names: ReadonlySet<string>, name: string): string | null => (names.has(name) ? name : null);
/** `tools/call NAME` for each tool, made once: a string joined per request is one more to hash per request. */
const toolRoutes = new Map(Object.keys(toolOperations).map((tool) => [tool, `tools/call ${tool}`]));

function doorOf(route: string | null): Door {
  if (route === null) return 'none';
  if (route === '/' || route.startsWith('/page/')) return 'page';
  return OPS_ROUTES.has(route) ? 'ops' : 'rest';
}

/** What a request to /mcp was, from its MCP routing headers (Mcp-Method, Mcp-Name), only as far as the room knows them. */
export function mcpFacts(
  method: string,
  template: string | null,
  headers: { mcpMethod: string; mcpName: string },
  { status, seconds, participant, refused }: Outcome,
): RequestFacts {
  const mcpMethod = known(MCP_METHODS, headers.mcpMethod);
  const tool = mcpMethod === 'tools/call' ? known(TOOLS, headers.mcpName) : null;
  const route = tool !== null ? toolRoutes.get(tool)! : (mcpMethod ?? '/mcp');
  return {
    door: 'mcp',
    method,
    template,
    route,
    mcpMethod,
    tool,
    status,
    seconds,
    participant,
    path: undefined,
    refused,
  };
}

/** What a request to a route other than /mcp was (REST's, the page's, the probes'), or to no route (`template` null). */
export function routeFacts(method: string, template: string | null, path: string, outcome: Outcome): RequestFacts {
  return {
    door: doorOf(template),
    method,
    template,
    route: template ?? 'unmatched',
    mcpMethod: null,
    tool: null,
    status: outcome.status,
    seconds: outcome.seconds,
    participant: outcome.participant,
    path: template === null ? askedPath(path) : undefined,
    refused: outcome.refused,
  };
}

/** Who a request acted as: a participant's name, the operator, or nobody (yet). */
export const participantOf = (who: Actor | undefined): string | null =>
  who === undefined ? null : who === LOCAL_OPERATOR ? 'the local operator' : who.participant;

/**
 * A request's clock: process.hrtime, not the global `performance`, which is
 * a module node loads at its first use (1.4 ms of a room's first answer).
 */
export const requestStarted = (): bigint => process.hrtime.bigint();
export const secondsSince = (started: bigint): number => Number(process.hrtime.bigint() - started) / 1e9;

/** Call when the request started; the function returned names it once it has finished. */
export function startFacts(ctx: Koa.Context): () => RequestFacts {
  const started = requestStarted();
  return () => {
    const template = (ctx as { _matchedRoute?: string })._matchedRoute ?? null;
    const outcome: Outcome = {
      status: ctx.status,
      seconds: secondsSince(started),
      participant: participantOf((ctx.state.caller ?? ctx.state.actor) as Actor | undefined),
      refused: ctx.state.refused as string | undefined,
    };
    if (ctx.path === '/mcp') {
      return mcpFacts(
        ctx.method,
        template,
        { mcpMethod: ctx.get('mcp-method'), mcpName: ctx.get('mcp-name') },
        outcome,
      );
    }
    return routeFacts(ctx.method, template, ctx.path, outcome);
  };
}
