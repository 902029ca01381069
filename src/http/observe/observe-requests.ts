// Each finished request, told once to the request log (when it writes info
// lines) and the metrics, whichever the room was given: POST /mcp
// (mcp/post.ts) and every route of Koa share one observer.
import type Koa from 'koa';
import { identify } from '../middleware/request-id.js';
import type { RoomMetrics } from './room-metrics.js';
import { startFacts, type RequestFacts } from './request-facts.js';
import { requestLog, type RoomLogger } from './request-log.js';

export type RequestObserver = (requestId: string, facts: RequestFacts) => void;

/** The observer for this logger and these metrics; null when neither would take a request. */
export function requestObserver(
  logger: RoomLogger | undefined,
  metrics: RoomMetrics | undefined,
): RequestObserver | null {
  const log = logger?.logsInfo ? requestLog(logger) : null;
  if (log === null) return metrics ? (_id, facts) => metrics.observeRequest(facts) : null;
  if (metrics === undefined) return log;
  return (id, facts) => {
    log(id, facts);
    metrics.observeRequest(facts);
  };
}

/** Koa's side: gives the request its id (request-id.ts, in place of that middleware) and observes it once it ends. */
export const observeRequests =
  (observe: RequestObserver): Koa.Middleware =>
  async (ctx, next) => {
    const id = identify(ctx);
    const finished = startFacts(ctx);
    try {
      await next();
    } finally {
      observe(id, finished());
    }
  };
