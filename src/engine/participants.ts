import type { InputOf } from '../../generated/operations.js';
import type { Caller, Participant, ParticipantListOutput, ParticipantOutput } from '../../generated/types.js';
import type { ParticipantRow } from '../store/rows.js';
import { actorName, type Actor } from './access.js';
import { toTimestamp } from './clock.js';
import { DomainError } from '../errors.js';
import { change, type Room } from './room.js';
import { forgetSessions } from './session-cache.js';

const toParticipant = (row: ParticipantRow): Participant => ({
  name: row.name,
  created_at: toTimestamp(row.created_at),
  removed_at: row.removed_at === null ? null : toTimestamp(row.removed_at),
});

/** A name as names are compared for sameness: Unicode NFC, then case folded (`Alice` is `alice`). */
export const sameName = (name: string): string => name.normalize('NFC').toLowerCase();

/** A current member: added and not removed. */
export const isParticipant = (room: Room, name: string): boolean => {
  const row = room.store.getParticipant(name);
  return row !== undefined && row.removed_at === null;
};

/** What the local operator may do when it acts as a participant: read, write and approve, never admin. */
export const OPERATOR_AS_PARTICIPANT: Caller['capabilities'] = ['read', 'write', 'approve'];

/**
 * The local operator acting as a participant (`ce ... --participant NAME`,
 * or the operator token with the Commonroom-Participant header): that
 * participant with read, write and approve, whichever door it came through.
 * Only a current participant can be acted as.
 */
export function actAs(room: Room, name: string): Caller {
  if (!isParticipant(room, name)) throw new DomainError('not_found', `${name} is not a participant of this room`);
  return { participant: name, capabilities: OPERATOR_AS_PARTICIPANT };
}

/** Adds a participant, or brings back a removed one (its old sessions stay revoked). */
export function addParticipant(room: Room, actor: Actor, args: InputOf<'addParticipant'>): ParticipantOutput {
  return change(room, ({ now, record }) => {
    if (isParticipant(room, args.name)) {
      throw new DomainError('conflict', `${args.name} is already a participant of this room`);
    }
    // Names are unique ignoring case and normalisation: two that read alike would be taken one for the other.
    const twin = room.store
      .listParticipants()
      .find((row) => row.name !== args.name && sameName(row.name) === sameName(args.name));
    if (twin) {
      throw new DomainError(
        'conflict',
        twin.removed_at === null
          ? `${args.name} cannot join beside ${twin.name}: participant names are unique ignoring case`
          : `${args.name} reads as ${twin.name}, a removed participant (names are unique ignoring case): add ${twin.name} to bring it back`,
      );
    }
    room.store.insertParticipant({ name: args.name, created_at: now });
    record({
      type: 'participant.added',
      actor: actorName(actor),
      handoffId: null,
      taskId: null,
      payload: { name: args.name },
    });
    return { participant: toParticipant(room.store.getParticipant(args.name)!) };
  });
}

/**
 * Removes a participant and revokes its sessions, effective on their next
 * request. What it did stays in the record.
 */
export function removeParticipant(room: Room, actor: Actor, args: InputOf<'removeParticipant'>): ParticipantOutput {
  return change(room, ({ now, record }) => {
    if (!room.store.removeParticipant(args.name, now)) {
      throw new DomainError('not_found', `${args.name} is not a participant of this room`);
    }
    const revoked = room.workspace.revokeSessionsOf(args.name, now);
    forgetSessions(room);
    record({
      type: 'participant.removed',
      actor: actorName(actor),
      handoffId: null,
      taskId: null,
      payload: { name: args.name, sessions_revoked: revoked },
    });
    return { participant: toParticipant(room.store.getParticipant(args.name)!) };
  });
}

/** Current participants by name; removed ones only when asked. */
export function listParticipants(room: Room, actor: Actor, args: InputOf<'listParticipants'>): ParticipantListOutput {
  return {
    participants: room.store
      .listParticipants()
      .filter((row) => args.include_removed || row.removed_at === null)
      .map(toParticipant),
  };
}
