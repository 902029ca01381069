// A room that stops answers every request it took, and takes no more. A
// request that arrives once the stop began, on a connection kept alive from
// before, is refused with 503 and the connection closed: nothing is done for
// it, so sending it again later is safe. Those already taken are waited for
// (their changes committed, their answers written) before the connections
// close, where closing at once left changes stored that no client was told
// of: handoffs whose tasks then counted toward the room's 32.
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { RPC } from '../mcp/protocol.js';
import { isMcpPost } from './mcp/post.js';
import { sendText } from './send.js';

/**
 * How long a stop waits for the requests it took. Their changes commit
 * within milliseconds; a body still on its way after this is cut, and
 * nothing was done for it.
 */
export const DRAIN_MS = 2_000;
const RETRY_AFTER_SECONDS = '5';
const STOPPING = 'the room is stopping; nothing was done: send the request again once it is back';

/** The refusal of a request that came once the stop began: MCP's JSON-RPC error, or REST's problem+json. */
function refuseStopping(req: IncomingMessage, res: ServerResponse): void {
  const mcp = isMcpPost(req);
  const body = JSON.stringify(
    mcp
      ? { jsonrpc: '2.0', id: null, error: { code: RPC.unavailable, message: STOPPING } }
      : { type: 'about:blank', title: 'Service Unavailable', status: 503, detail: STOPPING, code: 'unavailable' },
  );
  res.shouldKeepAlive = false; // Connection: close, and the connection ends with the answer
  sendText(res, 503, mcp ? 'application/json; charset=utf-8' : 'application/problem+json', body, {
    'Retry-After': RETRY_AFTER_SECONDS,
    'X-Content-Type-Options': 'nosniff',
  });
}

export interface Drain {
  /** The room's handler, counting the requests it takes. */
  handler: RequestListener;
  /** Takes no more requests, and resolves once those taken are answered, or after DRAIN_MS. */
  stop(): Promise<void>;
}

export function drainable(handler: RequestListener): Drain {
  let stopping = false;
  let taken = 0;
  let drained: (() => void) | null = null;
  const answered = () => {
    taken -= 1;
    if (taken === 0) drained?.();
  };
  return {
    handler(req, res) {
      if (stopping) return refuseStopping(req, res);
      taken += 1;
      res.once('close', answered); // after the answer is written, or once its connection is gone
      handler(req, res);
    },
    stop() {
      stopping = true;
      if (taken === 0) return Promise.resolve();
      return new Promise((resolve) => {
        const timer = setTimeout(resolve, DRAIN_MS);
        drained = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    },
  };
}
