// Probes for whoever runs the room (systemd, Kubernetes, a load balancer):
// GET /healthz, the process answers; GET /readyz, the room can do its work
// (engine/readiness.ts), 200 or 503. No token is needed and no room content
// is said; like every route, they answer only to the room's own names (Host).
// Asked with the operator's token or an admin's session (ce status does),
// /readyz also counts the open streams, which only the process knows, and
// says how many it serves at most.
import type Router from '@koa/router';
import type Koa from 'koa';
import { roomReadiness, type Room } from '../engine/index.js';

export interface HealthOptions {
  /** Whether the request comes from the operator or an admin; false for anyone else, or no token. */
  isAdmin(ctx: Koa.Context): boolean;
  openStreams(): Record<string, number>;
  /** The most streams the room serves at once (--max-streams, or fewer when its open-file limit leaves less). */
  maxStreams: number;
}

export function addHealthRoutes(
  router: Router,
  room: Room,
  before: readonly Koa.Middleware[],
  { isAdmin, openStreams, maxStreams }: HealthOptions,
): void {
  router.get('/healthz', ...before, (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.get('/readyz', ...before, (ctx) => {
    const { ready, checks } = roomReadiness(room);
    ctx.status = ready ? 200 : 503;
    const streams = isAdmin(ctx) ? { streams: openStreams(), max_streams: maxStreams } : {};
    ctx.body = { status: ready ? 'ready' : 'not_ready', checks, ...streams };
  });
}
