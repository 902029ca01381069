// POST /mcp on node:http alone: the Streamable HTTP transport's one busy
// route, in front of Koa (which keeps GET /mcp, REST, the page and /docs).
// The same checks in the same order as every other route (Host, Origin,
// the token, the body, then the message), the same answers: JSON written
// with one end(), an SSE stream for a listen, errors through errorAnswer.
// Koa's context, router and middleware chain cost a tasks/get more than
// the room's own work did.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Room } from '../../engine/index.js';
import type { McpCaller } from '../../mcp/context.js';
import type { RequestId } from '../../mcp/protocol.js';
import { jsonRpcMessage, type McpServer } from '../../mcp/server.js';
import { bodyAndSender, type WithHeaders } from '../authenticate.js';
import { hostRefusal, originRefusal, type RoomNames } from '../middleware/room-names.js';
import { answerObserved, single, type FactsOf, type Observer } from '../node-answer.js';
import { mcpFacts, participantOf, refusedWhy } from '../observe/request-facts.js';
import { sendJson, sendText } from '../send.js';
import { errorAnswer } from './errors.js';
import { header } from './headers.js';
import { streamOwner } from './stream-owner.js';
import type { StreamRegistry } from './streams.js';

export interface McpPostOptions extends Observer {
  room: Room;
  server: McpServer;
  streams: StreamRegistry;
  names: RoomNames;
  callerOf: (request: WithHeaders) => McpCaller;
  maxBodyBytes: number;
}

/** The path Koa's router took as /mcp: any case, a trailing slash or not, a query string aside. */
const MCP_PATH = /^\/mcp\/?(?:\?|$)/i;

/** Is this request POST /mcp? */
export const isMcpPost = (req: IncomingMessage): boolean => req.method === 'POST' && MCP_PATH.test(req.url ?? '');

export function mcpPost(options: McpPostOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const { room, server, streams, names } = options;

  /** Runs the request; what it was, for the log and the metrics. */
  async function answer(req: IncomingMessage, res: ServerResponse): Promise<FactsOf> {
    let rpcId: RequestId | null = null;
    let caller: McpCaller | undefined;
    let refused: string | undefined;
    try {
      const refusal = hostRefusal(names, single(req.headers.host)) ?? originRefusal(names, single(req.headers.origin));
      if (refusal) throw refusal;
      caller = options.callerOf(req);
      const [body, authenticated] = await bodyAndSender(room, req, options.maxBodyBytes, caller, () =>
        options.callerOf(req),
      );
      caller = authenticated;
      // Acknowledged means on disk: the answer is sent once the commits of what it did and saw are done.
      const send = await room.commits.durably(async (): Promise<(() => void) | null> => {
        const message = jsonRpcMessage(body);
        rpcId = message.id ?? null;
        const outcome = await server.handle(
          message,
          (name) => header(req.headers, name),
          authenticated,
          () => options.callerOf(req),
        );
        switch (outcome.kind) {
          case 'notification':
            if (outcome.cancelled !== null) streams.cancel(authenticated.session_id, outcome.cancelled);
            return () => sendText(res, 202, 'text/plain; charset=utf-8', '');
          case 'result':
            return () => sendJson(res, 200, { jsonrpc: '2.0', id: outcome.id, result: outcome.result });
          case 'stream':
            // A listen changes nothing: its acknowledgement leaves at once (the server read once every batch was on disk).
            streams.checkRoom(outcome.caller.session_id);
            streams.openListen({
              req,
              res,
              owner: streamOwner(room, outcome.caller),
              requestId: outcome.id,
              watch: outcome.watch,
              first: outcome.first,
              kind: outcome.fromPage ? 'page' : 'listen',
            });
            return null;
        }
      });
      send?.();
    } catch (error) {
      refused = refusedWhy(error);
      const { status, headers, error: rpc } = errorAnswer(error, options.log, 'POST /mcp');
      if (res.headersSent) {
        res.destroy(); // a stream that had begun cannot carry an error answer
      } else {
        sendJson(res, status, { jsonrpc: '2.0', ...(rpcId === null ? {} : { id: rpcId }), error: rpc }, headers);
      }
    }
    const participant = participantOf(caller);
    const headers = { mcpMethod: single(req.headers['mcp-method']), mcpName: single(req.headers['mcp-name']) };
    return ({ status, seconds }) => mcpFacts('POST', '/mcp', headers, { status, seconds, participant, refused });
  }

  return (req, res) => answerObserved(req, res, options, 'POST /mcp', () => answer(req, res));
}
