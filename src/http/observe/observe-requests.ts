// Each finished request, told once to the request log (when it writes info
// lines) and the metrics, whichever the room was given. It also gives the
// request its id (request-id.ts), in place of that middleware: one step
// less for every request.
import type Koa from 'koa';
import { identify } from '../middleware/request-id.js';
import type { RoomMetrics } from './room-metrics.js';
import { startFacts } from './request-facts.js';
import { logRequest, type RoomLogger } from './request-log.js';

export const observeRequests =
  (logger: RoomLogger | undefined, metrics: RoomMetrics | undefined): Koa.Middleware =>
  async (ctx, next) => {
    const id = identify(ctx);
    const finished = startFacts(ctx);
    try {
      await next();
    } finally {
      const facts = finished();
      if (logger?.logsInfo) logRequest(logger, id, facts);
      metrics?.observeRequest(facts);
    }
  };
