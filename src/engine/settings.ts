// The room's settings (schemas/domain/room-settings.json): how the room
// process serves the room, kept in the sidecar so that they outlive a
// restart and can be changed while it runs. One row a setting; a setting
// with no row has its default.
import { validateSettingsUpdateInput } from '../../generated/input-validators.js';
import type { InputOf } from '../../generated/operations.js';
import type { Caller, RoomSettings, SettingsOutput } from '../../generated/types.js';
import { DomainError } from '../errors.js';
import { actorName, type Actor } from './access.js';
import { change, type Room } from './room.js';

/** An origin the settings can allow (schemas/domain/web-origin.json): http or https, a host, a port; never `null`. */
export const isAllowableOrigin = (text: string): boolean => validateSettingsUpdateInput({ allowed_origins: [text] });

const DEFAULTS: RoomSettings = { allowed_hosts: [], allowed_origins: [], four_eyes: false };

/**
 * The settings the writer last committed, kept so that a request need not
 * read them (the HTTP layer asks on every request). Only the writer keeps
 * them: it alone changes them, and forgets them in the same call.
 */
const kept = new WeakMap<Room, RoomSettings>();

function readSettings(room: Room): RoomSettings {
  const settings: Record<string, unknown> = { ...DEFAULTS };
  for (const row of room.store.listSettings()) {
    if (Object.hasOwn(DEFAULTS, row.key)) settings[row.key] = JSON.parse(row.value_json);
  }
  return Object.freeze(settings) as unknown as RoomSettings;
}

/** The room's settings as committed; the same frozen object until they change. */
export function roomSettings(room: Room): RoomSettings {
  if (!room.sidecar.writable) return readSettings(room);
  let settings = kept.get(room);
  if (!settings) kept.set(room, (settings = readSettings(room)));
  return settings;
}

export function getSettings(room: Room, actor: Actor, _args: InputOf<'getSettings'>): SettingsOutput {
  return { settings: roomSettings(room) };
}

/** A second person decides, by `ce serve --four-eyes` or the room's setting. */
export const asksFourEyes = (room: Room): boolean => room.fourEyes || roomSettings(room).four_eyes;

/**
 * Whether a second person must decide (asksFourEyes): then nobody approves
 * or rejects their own proposal, or the result of a handoff they did.
 * `maker` names the one who made it.
 */
export function requireSecondPerson(room: Room, caller: Caller, maker: string, what: string): void {
  if (caller.participant !== maker || !asksFourEyes(room)) return;
  throw new DomainError(
    'forbidden',
    `the room asks for four eyes: ${what} is ${maker}'s own work, so another approver decides it`,
    { four_eyes: true },
  );
}

/** Replaces each setting named; a running room serves by them from its next request. */
export function updateSettings(room: Room, actor: Actor, args: InputOf<'updateSettings'>): SettingsOutput {
  const changed = (Object.keys(DEFAULTS) as (keyof RoomSettings)[]).filter((key) => args[key] !== undefined);
  const output = change(room, ({ now, record }) => {
    for (const key of changed) {
      room.store.putSetting({
        key,
        value_json: JSON.stringify(args[key]),
        updated_at: now,
        updated_by: actorName(actor),
      });
    }
    record({
      type: 'settings.updated',
      actor: actorName(actor),
      handoffId: null,
      taskId: null,
      payload: Object.fromEntries(changed.map((key) => [key, args[key]])),
    });
    kept.delete(room); // read again from the sidecar, even if this change rolled back
    return { settings: readSettings(room) };
  });
  return output;
}
