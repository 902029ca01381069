import { LOCAL_OPERATOR, type Actor } from './access.js';

/** The room's views a reader may follow (MCP serves them as resources): the artifact and three JSON lists. */
export const ROOM_VIEWS = ['artifact', 'handoffs', 'proposals', 'history'] as const;
export type RoomView = (typeof ROOM_VIEWS)[number];

/** Every view for an actor that may read; none for one that may not. */
export const readableViews = (actor: Actor): readonly RoomView[] =>
  actor === LOCAL_OPERATOR || actor.capabilities.includes('read') ? ROOM_VIEWS : [];
