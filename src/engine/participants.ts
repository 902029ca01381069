import type { ParticipantAddInput, ParticipantListOutput, ParticipantOutput } from '../../generated/types.js';
import { validateParticipantAddInput } from '../../generated/validators.js';
import { actorName, requireActorCapability, type Actor } from './access.js';
import { checkInput } from './check-input.js';
import { toTimestamp } from './clock.js';
import { DomainError } from './errors.js';
import { change, type Room } from './room.js';

export function addParticipant(room: Room, actor: Actor, input: ParticipantAddInput): ParticipantOutput {
  const args = checkInput(validateParticipantAddInput, input);
  requireActorCapability(actor, 'admin');
  return change(room, ({ now, record }) => {
    if (room.store.getParticipant(args.name)) {
      throw new DomainError('conflict', `${args.name} is already a participant of this room`);
    }
    room.store.insertParticipant({ name: args.name, created_at: now });
    record({
      type: 'participant.added',
      actor: actorName(actor),
      handoffId: null,
      taskId: null,
      payload: { name: args.name },
    });
    return { participant: { name: args.name, created_at: toTimestamp(now) } };
  });
}

export function listParticipants(room: Room, actor: Actor): ParticipantListOutput {
  requireActorCapability(actor, 'read');
  return {
    participants: room.store
      .listParticipants()
      .map((row) => ({ name: row.name, created_at: toTimestamp(row.created_at) })),
  };
}
