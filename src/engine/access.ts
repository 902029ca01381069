import type { Capability, Caller } from '../../generated/types.js';
import { DomainError } from '../errors.js';

export function requireCapability(caller: Caller, capability: Capability): void {
  if (!caller.capabilities.includes(capability)) {
    throw new DomainError('forbidden', `this session lacks the ${capability} capability`, {
      required: capability,
    });
  }
}

/** The local operator: whoever can open the room file on disk and runs `ce` there. */
export const LOCAL_OPERATOR = Symbol('local operator');
export type Actor = Caller | typeof LOCAL_OPERATOR;

/** The local operator may do anything a capability allows. */
export function requireActorCapability(actor: Actor, capability: Capability): void {
  if (actor !== LOCAL_OPERATOR) requireCapability(actor, capability);
}

export const actorName = (actor: Actor): string | null => (actor === LOCAL_OPERATOR ? null : actor.participant);

/**
 * The caller of an operation that acts as a participant: a session's, or
 * the local operator's when it names one. The capability is checked too.
 */
export function requireParticipant(actor: Actor, capability: Capability): Caller {
  if (actor === LOCAL_OPERATOR) {
    throw new DomainError(
      'invalid_input',
      'this operation acts as a participant: the local operator names one (ce --participant NAME, or the Commonroom-Participant header over REST)',
    );
  }
  requireCapability(actor, capability);
  return actor;
}
