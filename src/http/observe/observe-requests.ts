// Each finished request, told once to the request log (when it writes info
// lines) and the metrics, whichever the room was given.
import type Koa from 'koa';
import type { RoomMetrics } from './room-metrics.js';
import { startFacts } from './request-facts.js';
import { logRequest, type RoomLogger } from './request-log.js';

export const observeRequests =
  (logger: RoomLogger | undefined, metrics: RoomMetrics | undefined): Koa.Middleware =>
  async (ctx, next) => {
    const finished = startFacts(ctx);
    try {
      await next();
    } finally {
      const facts = finished();
      if (logger?.logsInfo) logRequest(logger, ctx.state.requestId as string, facts);
      metrics?.observeRequest(facts);
    }
  };
