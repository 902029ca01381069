// What every view of the page is given: the room's API, who the session is,
// and how an action runs (its refusal shown beside it, the views it changes
// read again).
import type { Capability, SessionGetOutput } from '../generated/types.js';
import type { RoomApi } from './api.js';
import type { View } from './live.js';

export interface PageContext {
  api: RoomApi;
  me: SessionGetOutput;
  /** Whether the session has the capability: an action it lacks is not shown (and the room refuses it anyway). */
  can(capability: Capability): boolean;
  /**
   * Runs an action from `control` (disabled meanwhile); its refusal is
   * shown in `status`. On success `done` runs at once (clear the form that
   * sent it) and the views it changes are read again.
   */
  act(options: {
    control: HTMLElement;
    status: HTMLElement;
    run: () => Promise<unknown>;
    changes: View[];
    done?: () => void;
    /** Said to a screen reader once it is done (the page's announcer), where the button and its card may be gone. */
    said?: string;
  }): Promise<void>;
}
