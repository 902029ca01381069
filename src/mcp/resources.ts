// The resources/* handlers. Which views a session may read is the
// engine's rule (readableViews); a view it may not read answers like an
// unknown URI.
import { runOperation, type Actor, type Room, type RoomView } from '../engine/index.js';
import type { McpRequestContext } from './context.js';
import { CACHE, complete, RPC, RpcError } from './protocol.js';
import { readableUris } from './resource-uris.js';

const DESCRIPTIONS: Record<RoomView, { title: string; mimeType: string }> = {
  artifact: { title: 'The artifact', mimeType: 'text/markdown' },
  handoffs: { title: 'Handoffs', mimeType: 'application/json' },
  proposals: { title: 'Open proposals', mimeType: 'application/json' },
  history: { title: 'Recent history', mimeType: 'application/json' },
};

/** Resource not found (-32602), with the URI it names in data.uri (server/resources.mdx). */
const unknownResource = (uri: string) => new RpcError(RPC.invalidParams, `unknown resource ${uri}`, { uri });

/**
 * Each view's contents; the lists are their first page (500 at most, and
 * PAGE_TEXT_BUDGET), as the design's views are: the newest handoffs and
 * proposals, and the latest history, newest first (before 0), which its
 * title promises; from the start, a room past 500 entries never showed today.
 */
function contentsOf(room: Room, caller: Actor, view: RoomView, uri: string) {
  const json = (value: unknown) => ({ uri, mimeType: 'application/json', text: JSON.stringify(value) });
  switch (view) {
    case 'artifact':
      return { uri, mimeType: 'text/markdown', text: runOperation(room, caller, 'readArtifact', {}).content };
    case 'handoffs':
      return json(runOperation(room, caller, 'listHandoffs', { limit: 500 }));
    case 'proposals':
      return json(runOperation(room, caller, 'listProposals', { limit: 500 }));
    case 'history':
      return json(runOperation(room, caller, 'listHistory', { before: 0, limit: 500 }));
  }
}

export const resourceHandlers = {
  listResources: ({ room, caller }: McpRequestContext) =>
    complete({
      resources: [...readableUris(room, caller)].map(([uri, view]) => ({
        uri,
        name: view === 'artifact' ? uri.slice('workspace:///'.length) : view,
        ...DESCRIPTIONS[view],
      })),
      ...CACHE,
    }),

  // The resources capability implies this method; the room has no parameterized resources.
  listResourceTemplates: () => complete({ resourceTemplates: [], ...CACHE }),

  readResource: ({ room, caller }: McpRequestContext, { uri }: { uri: string }) => {
    const view = readableUris(room, caller).get(uri);
    if (!view) throw unknownResource(uri);
    return complete({ contents: [contentsOf(room, caller, view, uri)], ...CACHE });
  },

  subscribeResource: ({ room, caller, legacySubscriptions }: McpRequestContext, { uri }: { uri: string }) => {
    if (!readableUris(room, caller).has(uri)) throw unknownResource(uri);
    legacySubscriptions.subscribe(caller.session_id, uri);
    return complete({});
  },

  unsubscribeResource: ({ caller, legacySubscriptions }: McpRequestContext, { uri }: { uri: string }) => {
    legacySubscriptions.unsubscribe(caller.session_id, uri);
    return complete({});
  },
};
