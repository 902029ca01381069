// REST's operation routes on node:http alone, as POST /mcp is (mcp/post.ts):
// a route for every operation of the table, each one engine call. The same
// checks in the same order as when Koa held them (Host, then Origin, the
// token, the body, the input), the same answers: JSON written with one
// end(), errors as problem+json (problem.ts). Koa keeps the rest (the page,
// /docs, the probes, GET /mcp) and a path no route has. Koa's context,
// router and middleware chain were most of what a REST read cost.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isDomainError, type Actor, type Room } from '../../engine/index.js';
import { runOperation } from '../../engine/operations.js';
import { bodyAndSender, type WithHeaders } from '../authenticate.js';
import { hostRefusal, originRefusal, type RoomNames } from '../middleware/room-names.js';
import { answerObserved, single, type Observer } from '../node-answer.js';
import { participantOf, refusedWhy, routeFacts } from '../observe/request-facts.js';
import { sendJson, sendText } from '../send.js';
import { inputOf, inRouteTerms, locationOf, queryOf } from './operation-input.js';
import { matchRoute, type RouteMatch } from './operation-routes.js';
import { methodNotAllowed, PROBLEM_TYPE, problemOf, type Problem } from './problem.js';

export interface RestDoorOptions extends Observer {
  room: Room;
  names: RoomNames;
  actorOf: (request: WithHeaders) => Actor;
  maxBodyBytes: number;
  /** The room's prefix (--base-path), which a created resource's Location starts with. */
  basePath: string;
}

/** A request's path and query string, for a request line in origin form (`/path?query`); null otherwise. */
function targetOf(req: IncomingMessage): { path: string; search: string } | null {
  const url = req.url ?? '';
  if (!url.startsWith('/')) return null;
  const mark = url.indexOf('?');
  return mark === -1 ? { path: url, search: '' } : { path: url.slice(0, mark), search: url.slice(mark + 1) };
}

/** A request the door took: its path and query string, and the route (or the methods) its path has. */
export interface Taken {
  path: string;
  search: string;
  match: RouteMatch;
}

/** What restDoor makes: the routes taken, and their answers. */
export type RestDoor = ReturnType<typeof restDoor>;

/**
 * The door: `take(req)` says whether a request is one of its routes' (a
 * wrong method on a route's path included: 405, or OPTIONS' Allow), and
 * `answer` answers what it took.
 */
export function restDoor(options: RestDoorOptions) {
  const { room, names } = options;
  const sendProblem = (res: ServerResponse, problem: Problem) =>
    sendText(res, problem.status, PROBLEM_TYPE, problem.body, problem.headers);

  /** Answers the request; who it acted as, once authentication ran, or why its token was refused. */
  async function run(
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    search: string,
    match: RouteMatch,
  ): Promise<{ actor?: Actor; refused?: string }> {
    const what = `${req.method} ${path}`;
    const refusal = hostRefusal(names, single(req.headers.host));
    if (refusal) {
      sendProblem(res, problemOf(refusal, options.log, what));
      return {};
    }
    if ('allow' in match) {
      if (req.method === 'OPTIONS') sendText(res, 200, 'text/plain; charset=utf-8', '', { Allow: match.allow });
      else sendProblem(res, methodNotAllowed(req.method!, path, match.allow));
      return {};
    }
    const { operation, params } = match;
    const route = operation.rest;
    let actor: Actor | undefined;
    try {
      const origin = originRefusal(names, single(req.headers.origin));
      if (origin) throw origin;
      actor = options.actorOf(req);
      const [body, who] = await bodyAndSender(room, req, options.maxBodyBytes, actor, () => options.actorOf(req));
      actor = who;
      // Acknowledged means on disk: the answer leaves once the commits of what it did and saw are done.
      const output = await room.commits.durably(async () => {
        try {
          return runOperation(room, who, operation.id, inputOf(operation, { query: queryOf(search), params, body }));
        } catch (error) {
          throw isDomainError(error) ? inRouteTerms(error, route) : error;
        }
      });
      const headers: Record<string, string> =
        'location' in route ? { Location: options.basePath + locationOf(route.location, output) } : {};
      sendJson(res, route.status, output, headers);
    } catch (error) {
      if (res.headersSent)
        res.destroy(); // an answer that had begun cannot carry an error
      else sendProblem(res, problemOf(error, options.log, what));
      return { actor, refused: refusedWhy(error) };
    }
    return { actor, refused: undefined };
  }

  return {
    take(req: IncomingMessage): Taken | null {
      const target = targetOf(req);
      const match = target && matchRoute(req.method ?? '', target.path);
      return match ? { ...target!, match } : null;
    },

    answer(req: IncomingMessage, res: ServerResponse, { path, search, match }: Taken): void {
      const template = 'template' in match ? match.template : null;
      answerObserved(req, res, options, `${req.method} ${path}`, async () => {
        const { actor, refused } = await run(req, res, path, search, match);
        const participant = participantOf(actor);
        return ({ status, seconds }) =>
          routeFacts(req.method!, template, path, { status, seconds, participant, refused });
      });
    },
  };
}
