import type Koa from 'koa';
import type { Room, RoomChange } from '../../engine/index.js';
import type { McpCaller } from '../../mcp/context.js';
import type { LegacySubscriptions } from '../../mcp/legacy-subscriptions.js';
import { resourceUris, viewsChangedBy } from '../../mcp/resource-uris.js';
import { streamOwner } from './stream-owner.js';
import type { StreamRegistry } from './streams.js';

/**
 * GET /mcp: the SSE stream of notifications/resources/updated for the URIs
 * this session subscribed to with resources/subscribe. Kept for clients that
 * already use it; it never carries task notifications.
 */
export function legacyResourceStream(room: Room, streams: StreamRegistry, subscriptions: LegacySubscriptions) {
  return async (ctx: Koa.Context): Promise<void> => {
    const caller = ctx.state.caller as McpCaller;
    const sessionId = caller.session_id;
    streams.checkRoom(sessionId);
    const uris = resourceUris(room);
    const render = (change: RoomChange): unknown[] => {
      const subscribed = subscriptions.of(sessionId);
      if (!subscribed) return [];
      return viewsChangedBy(change.event.type)
        .map((view) => uris[view])
        .filter((uri) => subscribed.has(uri))
        .map((uri) => ({ jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri } }));
    };
    ctx.respond = false;
    streams.open({
      req: ctx.req,
      res: ctx.res,
      owner: streamOwner(room, caller),
      filter: (change) => render(change).length > 0,
      render,
    });
  };
}
