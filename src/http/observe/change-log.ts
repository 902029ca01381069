// One log line per state change, as it is committed: what changed (the
// event's type), who did it, and the ids and revision it names. Only these
// fields: an event's payload may carry a summary or a task's status message,
// which stay out of the log like every other text of the room.
import type { Event } from '../../../generated/types.js';
import type { Room } from '../../engine/index.js';
import type { RoomLogger } from './request-log.js';

/** The payload fields a change line may carry: ids, numbers and names, never text a person wrote. */
const LOGGED_PAYLOAD = [
  'proposal_id',
  'revision',
  'base_revision',
  'session_id',
  'participant',
  'name',
  'assignee',
  'key',
  'status',
] as const;

function changeFields(event: Event): Record<string, unknown> {
  const fields: Record<string, unknown> = { change: event.type, event_id: event.id, actor: event.actor };
  if (event.handoff_id !== null) fields.handoff_id = event.handoff_id;
  if (event.task_id !== null) fields.task_id = event.task_id;
  for (const key of LOGGED_PAYLOAD) {
    const value = event.payload[key];
    if (typeof value === 'string' || typeof value === 'number') fields[key] = value;
  }
  return fields;
}

/** Logs every change the room commits from now on. */
export function logChanges(room: Room, logger: RoomLogger): void {
  room.eventListeners.add((events) => {
    for (const event of events) logger.info(changeFields(event), 'change');
  });
}
